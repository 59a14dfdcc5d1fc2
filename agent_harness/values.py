"""Turning database values into JSON-friendly Python values, the same way on every backend."""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
from typing import Any

__all__ = ["to_json_value", "dumps"]


def to_json_value(value: Any) -> Any:
    """Convert one database value to something ``json.dumps`` accepts.

    Dates and timestamps become ISO-8601 strings, decimals become strings (no float rounding),
    LOBs are read whole, bytes become text (UTF-8) or ``base64:...``.

    Args:
        value: A value fetched from SQLite or Oracle.

    Returns:
        A str, int, float, bool, None, list or dict.
    """
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return "base64:" + base64.b64encode(raw).decode("ascii")
    if hasattr(value, "read"):  # an Oracle LOB: read it whole
        return to_json_value(value.read())
    if isinstance(value, dict):
        return {str(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_value(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalars and arrays, array.array
        return value.tolist()
    return str(value)


def dumps(value: Any) -> str:
    """``json.dumps`` with :func:`to_json_value` for anything it does not know, unicode kept."""
    return json.dumps(value, ensure_ascii=False, default=to_json_value)
