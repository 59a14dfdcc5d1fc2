"""Turning database values into JSON-friendly Python values, the same way on every backend.

Everything the harness writes as JSON is strict JSON: NaN and Infinity (which ``json.dumps``
would write, and strict parsers and several MCP clients reject) become ``null``, and a lone
surrogate (``"\ud800"``, which no UTF-8 text can hold: a database, a file or the MCP wire
would refuse it) is written as its escape, ``\ud800``.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
import math
import re
from typing import Any

__all__ = ["to_json_value", "dumps", "finite", "safe_text"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def safe_text(text: str) -> str:
    """``text`` with any lone surrogate written as its backslash escape (valid UTF-8)."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


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


def finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float (nested ones too, numpy's included) replaced
    by None, every string made :func:`safe_text`, and anything ``json`` does not know
    converted by :func:`to_json_value`."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return safe_text(value)
    if value is None or isinstance(value, (int, bool)):
        return value
    if isinstance(value, dict):
        return {safe_text(str(k)): finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return finite(to_json_value(value))


def dumps(value: Any) -> str:
    """Strict JSON text of ``value`` (:func:`finite`: no NaN or Infinity), unicode kept."""
    return json.dumps(finite(value), ensure_ascii=False, allow_nan=False)
