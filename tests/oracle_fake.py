"""A recording fake of python-oracledb, so a real ``OracleBackend`` runs without a database.

:class:`FakeOracle` replaces ``oracledb.connect`` (the ``fake_oracle`` fixture in
``tests/test_oracle_driver.py`` installs it with monkeypatch). Every connection it opens
records every statement any cursor sends, with the values python-oracledb would send:

* a ``datetime`` bound without ``setinputsizes(DB_TYPE_TIMESTAMP)`` goes as DATE, so its
  fraction of a second is gone (python-oracledb 26, "Binding Dates and Timestamps");
* ``''`` arrives as NULL (Oracle reads an empty string as NULL);
* a value of a type python-oracledb cannot bind raises DPY-3002 (the types of
  ``OracleMetadata.from_value`` in its ``impl/base/metadata.pyx``: ``numpy.float64`` passes
  as a float, ``numpy.float32``, ``numpy.int64`` or a dict do not), a missing value
  ORA-01008, a value for no placeholder DPY-4008, a reserved bind name ORA-01745, as the
  driver and the database would.

Queries are answered with rows whose column labels and value types come from
:func:`tests.oracle_rows.select_columns` (LOB objects unless ``fetch_lobs=False``,
``Decimal``, ``datetime``, ``array.array`` for VECTOR), or with what a test scripts through
:meth:`FakeOracle.answer`: rows, out values for PL/SQL binds, or an error.
"""

from __future__ import annotations

import array
import datetime as dt
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import oracledb
from oracledb.errors import _Error

from tests.oracle_floor import ORACLE_RESERVED, bind_names, check_statement
from tests.oracle_rows import DB_TYPES, FakeLob, one_row_always, sample, select_columns

__all__ = ["Answer", "FakeOracle", "Sent", "oracle_error"]

_BINDABLE = (
    str,
    int,
    float,
    bool,
    Decimal,
    dt.datetime,
    dt.date,
    dt.timedelta,
    bytes,
    array.array,
    FakeLob,
)
_TIMESTAMPS = (
    oracledb.DB_TYPE_TIMESTAMP,
    oracledb.DB_TYPE_TIMESTAMP_TZ,
    oracledb.DB_TYPE_TIMESTAMP_LTZ,
)


def oracle_error(message: str, code: int = 0) -> oracledb.Error:
    """The exception python-oracledb raises for ``message`` (``ORA-01031: ...`` with its code,
    or a driver error ``DPY-4024: ...``): the class follows the code, as in the driver."""
    if not code and message.startswith("ORA-"):
        code = int(message[4:9])
    error = _Error(message, code=code)
    return error.exc_type(error)


@dataclass
class Sent:
    """One statement as the database would receive it.

    Attributes:
        user: The connection's user.
        sql: The statement.
        binds: The values as sent (a dict by name, a tuple by position, or None).
        many: True for one row of an ``executemany``.
        sizes: The input sizes set before it (``setinputsizes``).
    """

    user: str
    sql: str
    binds: Any
    many: bool = False
    sizes: Any = None


@dataclass
class Answer:
    """What the fake answers to the statements matching ``pattern``.

    Attributes:
        pattern: A regular expression searched in the statement.
        rows: Rows (dicts by label, or tuples by position), or a function ``(sql, binds)``
            returning them.
        out: Values for output binds (``cur.var``) by name, or a function ``(sql, binds)``.
        error: An exception to raise instead.
        times: Answer this many times only (None: always).
        user: Only for this user's connections (None: any).
    """

    pattern: re.Pattern
    rows: list[dict] | Callable | None = None
    out: dict | Callable | None = None
    error: Exception | None = None
    times: int | None = None
    user: str | None = None
    used: int = field(default=0)

    def applies(self, sql: str, user: str) -> bool:
        if self.times is not None and self.used >= self.times:
            return False
        if self.user is not None and self.user.upper() != user.upper():
            return False
        return bool(self.pattern.search(sql))


class FakeVar:
    """``cursor.var(...)``: an output bind."""

    def __init__(self, kind: Any) -> None:
        self.type = kind
        self.value: Any = None

    def getvalue(self, pos: int = 0) -> Any:
        return self.value

    def setvalue(self, pos: int, value: Any) -> None:
        self.value = value


