"""Units used in shipping, and the convert_units tool."""

from __future__ import annotations

from agent_harness.tools.tool import ToolError

#: The category of every tool in this module (``Tool.from_function`` reads it).
TOOL_CATEGORY = "units"

__all__ = [
    "UNITS",
    "UNIT_ALIASES",
    "convert_units",
]

#: unit -> (dimension, factor to the dimension's base unit); temperature is handled apart.
UNITS = {
    "nm": ("length", 1852.0),
    "km": ("length", 1000.0),
    "mi": ("length", 1609.344),
    "m": ("length", 1.0),
    "kg": ("mass", 1.0),
    "t": ("mass", 1000.0),
    "lb": ("mass", 0.45359237),
    "teu": ("container slots", 1.0),
    "feu": ("container slots", 2.0),
    "cents": ("money", 1.0),
    "usd": ("money", 100.0),
    "knots": ("speed", 1852.0 / 3600),
    "kmh": ("speed", 1000.0 / 3600),
    "mph": ("speed", 1609.344 / 3600),
    "c": ("temperature", 1.0),
    "f": ("temperature", 1.0),
}
#: Other spellings of the units, lower case.
UNIT_ALIASES = {
    "nmi": "nm", "nautical mile": "nm", "nautical miles": "nm", "kilometer": "km",
    "kilometers": "km", "kilometre": "km", "kilometres": "km", "mile": "mi", "miles": "mi",
    "meter": "m", "meters": "m", "metre": "m", "metres": "m", "kilogram": "kg", "kilograms": "kg",
    "kgs": "kg", "tonne": "t", "tonnes": "t", "metric ton": "t", "metric tons": "t", "mt": "t",
    "lbs": "lb", "pound": "lb", "pounds": "lb", "cent": "cents", "us cents": "cents",
    "dollar": "usd", "dollars": "usd", "$": "usd", "us$": "usd", "kn": "knots", "kt": "knots",
    "kts": "knots", "knot": "knots", "km/h": "kmh", "kph": "kmh", "mi/h": "mph",
    "celsius": "c", "°c": "c", "degc": "c", "fahrenheit": "f", "°f": "f", "degf": "f",
}  # fmt: skip


def _unit(name: str) -> str:
    key = (name or "").strip().lower()
    key = UNIT_ALIASES.get(key, key)
    if key not in UNITS:
        raise ToolError(
            f"unknown unit '{name}'. Valid units: "
            + "; ".join(
                f"{dim}: {', '.join(u for u, (d, _) in UNITS.items() if d == dim)}"
                for dim in dict.fromkeys(d for d, _ in UNITS.values())
            )
        )
    return key


def convert_units(value: float, from_unit: str, to_unit: str) -> dict:
    """Convert a number between units used in shipping: distance nm/km/mi/m, mass kg/t/lb,
    containers teu/feu (1 FEU = 2 TEU), money cents/usd, speed knots/kmh/mph, temperature c/f.
    TEU are container slots, not a weight: teu cannot be converted to tons.

    Args:
        value: The number to convert.
        from_unit: Unit of the value, e.g. "nm", "kg", "teu", "cents", "knots", "c".
        to_unit: Unit wanted, of the same kind as from_unit.
    """
    source, target = _unit(from_unit), _unit(to_unit)
    (dim_a, factor_a), (dim_b, factor_b) = UNITS[source], UNITS[target]
    if dim_a != dim_b:
        raise ToolError(
            f"cannot convert {source} ({dim_a}) to {target} ({dim_b}): choose units of the same"
            " kind."
            + (" TEU count container slots, not weight." if "teu" in (source, target) else "")
        )
    if dim_a == "temperature":
        result = (
            value
            if source == target
            else value * 9 / 5 + 32
            if source == "c"
            else (value - 32) * 5 / 9
        )
    else:
        result = value * factor_a / factor_b
    return {"value": value, "from_unit": source, "to_unit": target, "result": round(result, 6)}
