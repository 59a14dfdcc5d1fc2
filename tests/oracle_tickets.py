"""The identity tickets as Oracle keeps and compares them: datetime types and time zones.

The stand-in stores each ticket SUPPLYCHAIN writes and, when a session calls
``bind_session``, evaluates the condition of the DELETE in the package body it was given,
with Oracle's datetime rules:

* ``SYSTIMESTAMP`` is a TIMESTAMP WITH TIME ZONE: the database server's clock in the server's
  own time zone (SQL Language Reference 23, SYSTIMESTAMP). The container runs in UTC.
* ``SYS_EXTRACT_UTC(x)`` is the UTC TIMESTAMP (no zone) of x (SQL Language Reference 23,
  SYS_EXTRACT_UTC).
* A TIMESTAMP WITH TIME ZONE stored in a TIMESTAMP column keeps its date and time fields and
  loses the zone (SQL Language Reference 23, "Datetime and Interval Data Types": TIMESTAMP
  holds no time zone).
* A TIMESTAMP compared with a TIMESTAMP WITH TIME ZONE is first converted to one, "using the
  session time zone" (Database Globalization Support Guide 23, "Datetime Comparisons",
  https://docs.oracle.com/en/database/oracle/oracle-database/23/nlspg/datetime-data-types-and-time-zone-support.html).
* The session time zone is what python-oracledb thin sends at logon: ``ORA_SDTZ`` when set,
  else the client's offset from ``time.localtime().tm_gmtoff`` (``_get_alter_timezone_
  statement`` in its ``impl/thin/messages/auth.pyx``, sent as AUTH_ALTER_SESSION).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import time
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

import sqlglot
from sqlglot import exp

__all__ = ["TicketBook", "driver_session_time_zone", "parse_zone"]

UTC = dt.timezone.utc


def parse_zone(text: str) -> dt.tzinfo:
    """An Oracle time zone value: ``'+05:30'`` or a region name (``'Asia/Kolkata'``)."""
    found = re.fullmatch(r"([+-])(\d{1,2}):(\d{2})", text.strip())
    if found:
        sign = -1 if found.group(1) == "-" else 1
        delta = dt.timedelta(hours=int(found.group(2)), minutes=int(found.group(3)))
        return dt.timezone(sign * delta)
    if text.strip().upper() in ("UTC", "GMT"):
        return UTC
    return ZoneInfo(text.strip())


def driver_session_time_zone() -> str:
    """The value python-oracledb thin sets the session's TIME_ZONE to at logon."""
    value = os.environ.get("ORA_SDTZ")
    if value is not None:
        return value
    offset = time.localtime().tm_gmtoff
    hours = offset // 3600  # Python's floor division, as the driver's Cython does
    minutes = (offset - hours * 3600) // 60
    sign = "-" if hours < 0 else "+"
    return f"{sign}{abs(hours):02}:{minutes:02}"


@dataclass(frozen=True)
class Value:
    """A datetime with its Oracle type: ``TS`` (TIMESTAMP, naive) or ``TSTZ`` (aware)."""

    kind: str
    at: dt.datetime


@dataclass
class TicketBook:
    """The ``identity_tickets`` rows the stand-in holds, and ``bind_session``'s window.

    Attributes:
        db_zone: The database server's time zone (SYSTIMESTAMP's).
        clock: Now, in UTC (tests move it).
        rows: ticket -> its stored ``issued_at``.
    """

    db_zone: dt.tzinfo = UTC
    clock: object = field(default=lambda: dt.datetime.now(UTC))
    rows: dict[str, Value] = field(default_factory=dict)

    def _systimestamp(self) -> Value:
        return Value("TSTZ", self.clock().astimezone(self.db_zone))

    def _eval(self, node: exp.Expression, row: dict, session_zone: dt.tzinfo):
        if isinstance(node, exp.Systimestamp):
            return self._systimestamp()
        if isinstance(node, exp.Anonymous) and node.name.upper() == "SYS_EXTRACT_UTC":
            inner = self._eval(node.expressions[0], row, session_zone)
            return Value("TS", _as_tstz(inner, session_zone).astimezone(UTC).replace(tzinfo=None))
        if isinstance(node, exp.Column):
            return row[node.name.lower()]
        if isinstance(node, exp.Sub) and isinstance(node.expression, exp.Interval):
            value = self._eval(node.this, row, session_zone)
            amount = int(node.expression.this.name)
            unit = node.expression.text("unit").upper()
            delta = dt.timedelta(**{f"{unit.lower()}s": amount})
            return Value(value.kind, value.at - delta)
        if isinstance(node, (exp.GT, exp.GTE, exp.LT, exp.LTE)):
            left = self._eval(node.this, row, session_zone)
            right = self._eval(node.expression, row, session_zone)
            a, b = _comparable(left, right, session_zone)
            return {exp.GT: a > b, exp.GTE: a >= b, exp.LT: a < b, exp.LTE: a <= b}[type(node)]
        raise NotImplementedError(f"the stand-in does not evaluate {node.sql('oracle')}")

    def insert(self, ddl: str, sql: str, binds: dict, session_zone: dt.tzinfo) -> None:
        """Store a ticket as ``INSERT INTO identity_tickets ...`` would, with the table's
        DEFAULT from ``ddl`` when the INSERT gives no ``issued_at``."""
        tree = sqlglot.parse_one(sql, read="oracle")
        columns = [c.name.lower() for c in tree.this.expressions]
        values = tree.expression.expressions[0].expressions
        given = dict(zip(columns, values))
        expression = given.get("issued_at")
        if expression is None:
            table = sqlglot.parse_one(ddl, read="oracle")
            column = next(c for c in table.find_all(exp.ColumnDef) if c.name == "issued_at")
            expression = column.find(exp.DefaultColumnConstraint).this
        value = self._eval(expression, {}, session_zone)
        if value.kind == "TSTZ":  # into a TIMESTAMP column: the fields, without the zone
            value = Value("TS", value.at.replace(tzinfo=None))
        self.rows[binds["ticket"]] = value

    def consume(self, package_body: str, ticket: str, session_zone: dt.tzinfo) -> bool:
        """``bind_session(ticket)``: True when the package's DELETE finds the ticket (it is
        then gone), False when it is unknown or outside the window."""
        found = re.search(
            r"DELETE FROM identity_tickets\s+WHERE\s+(.*?)\s+RETURNING", package_body, re.S
        )
        if found is None:
            raise AssertionError("the package body has no DELETE FROM identity_tickets")
        where = sqlglot.parse_one(f"SELECT 1 FROM t WHERE {found.group(1)}", read="oracle")
        if ticket not in self.rows:
            return False
        conditions = (
            list(where.args["where"].this.flatten())
            if isinstance(where.args["where"].this, exp.And)
            else [where.args["where"].this]
        )
        row = {"issued_at": self.rows[ticket]}
        for condition in conditions:
            if isinstance(condition, exp.EQ):  # ticket = p_ticket: the key, looked up above
                continue
            if not self._eval(condition, row, session_zone):
                return False
        del self.rows[ticket]
        return True


def _as_tstz(value: Value, session_zone: dt.tzinfo) -> dt.datetime:
    """A TIMESTAMP read in the session time zone, as Oracle converts it."""
    return value.at if value.kind == "TSTZ" else value.at.replace(tzinfo=session_zone)


def _comparable(left: Value, right: Value, session_zone: dt.tzinfo):
    if left.kind == right.kind == "TS":
        return left.at, right.at
    return _as_tstz(left, session_zone), _as_tstz(right, session_zone)