class FakeCursor:
    """A cursor of :class:`FakeConnection` (only what the backend uses)."""

    def __init__(self, conn: FakeConnection) -> None:
        self.connection = conn
        self.description: list[tuple] | None = None
        self.rowcount = 0
        self.arraysize = 100
        self._rows: list[tuple] = []
        self._sizes: Any = None

    def __enter__(self) -> FakeCursor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._rows = []

    def setinputsizes(self, *args, **kwargs) -> None:
        self._sizes = kwargs or list(args)

    def var(self, kind: Any, *args, **kwargs) -> FakeVar:
        return FakeVar(kind)

    def _bound(self, sql: str, binds: Any) -> Any:
        """The values as python-oracledb sends them, or its error."""
        self.connection.check_open()
        names = bind_names(sql)
        if reserved := [n for n in names if n.upper() in ORACLE_RESERVED or n.startswith("_")]:
            raise oracle_error(f"ORA-01745: invalid host/bind variable name ({reserved[0]})")
        if binds is None or (isinstance(binds, Mapping) and not binds):
            if names:
                raise oracle_error("ORA-01008: not all variables bound")
            return None
        if isinstance(binds, Mapping):
            extra = [k for k in binds if k.lower() not in names]
            if extra:
                raise oracle_error(f'DPY-4008: no bind placeholder named ":{extra[0]}" was found')
            if missing := [n for n in names if n not in {k.lower() for k in binds}]:
                raise oracle_error(f"ORA-01008: not all variables bound ({missing[0]})")
            sizes = self._sizes if isinstance(self._sizes, dict) else {}
            return {k: self._value(v, sizes.get(k)) for k, v in binds.items()}
        sizes = self._sizes if isinstance(self._sizes, list) else []
        if len(binds) != len(names):
            raise oracle_error("ORA-01008: not all variables bound")
        return tuple(
            self._value(v, sizes[i] if i < len(sizes) else None) for i, v in enumerate(binds)
        )

    @staticmethod
    def _value(value: Any, size: Any) -> Any:
        if value is None or isinstance(value, FakeVar):
            return value
        if isinstance(value, (dict, list)) and size is oracledb.DB_TYPE_JSON:
            return value
        if not isinstance(value, _BINDABLE):  # numpy.float32, numpy.int64, a dict, ...
            raise oracle_error(
                f"DPY-3002: Python value of type {type(value).__name__} is not supported"
            )
        if isinstance(value, str) and value == "":
            return None  # Oracle reads '' as NULL
        if isinstance(value, dt.datetime) and size not in _TIMESTAMPS:
            return value.replace(microsecond=0)  # bound as DATE: whole seconds
        return value

    def execute(self, statement: str, parameters: Any = None, /, fetch_lobs=None, **kwargs):
        binds = parameters if parameters is not None else (kwargs or None)
        sent = self._bound(statement, binds)
        self.connection.driver.record(
            Sent(self.connection.user, statement, sent, sizes=self._sizes)
        )
        self._sizes = None
        self._answer(statement, sent, lobs_as_text=fetch_lobs is False)
        return self

    def executemany(self, statement: str, parameters: Sequence, **kwargs) -> None:
        for row in parameters:
            sent = self._bound(statement, row)
            self.connection.driver.record(
                Sent(self.connection.user, statement, sent, many=True, sizes=self._sizes)
            )
        self._sizes = None
        self.rowcount = len(parameters)
        self.description, self._rows = None, []

    def _answer(self, sql: str, sent: Any, lobs_as_text: bool) -> None:
        answer = self.connection.driver.answer_for(sql, self.connection.user)
        if answer is not None and answer.error is not None:
            raise answer.error
        outs = answer.out if answer is not None else None
        if callable(outs):
            outs = outs(sql, sent)
        for name, value in (outs or {}).items():
            sent[name].value = value
        if isinstance(sent, dict) and isinstance(sent.get("new_id"), FakeVar):
            sent["new_id"].value = [next(self.connection.driver.ids)]
        columns = select_columns(sql)
        rows = answer.rows if answer is not None else None
        if callable(rows):
            rows = rows(sql, sent)
        if columns is None:
            self.description, self._rows = None, []
            self.rowcount = 1 if rows is None else len(rows)
            return
        self.description = [
            (label, DB_TYPES[kind], None, None, None, None, True) for label, kind in columns
        ]
        if rows is None and self.connection.driver.canned:
            rows = [{label: sample(kind, label, lobs_as_text) for label, kind in columns}]
        elif rows is None and (row := one_row_always(sql)):  # COUNT(*) of nothing is 0
            rows = [row]
        self._rows = [self._row(r, columns) for r in rows or []]
        self.rowcount = len(self._rows)

    @staticmethod
    def _row(row: Mapping | Sequence, columns: list[tuple[str, str]]) -> tuple:
        if not isinstance(row, Mapping):  # values by position
            assert len(row) == len(columns), f"scripted row {row} for columns {columns}"
            return tuple(row)
        by_label = {str(k).upper(): v for k, v in row.items()}
        missing = [label for label, _ in columns if label.upper() not in by_label]
        if missing:
            raise AssertionError(f"scripted row {dict(row)} lacks the columns {missing}")
        return tuple(by_label[label.upper()] for label, _ in columns)

    def fetchall(self) -> list[tuple]:
        rows, self._rows = self._rows, []
        return rows

    def fetchone(self) -> tuple | None:
        return self._rows.pop(0) if self._rows else None

    def fetchmany(self, size: int | None = None) -> list[tuple]:
        size = self.arraysize if size is None else size
        rows, self._rows = self._rows[:size], self._rows[size:]
        return rows


