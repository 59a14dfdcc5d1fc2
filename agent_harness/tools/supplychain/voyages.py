"""Voyage tools: one voyage's status, the delayed voyages, the voyages between two ports."""

from __future__ import annotations

from agent_harness.tools.supplychain.lookups import (
    TODAY,
    VOYAGES_SQL,
    query,
    resolve_port,
    resolve_region,
    resolve_voyage,
    voyage_summary,
)

#: The category of every tool in this module (``Tool.from_function`` reads it).
TOOL_CATEGORY = "voyages"

__all__ = [
    "voyage_status",
    "delayed_voyages",
    "voyages_between",
]


def voyage_status(voyage: str) -> dict:
    """One voyage by voyage_code (e.g. "MAE-2514W") or numeric voyage_id: vessel, carrier,
    origin and destination ports, departure/eta/arrival dates, status, sailing distance in nm,
    and days late (DELAYED), arrival delay (COMPLETED) or days to eta, counted from today
    (2025-06-01, the data's reference date).

    Args:
        voyage: The voyage_code or the numeric voyage_id.
    """
    return {"as_of": TODAY.isoformat(), **voyage_summary(resolve_voyage(voyage))}


def delayed_voyages(ocean_region: str | None = None) -> dict:
    """Voyages with status DELAYED (past their eta_date and not arrived), most overdue first,
    with days overdue counted from today (2025-06-01), vessel and ports.

    Args:
        ocean_region: Only this region: PACIFIC, ATLANTIC, INDIAN or MEDITERRANEAN; all when
            empty.
    """
    region = resolve_region(ocean_region)
    sql = VOYAGES_SQL + " WHERE y.status = 'DELAYED'"
    rows = query(sql + " AND y.ocean_region = :region", region=region) if region else query(sql)
    voyages = sorted((voyage_summary(r) for r in rows), key=lambda v: -v["days_late"])
    for v in voyages:
        v["days_overdue"] = v.pop("days_late")
    return {
        "as_of": TODAY.isoformat(),
        "ocean_region": region or "ALL",
        "count": len(voyages),
        "voyages": voyages,
    }


def voyages_between(origin: str, destination: str) -> dict:
    """All voyages (any status) sailing from one port to another, oldest departure first, with
    dates, status, vessel and sailing distance in nm.

    Args:
        origin: Port of departure, UN/LOCODE or name.
        destination: Port of arrival, UN/LOCODE or name.
    """
    a, b = resolve_port(origin), resolve_port(destination)
    rows = query(
        VOYAGES_SQL + " WHERE y.origin_port = :o AND y.dest_port = :d ORDER BY y.departure_date",
        o=a["port_code"],
        d=b["port_code"],
    )
    result = {
        "origin": {"port_code": a["port_code"], "name": a["name"]},
        "destination": {"port_code": b["port_code"], "name": b["name"]},
        "count": len(rows),
        "voyages": [voyage_summary(r) for r in rows],
    }
    if not rows:
        reverse = query(
            "SELECT COUNT(*) AS n FROM supplychain.voyages"
            " WHERE origin_port = :d AND dest_port = :o",
            o=a["port_code"],
            d=b["port_code"],
        )
        result["note"] = (
            f"no voyage from {a['port_code']} to {b['port_code']};"
            f" {reverse[0]['n']} in the opposite direction"
        )
    return result
