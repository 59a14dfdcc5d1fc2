"""A tool's parameters as ``tool_parameters`` rows, back to a JSON schema, and the validator.

Tools as data (:mod:`agent_harness.tools.tool_definitions`) store one row per argument: its JSON
type, whether it is required, its default, its description and any further JSON-schema
keywords. :func:`rows_from_schema` and :func:`schema_from_rows` are inverses;
:func:`validator` checks a call's arguments against the schema with the ``jsonschema``
library and fills in the defaults that fit.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agent_harness.backends.roles.common import (
    MAX_TEXT_BYTES,
    TextTooLong,
    check_text_fits,
)
from agent_harness.tools.tool import ToolDefinitionError

__all__ = [
    "JSON_TYPES",
    "MAX_TEXT",
    "rows_from_schema",
    "schema_from_rows",
    "unfitting_defaults",
    "validator",
]

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object")
#: Argument names: as public schemas write them (bind variables of sql tools are the
#: identifier-shaped ones, see :func:`~agent_harness.tools.implementations.sql_binds`).
_ARGUMENT = re.compile(r"^[A-Za-z0-9_.$@-]{1,64}$")
#: The most bytes of UTF-8 a description, argument schema or default may take: they are stored
#: in VARCHAR2(4000 CHAR) columns, which hold 4000 bytes (see
#: :data:`~agent_harness.backends.roles.common.MAX_TEXT_BYTES`).
MAX_TEXT = MAX_TEXT_BYTES


def _jsonschema():
    """The jsonschema library, imported on first use: it costs about 0.5 s of import time
    that only a kernel defining or calling tools as data needs (``import agent_harness`` does
    not pay it)."""
    from agent_harness.tools.jsonschema_lib import jsonschema

    return jsonschema


def _has_ref(node: Any) -> bool:
    if isinstance(node, dict):
        return "$ref" in node or any(_has_ref(v) for v in node.values())
    return isinstance(node, list) and any(_has_ref(v) for v in node)


def _property_type(where: str, spec: dict) -> tuple[str, dict]:
    """The ``json_type`` column of a property and the schema keywords stored beside it.

    A single JSON type is the column; anything else (a list such as ``["string", "null"]``,
    or no ``type`` with ``anyOf``/``oneOf``/``allOf``/``enum``/``const``) is kept exactly in
    ``schema_extra`` (``"type": null`` there means "no type keyword") and the column holds a
    summary: the first listed type of the six, else ``string``.
    """
    extra = {k: v for k, v in spec.items() if k not in ("type", "description", "default")}
    kind = spec.get("type")
    if kind in JSON_TYPES:
        return kind, extra
    if kind is None and not any(k in spec for k in ("anyOf", "oneOf", "allOf", "enum", "const")):
        raise ToolDefinitionError(
            f"{where}: give a JSON type (one of {JSON_TYPES}) or anyOf/oneOf/enum/const"
        )
    listed = kind if isinstance(kind, list) else []
    extra["type"] = kind
    return next((t for t in listed if t in JSON_TYPES), "string"), extra


def rows_from_schema(name: str, schema: dict) -> list[dict]:
    """The ``tool_parameters`` rows of a JSON schema (one per property, in order).

    Public schemas are accepted as they are: descriptions are optional, nested objects,
    arrays, enums and anyOf/oneOf are kept (``schema_extra``), ``required`` is honoured.
    Only ``properties`` and ``required`` of the top level are stored. ``"default": null`` on an
    argument whose schema does not allow null (published schemas write it for "optional, no
    value") means no default: it is not stored. Any other default that does not fit its
    argument (``"false"`` for a boolean) is kept as published and never filled in
    (:func:`unfitting_defaults` names them; ``define`` warns).

    Raises:
        ToolDefinitionError: Not an object schema, a schema JSON Schema itself rejects, a
            ``$ref`` (inline it), a property without a type, or a text longer than
            :data:`MAX_TEXT` bytes in UTF-8.
    """
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        raise ToolDefinitionError(f"tool {name!r}: parameters must be a JSON schema of type object")
    jsonschema = _jsonschema()
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        where = "/".join(map(str, e.path)) or "the top level"
        raise ToolDefinitionError(
            f"tool {name!r}: parameters is not a valid JSON schema at {where}: {e.message}"
        ) from None
    if _has_ref(schema):
        raise ToolDefinitionError(f"tool {name!r}: parameters use $ref: inline the schema it names")
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    unknown = required - set(properties)
    if unknown:
        raise ToolDefinitionError(f"tool {name!r}: required names no property: {sorted(unknown)}")
    rows = []
    for ordinal, (arg, spec) in enumerate(properties.items(), start=1):
        where = f"tool {name!r}, argument {arg!r}"
        if not isinstance(arg, str) or not _ARGUMENT.match(arg):
            raise ToolDefinitionError(f"{where}: the name must match {_ARGUMENT.pattern}")
        if not isinstance(spec, dict):
            raise ToolDefinitionError(f"{where}: its schema must be an object")
        json_type, extra = _property_type(where, spec)
        if "default" in spec and spec["default"] is None and not _default_fits(spec):
            spec = {k: v for k, v in spec.items() if k != "default"}
        row = {
            "ordinal": ordinal,
            "name": arg,
            "json_type": json_type,
            "required": arg in required,
            "default_value": json.dumps(spec["default"]) if "default" in spec else None,
            "description": str(spec.get("description") or "").strip(),
            "schema_extra": json.dumps(extra, sort_keys=True),
        }
        for column in ("description", "schema_extra", "default_value"):
            try:
                check_text_fits(row[column], f"{where}: its {column.replace('_', ' ')}")
            except TextTooLong as e:
                raise ToolDefinitionError(str(e)) from None
        rows.append(row)
    return rows


def unfitting_defaults(name: str, schema: dict) -> list[str]:
    """Why each published default of ``schema`` that does not fit its argument is not filled in
    (a null one is not named: it means "no default").

    Args:
        name: The tool's name (for the messages).
        schema: Its parameters' JSON schema.

    Returns:
        One message per such argument, saying what to fix.
    """
    said = []
    for arg, spec in ((schema or {}).get("properties") or {}).items():
        if isinstance(spec, dict) and spec.get("default") is not None and not _default_fits(spec):
            problem = next(_without_default(spec).iter_errors(spec["default"])).message
            said.append(
                f"tool {name!r}, argument {arg!r}: the default does not fit ({problem}); it"
                " stays in the schema as published but is never filled in: fix the default"
            )
    return said


def _without_default(spec: dict):
    return _jsonschema().Draft202012Validator({k: v for k, v in spec.items() if k != "default"})


def _default_fits(spec: dict) -> bool:
    return _without_default(spec).is_valid(spec["default"])


def schema_from_rows(rows: list[dict]) -> dict:
    """The JSON schema the ``tool_parameters`` rows describe (the inverse of
    :func:`rows_from_schema`)."""
    properties: dict[str, Any] = {}
    required = []
    for row in sorted(rows, key=lambda r: r["ordinal"]):
        spec: dict[str, Any] = {"type": row["json_type"]}
        description = str(row["description"] or "").strip()
        if description:
            spec["description"] = description
        spec.update(json.loads(row["schema_extra"] or "{}"))
        if spec["type"] is None:  # stored as "no type keyword" (anyOf, enum, ...)
            del spec["type"]
        if row["default_value"] is not None:
            spec["default"] = json.loads(row["default_value"])
        properties[row["name"]] = spec
        if row["required"]:
            required.append(row["name"])
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def validator(name: str, schema: dict):
    """A function that checks a call's arguments against ``schema`` (from
    :func:`schema_from_rows`) and returns them with the defaults that fit filled in; it raises
    ``ValueError`` naming up to five problems and what the tool takes."""
    checker = _jsonschema().Draft202012Validator(schema)
    takes = ", ".join(f"{n}{'' if n in schema['required'] else '?'}" for n in schema["properties"])
    defaults = {
        n: s["default"]
        for n, s in schema["properties"].items()
        if "default" in s and _default_fits(s)
    }

    def validate(arguments: dict) -> dict:
        filled = {n: v for n, v in defaults.items() if n not in arguments}
        filled.update(arguments)
        problems = sorted(checker.iter_errors(filled), key=lambda e: list(e.path))
        if problems:
            said = "; ".join(
                f"argument '{'.'.join(map(str, p.path))}': {p.message}" if p.path else p.message
                for p in problems[:5]
            )
            raise ValueError(f"{said}. {name} takes: {takes or 'no arguments'}")
        return filled

    return validate