class FakeConnection:
    """A connection of one user (only what the backend uses)."""

    version = "23.26.0.0.0"

    def __init__(self, driver: FakeOracle, user: str, dsn: str) -> None:
        self.driver, self.user, self.dsn = driver, user, dsn
        self.call_timeout = 0
        self.commits = self.rollbacks = 0
        self.closed = False

    def check_open(self) -> None:
        if self.closed:
            raise oracle_error("DPY-1001: not connected to database")

    def cursor(self) -> FakeCursor:
        self.check_open()
        return FakeCursor(self)

    def commit(self) -> None:
        self.check_open()
        self.commits += 1

    def rollback(self) -> None:
        self.check_open()
        self.rollbacks += 1

    def close(self) -> None:
        self.check_open()  # python-oracledb raises DPY-1001 for a second close
        self.closed = True

    def createlob(self, kind: Any, value: Any = None) -> FakeLob:
        self.check_open()
        return FakeLob(kind, value)


class FakeOracle:
    """The fake driver: ``connect`` opens a :class:`FakeConnection`, every statement of every
    connection is recorded in :attr:`sent`.

    Attributes:
        sent: Every statement, in order (an ``executemany`` adds one per row).
        connections: Every connection opened.
        refused: User name (upper case) -> the error ``connect`` raises for it.

    Args:
        canned: Answer an unscripted query with one canned row (False: with no rows).
    """

    def __init__(self, canned: bool = True) -> None:
        self.canned = canned
        self.sent: list[Sent] = []
        self.connections: list[FakeConnection] = []
        self.refused: dict[str, Exception] = {}
        self.ids = itertools.count(101)
        self._answers: list[Answer] = []

    def connect(self, user: str = "", password: str = "", dsn: str = "", **params):
        if error := self.refused.get(user.upper()):
            raise error
        conn = FakeConnection(self, user, dsn)
        self.connections.append(conn)
        return conn

    def answer(self, pattern: str, rows=None, *, out=None, error=None, times=None, user=None):
        """Answer statements matching ``pattern`` (newest rule first); see :class:`Answer`."""
        self._answers.insert(0, Answer(re.compile(pattern, re.S), rows, out, error, times, user))

    def answer_for(self, sql: str, user: str) -> Answer | None:
        for answer in self._answers:
            if answer.applies(sql, user):
                answer.used += 1
                return answer
        return None

    def record(self, sent: Sent) -> None:
        self.sent.append(sent)

    def statements(self, pattern: str = "") -> list[Sent]:
        """The statements sent whose text matches ``pattern``."""
        return [s for s in self.sent if re.search(pattern, s.sql, re.S)]

    def problems(self) -> list[str]:
        """What :func:`tests.oracle_floor.check_statement` finds in every statement sent."""
        found = []
        for s in self.sent:
            binds = s.binds
            if isinstance(binds, dict) and not binds:
                binds = None
            for problem in check_statement(s.sql, binds):
                found.append(f"{problem} in {' '.join(s.sql.split())[:200]}")
        return list(dict.fromkeys(found))
