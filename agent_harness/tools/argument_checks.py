"""What a caller's arguments must be before a tool runs, read from the tool's published schema.

A schema that lets a value through promises the tool can take it. So every argument of a tool
built from a function is bounded in its schema (:func:`bound_schema`) where the function does
not bound it itself: an integer to the 64-bit range every integer column holds, a number to
:data:`MAX_NUMBER`, a string to :data:`MAX_STRING_CHARS` characters, an array to
:data:`MAX_ITEMS` items, an object to :data:`MAX_ITEMS` keys. The caller reads the bounds in
``tools/list`` and gets an ``invalid_arguments`` refusal (never a tool fault) when it sends more.

The arguments are checked against the published schema by the ``jsonschema`` library (Draft
2020-12, :func:`schema_problems`), so what is accepted is exactly what the schema says: ``null``
only where the schema allows it, ``500.0`` wherever an integer is asked for (2020-12 counts a
number with a zero fractional part as an integer; :func:`whole_numbers_as_int` hands the tool
``500``). Before any of that, :func:`too_deep` refuses nesting deeper than :data:`MAX_DEPTH`
(Python's recursion would fail on it long before a schema could be checked).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "MAX_STRING_CHARS",
    "MAX_ITEMS",
    "MAX_DEPTH",
    "MAX_NUMBER",
    "INT64",
    "bound_schema",
    "too_deep",
    "out_of_range_integer",
    "schema_problems",
    "whole_numbers_as_int",
]

#: The longest string argument a tool takes unless it says otherwise.
MAX_STRING_CHARS = 1_000
#: The most items of an array (keys of an object) a tool takes unless it says otherwise.
MAX_ITEMS = 100
#: The deepest nesting of any arguments (objects and arrays inside each other).
MAX_DEPTH = 32
#: The largest magnitude of a number argument unless a tool says otherwise (a double holds
#: every whole number up to 2**53 exactly; this stays below it).
MAX_NUMBER = 1e15
#: The range of a signed 64-bit integer: what an INTEGER column (SQLite) or NUMBER(19) holds.
INT64 = (-(2**63), 2**63 - 1)


def bound_schema(schema: Any) -> Any:
    """``schema`` with a bound added to every value that has none (a copy; nested schemas,
    ``items``, ``anyOf``/``oneOf``/``allOf`` and ``additionalProperties`` included)."""
    if isinstance(schema, list):
        return [bound_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    node = {
        k: (
            {n: bound_schema(s) for n, s in v.items()}
            if k in ("properties", "$defs") and isinstance(v, dict)
            else bound_schema(v)
            if k in ("items", "anyOf", "oneOf", "allOf", "additionalProperties")
            else v
        )
        for k, v in schema.items()
    }
    kinds = node.get("type")
    kinds = set(kinds) if isinstance(kinds, list) else {kinds}
    if "enum" in node or "const" in node:
        return node
    if "integer" in kinds:
        node.setdefault("minimum", INT64[0])
        node.setdefault("maximum", INT64[1])
    elif "number" in kinds:
        node.setdefault("minimum", -MAX_NUMBER)
        node.setdefault("maximum", MAX_NUMBER)
    if "string" in kinds:
        node.setdefault("maxLength", MAX_STRING_CHARS)
    if "array" in kinds:
        node.setdefault("maxItems", MAX_ITEMS)
    if "object" in kinds and node.get("additionalProperties") is not False:
        node.setdefault("maxProperties", MAX_ITEMS)
    return node


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when objects and arrays nest more than ``limit`` levels in ``value`` (walked
    without recursion, so any depth is safe to ask about)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def out_of_range_integer(value: Any, where: str = "") -> str | None:
    """Where an integer outside :data:`INT64` hides in ``value`` (None when there is none): no
    database column can take it, whatever the schema says."""
    if isinstance(value, int) and not isinstance(value, bool):
        return None if INT64[0] <= value <= INT64[1] else (where or "arguments")
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, (list, tuple))
        else ()
    )
    for key, item in items:
        found = out_of_range_integer(item, f"{where}.{key}" if where else str(key))
        if found:
            return found
    return None


def _short(value: Any, chars: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= chars else f"{text[:chars]}...({len(text)} chars)"


def _problem(error) -> str:
    """One jsonschema error in words, quoting at most a short prefix of the value."""
    where = ".".join(str(p) for p in error.absolute_path)
    keyword, bound, value = error.validator, error.validator_value, error.instance
    said = {
        "maxLength": f"is longer than {bound} characters",
        "minLength": f"is shorter than {bound} characters",
        "maximum": f"is greater than the maximum of {bound}",
        "minimum": f"is less than the minimum of {bound}",
        "exclusiveMaximum": f"must be less than {bound}",
        "exclusiveMinimum": f"must be greater than {bound}",
        "maxItems": f"has more than {bound} items",
        "minItems": f"has fewer than {bound} items",
        "maxProperties": f"has more than {bound} keys",
        "type": f"is not of type {bound!r}" if isinstance(bound, str) else f"is none of {bound}",
        "enum": f"is not one of {_short(bound, 200)}",
    }.get(keyword)
    if keyword == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"missing required argument '{missing}'"
    if keyword == "additionalProperties" and not where:
        extra = sorted(set(value) - set(error.schema.get("properties") or {}), key=str)
        return "; ".join(f"unexpected argument '{_short(k, 60)[1:-1]}'" for k in extra[:3])
    text = f"{said} (got {_short(value)})" if said else _short(error.message, 200)
    return f"argument '{where[:60]}': {text}" if where else text


def schema_problems(checker, arguments: dict, most: int = 5) -> list[str]:
    """What is wrong with ``arguments`` for a ``jsonschema`` validator, in words (at most
    ``most`` problems, then how many more)."""
    errors = sorted(checker.iter_errors(arguments), key=lambda e: [str(p) for p in e.path])
    said = [_problem(e) for e in errors[:most]]
    if len(errors) > most:
        said.append(f"and {len(errors) - most} more problems")
    return said


def whole_numbers_as_int(schema: Any, value: Any) -> Any:
    """``value`` with every float that has no fractional part turned into an int where
    ``schema`` asks for an integer (what JSON Schema 2020-12 already counts as one)."""
    if not isinstance(schema, dict):
        return value
    kinds = schema.get("type")
    kinds = set(kinds) if isinstance(kinds, list) else {kinds}
    if isinstance(value, float) and "integer" in kinds and value.is_integer():
        return int(value)
    for option in schema.get("anyOf") or schema.get("oneOf") or []:
        converted = whole_numbers_as_int(option, value)
        if converted is not value:
            return converted
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        return {
            k: whole_numbers_as_int(properties.get(k, extra if isinstance(extra, dict) else {}), v)
            for k, v in value.items()
        }
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [whole_numbers_as_int(schema["items"], v) for v in value]
    return value
