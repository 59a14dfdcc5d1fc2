"""Read-only SQL for tools: the rows a tool reads, and the shape ``run_sql`` answers with.

:func:`query` runs ONE read-only statement on the current call's harness (the read-only
connection: it cannot write whatever the text says) and returns plain rows; the SUPPLYCHAIN
tools and your own ``@register``-ed tools use it. :func:`sql_result` is the answer of
``run_sql`` and of tools defined as SQL rows.
"""

from __future__ import annotations

import decimal

from agent_harness.foundation.values import to_json_value
from agent_harness.tools.context import current

__all__ = ["query", "sql_result", "MAX_ROWS"]

MAX_ROWS = 10_000


def _plain(value):
    if isinstance(value, decimal.Decimal):  # Oracle NUMBER: int when whole, else float
        return int(value) if value == value.to_integral_value() else float(value)
    return to_json_value(value)


def query(sql: str, **binds) -> list[dict]:
    """Run ONE read-only statement on the data of the running tool call's harness.

    Args:
        sql: Portable SQL (tables as ``supplychain.<table>``, named binds ``:name``).
        **binds: Values for the named binds.

    Returns:
        Rows as dicts with lower-case keys; dates as ISO strings, decimals as numbers.

    Raises:
        NoCurrentHarness: Called outside a tool call (see :mod:`agent_harness.tools.context`).
    """
    result = current().backend.readonly_query(sql, binds, max_rows=MAX_ROWS, timeout_s=10.0)
    names = [c.lower() for c in result.columns]
    return [dict(zip(names, (_plain(v) for v in row))) for row in result.rows]


def sql_result(result) -> dict:
    """A read-only query's result as tools return it: columns, rows, row_count, truncated."""
    return {
        "columns": result.columns,
        "rows": result.rows,
        "row_count": len(result.rows),
        "truncated": result.truncated,
    }
