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

It also holds the database's state that decides whether a statement may run and what a
stored unit does (:class:`World`): each user's privileges (``tests/oracle_privileges.py``:
ORA-01031 / ORA-00942 for a statement outside them), the source of every stored PL/SQL unit
(read by a real PL/SQL grammar, ``tests/oracle_plsql.py``: a unit it cannot read is stored
with compilation errors, ``cursor.warning`` DPY-7000 and rows in USER_ERRORS, as the
database answers; an anonymous block it cannot read raises ORA-06550), the identity tickets
(``tests/oracle_tickets.py``: the package's ticket window evaluated with Oracle's datetime
rules in the session time zone python-oracledb sets at logon). A new fake starts as
``workshop setup`` leaves the database (:func:`setup_world`).

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
from functools import cache
from typing import Any

import oracledb
from oracledb.errors import WRN_COMPILATION_ERROR, _create_warning, _Error

from tests.oracle_floor import ORACLE_RESERVED, bind_names, check_statement
from tests.oracle_plsql import is_plsql, plsql_problems
from tests.oracle_privileges import Privileges, Refusal, setup_script_grants
from tests.oracle_rows import DB_TYPES, FakeLob, one_row_always, sample, select_columns
from tests.oracle_tickets import TicketBook, driver_session_time_zone, parse_zone

__all__ = [
    "Answer",
    "FakeOracle",
    "Sent",
    "World",
    "oracle_error",
    "setup_statements",
    "setup_world",
]

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


def _error_row(problem: str) -> tuple:
    """A USER_ERRORS row (LINE, POSITION, TEXT) from ``"line L, column C: message"``."""
    found = re.match(r"line (\d+), column (\d+): (.*)", problem, re.S)
    return (int(found.group(1)), int(found.group(2)), found.group(3)) if found else (0, 0, problem)


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


_UNIT = re.compile(
    r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:NON)?EDITIONABLE\s+)?"
    r"(?P<kind>PACKAGE\s+BODY|PACKAGE|PROCEDURE|FUNCTION|TRIGGER|TYPE)\s+"
    r"(?:(?P<schema>\w+)\.)?(?P<name>\w+)",
    re.IGNORECASE,
)


@dataclass
class World:
    """The database's state behind every connection of one fake.

    Attributes:
        privileges: Each user's grants (:class:`tests.oracle_privileges.Privileges`).
        sources: ``(owner, TYPE, NAME)`` -> the stored text of a PL/SQL unit (USER_SOURCE).
        errors: ``(owner, TYPE, NAME)`` -> its compilation errors (USER_ERRORS rows).
        generations: ``(owner, TYPE, NAME)`` -> how many times it was created: a session
            that holds state of an older one gets ORA-04068 at its next call (PL/SQL
            Language Reference 23, "Package State").
        tickets_ddl: The CREATE TABLE identity_tickets received.
        tickets: The identity tickets (:class:`tests.oracle_tickets.TicketBook`).
        refusals: Every statement refused for privileges: ``(user, error, sql)``.
        checked: How many statements the privilege check passed.
    """

    privileges: Privileges
    sources: dict[tuple[str, str, str], str] = field(default_factory=dict)
    errors: dict[tuple[str, str, str], list[tuple]] = field(default_factory=dict)
    generations: dict[tuple[str, str, str], int] = field(default_factory=dict)
    tickets_ddl: str | None = None
    tickets: TicketBook = field(default_factory=TicketBook)
    refusals: list[tuple[str, str, str]] = field(default_factory=list)
    checked: int = 0

    def copy(self) -> World:
        return World(
            self.privileges.copy(),
            dict(self.sources),
            dict(self.errors),
            dict(self.generations),
            self.tickets_ddl,
            TicketBook(self.tickets.db_zone),
        )


def setup_world() -> World:
    """The database as ``workshop setup`` leaves it: the start-up script's grants, then the
    demo schema loaded and the policy installed by the backend itself (on a fake that checks
    each of those statements from the script's grants on)."""
    return _setup_run().world.copy()


def setup_statements() -> list[Sent]:
    """What that first load and install sent (each checked from the script's grants on)."""
    return list(_setup_run().sent)


@cache
def _setup_run() -> FakeOracle:
    import tempfile
    from pathlib import Path

    from agent_harness.backends.oracle.supplychain import OracleSupplyChain
    from agent_harness.supplychain.schema import TABLES
    from tests.oracle_flows import few_rows, settings

    with tempfile.TemporaryDirectory(prefix="oracle-setup-") as folder:
        config = settings(Path(folder))
        fake = FakeOracle(canned=False, world=World(setup_script_grants(config)))
        with _connect_with(fake):
            loader = OracleSupplyChain(None, config)
            loader.db = _Unlocked()
            loader.load(TABLES, few_rows())
            loader.close()
        assert not fake.world.refusals, fake.world.refusals
        return fake


class _Unlocked:
    """Stands in for the harness connection the loader only locks."""

    def __init__(self) -> None:
        import threading

        self.lock = threading.RLock()


