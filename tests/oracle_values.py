"""Values of the Python types python-oracledb returns, for canned rows (no SQL here).

What python-oracledb 26 (thin mode) hands back for each column type ("Fetching Data" and
"Using CLOB, BLOB, NCLOB and BFILE Data" in its user guide): ``str`` for VARCHAR2, a LOB object
for a CLOB unless the statement is run with ``fetch_lobs=False`` (then ``str``), ``int`` for an
integer NUMBER, ``decimal.Decimal`` where the application asks for decimals (the values here
mix it in so code that reads numbers must convert them), ``float`` for BINARY_DOUBLE, a naive
``datetime`` for DATE and TIMESTAMP, ``dict`` for a JSON column and ``array.array('f')`` for a
``VECTOR(n, FLOAT32)``.
"""

from __future__ import annotations

import array
import datetime as dt
from decimal import Decimal
from typing import Any

import oracledb

from agent_harness.embeddings import DIMENSIONS

__all__ = ["DB_TYPES", "FakeLob", "SAMPLE_TIME", "sample"]

#: The time every canned TIMESTAMP holds: sub-second, so a lost fraction shows.
SAMPLE_TIME = dt.datetime(2026, 1, 1, 12, 0, 0, 123000)

#: The python-oracledb type a description reports for each kind of value.
DB_TYPES = {
    "text": oracledb.DB_TYPE_VARCHAR,
    "clob": oracledb.DB_TYPE_CLOB,
    "int": oracledb.DB_TYPE_NUMBER,
    "decimal": oracledb.DB_TYPE_NUMBER,
    "float": oracledb.DB_TYPE_BINARY_DOUBLE,
    "time": oracledb.DB_TYPE_TIMESTAMP,
    "iso": oracledb.DB_TYPE_VARCHAR,
    "json": oracledb.DB_TYPE_JSON,
    "vector": oracledb.DB_TYPE_VECTOR,
}


class FakeLob:
    """A LOB as python-oracledb hands it out: ``read()``, ``size()``, ``type``."""

    def __init__(self, kind: Any, value: str | bytes | None = None) -> None:
        self.type = kind
        self.value = value if value is not None else ("" if kind is oracledb.DB_TYPE_CLOB else b"")

    def read(self, offset: int = 1, amount: int | None = None):
        end = None if amount is None else offset - 1 + amount
        return self.value[offset - 1 : end]

    def size(self) -> int:
        return len(self.value)

    def __repr__(self) -> str:
        return f"<FakeLob {self.type.name} of {len(self.value)}>"


def sample(kind: str, label: str, lobs_as_text: bool) -> Any:
    """One value of ``kind`` (see :func:`tests.oracle_floor.select_columns`) for a column
    labelled ``label``.

    Args:
        kind: The column's kind.
        label: Its label (text values are ``<label>-1``).
        lobs_as_text: True when the statement ran with ``fetch_lobs=False``.
    """
    name = label.lower()
    if kind == "int":
        return 1
    if kind == "decimal":
        return Decimal("0.5")
    if kind == "float":
        return 0.5
    if kind == "time":
        return SAMPLE_TIME
    if kind == "iso":
        return "2026-01-01T12:00:00.123Z"
    if kind == "json":
        return {}
    if kind == "vector":
        return array.array("f", [1.0 / DIMENSIONS**0.5] * DIMENSIONS)
    text = "{}" if name in _JSON_TEXT else f"{name}-1"
    if kind == "clob":
        return text if lobs_as_text else FakeLob(oracledb.DB_TYPE_CLOB, text)
    return text


# Columns that hold JSON text (CLOB / VARCHAR2 with IS JSON, or JSON_SERIALIZE'd).
_JSON_TEXT = frozenset(
    {
        "metadata",
        "detail",
        "evidence",
        "parameters",
        "implementation",
        "config",
        "schema_extra",
        "default_value",
        "gen_ai_tool_call_arguments",
    }
)
