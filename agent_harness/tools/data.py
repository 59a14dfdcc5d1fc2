"""Read-only access to the SUPPLYCHAIN data for tools, the same on every backend."""

from __future__ import annotations

import decimal

from agent_harness.tools import context
from agent_harness.values import to_json_value

__all__ = ["query"]

MAX_ROWS = 10_000


def _plain(value):
    if isinstance(value, decimal.Decimal):  # Oracle NUMBER: int when whole, else float
        return int(value) if value == value.to_integral_value() else float(value)
    return to_json_value(value)


def query(sql: str, **binds) -> list[dict]:
    """Run ONE read-only statement on the SUPPLYCHAIN data.

    Args:
        sql: Portable SQL (tables as ``supplychain.<table>``, named binds ``:name``).
        **binds: Values for the named binds.

    Returns:
        Rows as dicts with lower-case keys; dates as ISO strings, decimals as numbers.
    """
    result = context.current().backend.readonly_query(sql, binds, max_rows=MAX_ROWS, timeout_s=10.0)
    names = [c.lower() for c in result.columns]
    return [dict(zip(names, (_plain(v) for v in row))) for row in result.rows]
