"""Argument sets that a tool's PUBLISHED schema allows but that push every bound: the largest and
smallest integers, the longest strings (1 MB where no length is given), the longest arrays and
the deepest nesting the schema lets through, strings made of SQL and LIKE metacharacters.

:func:`hostile_sets` walks each tool's JSON schema; every set it yields passes the ``jsonschema``
library's Draft 2020-12 check against that schema, so a tool that fails on one has a schema
that promised more than the tool can take.
"""

from __future__ import annotations

import itertools
import random

from agent_harness.tools.jsonschema_lib import jsonschema

__all__ = ["hostile_sets", "MEGABYTE", "DEPTH"]

MEGABYTE = 1_000_000
#: How deep a value nests where the schema allows any JSON value.
DEPTH = 5_000
_FILLERS = ("%", "_", "'", "9", "é🚢", "\\", "Z")


def _deep(depth: int, as_list: bool):
    value: object = "bottom"
    for _ in range(depth):
        value = [value] if as_list else {"k": value}
    return value


def _integer(spec: dict, variant: int) -> int:
    low, high = spec.get("minimum"), spec.get("maximum")
    if spec.get("exclusiveMinimum") is not None:
        low = spec["exclusiveMinimum"] + 1
    if spec.get("exclusiveMaximum") is not None:
        high = spec["exclusiveMaximum"] - 1
    choices = [
        high if high is not None else 2**70,
        low if low is not None else -(2**70),
        high if high is not None else 10**30,
    ]
    return choices[variant % len(choices)]


def _number(spec: dict, variant: int) -> float:
    low, high = spec.get("minimum"), spec.get("maximum")
    choices = [
        float(high) if high is not None else 1.7e308,
        float(low) if low is not None else -1.7e308,
        5e-324 if (low is None or low <= 0) and (high is None or high >= 0) else float(low),
    ]
    return choices[variant % len(choices)]


def _string(spec: dict, variant: int, budget: int) -> str:
    if spec.get("enum"):
        return spec["enum"][variant % len(spec["enum"])]
    length = min(spec.get("maxLength", MEGABYTE), budget)
    filler = _FILLERS[variant % len(_FILLERS)]
    return (filler * length)[:length]


def value_for(spec: dict, variant: int, budget: int = MEGABYTE):
    """A hostile value that ``spec`` allows (best effort: the caller checks it), its strings
    ``budget`` characters at most all together."""
    if not isinstance(spec, dict) or spec == {} or "type" not in spec and "enum" not in spec:
        if "anyOf" in (spec or {}):
            return value_for(spec["anyOf"][variant % len(spec["anyOf"])], variant, budget)
        return _deep(DEPTH, variant % 2 == 0)  # any JSON value at all
    if "enum" in spec:
        return spec["enum"][variant % len(spec["enum"])]
    kind = spec["type"]
    if isinstance(kind, list):
        kind = [k for k in kind if k != "null"][variant % max(1, len(kind) - 1)]
    if kind == "integer":
        return _integer(spec, variant)
    if kind == "number":
        return _number(spec, variant)
    if kind == "string":
        return _string(spec, variant, budget)
    if kind == "boolean":
        return variant % 2 == 0
    if kind == "null":
        return None
    if kind == "array":
        items = spec.get("items", {})
        count = min(spec.get("maxItems", 10_000), 10_000)
        return [value_for(items, variant, max(1, budget // count)) for _ in range(count)]
    if kind == "object":
        extra = spec.get("additionalProperties", True)
        properties = spec.get("properties") or {}
        share = max(1, budget // max(1, len(properties)))
        value = {name: value_for(sub, variant, share) for name, sub in properties.items()}
        if extra is not False:
            count = min(spec.get("maxProperties", 1000), 1000)
            sub = extra if isinstance(extra, dict) else {}
            for i in range(max(0, count - len(value))):
                value[f"k{i}"] = value_for(sub, variant + i, 1000)
                if i > 50 and not sub:
                    break
        return value
    return None


def hostile_sets(tools: dict[str, dict], count: int, seed: int = 0):
    """``count`` pairs ``(tool name, arguments)``, round-robin over ``tools`` (name -> input
    schema), each valid against its schema; every argument is set (optional ones too)."""
    rng = random.Random(seed)
    checkers = {n: jsonschema.Draft202012Validator(s) for n, s in tools.items()}
    made, tried = 0, 0
    for variant in itertools.count():
        for name in sorted(tools):
            properties = tools[name].get("properties") or {}
            share = MEGABYTE // max(1, len(properties))
            arguments = {
                a: value_for(s, variant + rng.randrange(7), share) for a, s in properties.items()
            }
            tried += 1
            if checkers[name].is_valid(arguments):
                yield name, arguments
                made += 1
                if made == count:
                    return
        if tried > count * 50:
            raise AssertionError(f"only {made} schema-valid hostile sets in {tried} tries")