class _connect_with:
    """``oracledb.connect`` replaced by a fake's for a ``with`` block."""

    def __init__(self, fake: FakeOracle) -> None:
        self.fake = fake

    def __enter__(self) -> None:
        self.saved = oracledb.connect
        oracledb.connect = self.fake.connect

    def __exit__(self, *exc) -> None:
        oracledb.connect = self.saved


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
        self.warning: _Error | None = None
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
        self.warning = None
        self.connection.allowed(statement)
        self._answer(statement, sent, lobs_as_text=fetch_lobs is False)
        self.connection.changed(statement)
        return self

    def executemany(self, statement: str, parameters: Sequence, **kwargs) -> None:
        self.warning = None
        self.connection.allowed(statement)
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
        kept = self.connection.run(self, sql, sent)  # what the database itself answers
        outs = answer.out if answer is not None else None
        if callable(outs):
            outs = outs(sql, sent)
        for name, value in (outs or {}).items():
            sent[name].value = value
        if isinstance(sent, dict) and isinstance(sent.get("new_id"), FakeVar):
            sent["new_id"].value = [next(self.connection.driver.ids)]
        columns = select_columns(sql)
        rows = answer.rows if answer is not None else kept
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

    def __iter__(self):
        return iter(self.fetchall())

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
        self.schema = user.upper()  # ALTER SESSION SET CURRENT_SCHEMA changes it
        self.package_state: dict[tuple[str, str, str], int] = {}  # unit -> its generation
        # python-oracledb thin sends ALTER SESSION SET TIME_ZONE at logon (see oracle_tickets)
        self.time_zone = parse_zone(driver_session_time_zone())

    @property
    def world(self) -> World:
        return self.driver.world

    def allowed(self, sql: str) -> None:
        """Refuse a statement the user may not run, as Oracle does."""
        try:
            self.world.privileges.check(self.user, sql, self.schema)
        except Refusal as refusal:
            self.world.refusals.append((self.user, str(refusal), sql))
            raise oracle_error(str(refusal)) from None
        self.world.checked += 1

    def changed(self, sql: str) -> None:
        """What a statement that ran leaves behind (grants, dropped objects, session)."""
        self.world.privileges.apply(self.user, sql, self.schema)
        if found := re.match(r"^\s*ALTER SESSION SET CURRENT_SCHEMA\s*=\s*(\w+)", sql, re.I):
            self.schema = found.group(1).upper()
        if found := re.match(r"^\s*ALTER SESSION SET TIME_ZONE\s*=\s*'([^']+)'", sql, re.I):
            self.time_zone = parse_zone(found.group(1))

    def run(self, cursor: FakeCursor, sql: str, sent: Any) -> list | None:
        """The database's own part of a statement: compile a unit, keep a ticket, consume one,
        answer USER_SOURCE and USER_ERRORS. Rows for a query it answers, else None."""
        world, owner = self.world, self.schema
        if self.package_state and any(
            world.generations.get(key) != seen for key, seen in self.package_state.items()
        ):  # a package this session holds state of was created again
            self.package_state.clear()
            raise oracle_error("ORA-04068: existing state of packages has been discarded")
        if unit := _UNIT.match(sql):
            kind = " ".join(unit.group("kind").upper().split())
            owner = (unit.group("schema") or owner).upper()
            key = (owner, kind, unit.group("name").upper())
            world.sources[key] = sql[unit.start("kind") :]
            world.generations[key] = world.generations.get(key, 0) + 1
            problems = list(plsql_problems(sql))
            if refused := world.privileges.stored_unit_refusal(owner, sql):
                problems.append(f"line 1, column 1: {refused}")
            world.errors[key] = [_error_row(p) for p in problems]
            if problems:
                cursor.warning = _create_warning(WRN_COMPILATION_ERROR)
            return None
        if is_plsql(sql) and (problems := plsql_problems(sql)):
            raise oracle_error(f"ORA-06550: {problems[0]}")
        if re.match(r"^\s*CREATE TABLE identity_tickets\b", sql, re.I):
            world.tickets_ddl = sql
        elif re.match(r"^\s*INSERT INTO identity_tickets\b", sql, re.I):
            world.tickets.insert(world.tickets_ddl or "", sql, sent, self.time_zone)
        elif re.search(r"\bworkshop_identity\.bind_session\(", sql, re.I):
            body = world.sources.get(("SUPPLYCHAIN", "PACKAGE BODY", "WORKSHOP_IDENTITY"))
            if body is None or world.errors.get(
                ("SUPPLYCHAIN", "PACKAGE BODY", "WORKSHOP_IDENTITY")
            ):
                raise oracle_error(
                    "ORA-06550: line 1, column 7:\nPLS-00201: identifier"
                    " 'SUPPLYCHAIN.WORKSHOP_IDENTITY' must be declared"
                )
            if not world.tickets.consume(body, sent["ticket"], self.time_zone):
                raise oracle_error("ORA-20022: unknown or expired identity ticket")
            key = ("SUPPLYCHAIN", "PACKAGE BODY", "WORKSHOP_IDENTITY")
            self.package_state[key] = world.generations.get(key, 0)
        elif found := re.search(
            r"FROM user_objects WHERE object_name = :name AND object_type = '(\w+)'"
            r" AND status = 'VALID'",
            sql,
        ):
            key = (owner, found.group(1), sent["name"])
            valid = key in world.sources and not world.errors.get(key)
            return [{"COUNT(*)": int(valid)}]
        elif re.search(r"\bFROM user_errors\b", sql, re.I):
            return world.errors.get((owner, sent["kind"], sent["name"]), [])
        elif re.search(r"\bFROM user_source\b", sql, re.I):
            text = world.sources.get((owner, sent["kind"], sent["name"]))
            return [(line,) for line in text.splitlines(keepends=True)] if text else []
        return None

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
        world: The database's state (default: as ``workshop setup`` leaves it).
    """

    def __init__(self, canned: bool = True, world: World | None = None) -> None:
        self.canned = canned
        self.world = world if world is not None else setup_world()
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
