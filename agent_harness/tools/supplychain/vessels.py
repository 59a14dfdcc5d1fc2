"""Vessel tools: find a ship, where it is, what is near a port, when it arrives, fleets."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated

from pydantic import Field

from agent_harness.supplychain.schema import OCEAN_REGIONS
from agent_harness.tools.supplychain import geo
from agent_harness.tools.supplychain.lookups import (
    LATEST_POSITIONS_SQL,
    PORTS_SQL,
    TODAY,
    VESSELS_SQL,
    VOYAGES_SQL,
    close_matches,
    iso_date,
    query,
    required_text,
    resolve_carrier,
    resolve_port,
    resolve_region,
    resolve_vessel,
    to_date,
    to_datetime,
    voyage_summary,
)
from agent_harness.tools.tool import ToolError

#: The category of every tool in this module (``Tool.from_function`` reads it).
TOOL_CATEGORY = "vessels"

__all__ = [
    "find_vessel",
    "vessel_position",
    "vessels_near_port",
    "eta_estimate",
    "carrier_fleet",
    "fleet_capacity_by_region",
]


def find_vessel(name: str) -> dict:
    """Find container ships by part of their name (case-insensitive) or by exact IMO number.

    Returns each match with IMO number, carrier and SCAC code, capacity_teu (container slots
    in twenty-foot equivalent units, NOT tons), deadweight tons, year built, flag and service
    speed in knots.

    Args:
        name: Part of a ship name (e.g. "maersk", "EVER ACE") or a 7-digit IMO number.
    """
    text = required_text(name, "name")
    digits = re.fullmatch(r"(?:IMO\s*)?(\d{7})", text.upper())
    rows = query(
        VESSELS_SQL
        + " WHERE UPPER(v.name) LIKE UPPER(:pat) OR v.imo_number = :imo ORDER BY v.name",
        pat=f"%{text}%",
        imo=int(digits.group(1)) if digits else -1,
    )
    if not rows:
        names = [r["name"] for r in query("SELECT name FROM supplychain.vessels")]
        raise ToolError(f"no vessel matches '{text}'. Close matches: {close_matches(text, names)}.")
    return {"query": text, "count": len(rows), "vessels": rows}


def _last_known(vessel: dict) -> dict:
    """Where a ship with no AIS track is: in port between its last and next voyage."""
    rows = query(VOYAGES_SQL + " WHERE y.imo_number = :imo", imo=vessel["imo_number"])
    done = [r for r in rows if r["status"] == "COMPLETED"]
    upcoming = [r for r in rows if r["status"] == "SCHEDULED"]
    result = {"vessel": vessel["name"], "imo_number": vessel["imo_number"], "position": None}
    if done:
        last = max(done, key=lambda r: to_date(r["actual_arrival_date"]))
        result["in_port"] = {"port_code": last["dest_port"], "name": last["dest_name"]}
        result["arrived"] = iso_date(last["actual_arrival_date"])
        result["last_voyage"] = last["voyage_code"]
    if upcoming:
        following = min(upcoming, key=lambda r: to_date(r["departure_date"]))
        result["next_voyage"] = voyage_summary(following)
    result["note"] = "No AIS track: the ship is not at sea on an ACTIVE or DELAYED voyage."
    return result


def vessel_position(vessel: str) -> dict:
    """Latest AIS position of a ship: time (UTC), latitude/longitude, speed in knots, heading,
    navigation status, the voyage it is on, and the nearest port with distance in nm.

    Ships in port (no ACTIVE or DELAYED voyage) have no track; then the answer says which port
    they are in and their next voyage.

    Args:
        vessel: Ship name (or part of it) or 7-digit IMO number.
    """
    ship = resolve_vessel(vessel)
    rows = query(LATEST_POSITIONS_SQL + " AND p.imo_number = :imo", imo=ship["imo_number"])
    if not rows:
        return _last_known(ship)
    fix = rows[0]
    port, nm = geo.nearest_port(fix["latitude"], fix["longitude"], query(PORTS_SQL))
    age = dt.datetime.combine(TODAY, dt.time()) - to_datetime(fix["recorded_at"])
    return {
        "vessel": ship["name"],
        "imo_number": ship["imo_number"],
        "carrier": ship["carrier"],
        "recorded_at": to_datetime(fix["recorded_at"]).isoformat(),
        "hours_before_today": round(age.total_seconds() / 3600, 1),
        "latitude": fix["latitude"],
        "longitude": fix["longitude"],
        "speed_knots": fix["speed_knots"],
        "heading_deg": fix["heading_deg"],
        "heading": geo.compass_point(fix["heading_deg"]),
        "nav_status": fix["nav_status"],
        "voyage": {
            "voyage_code": fix["voyage_code"],
            "from": fix["origin_port"],
            "to": fix["dest_port"],
            "status": fix["status"],
            "eta_date": iso_date(fix["eta_date"]),
        },
        "nearest_port": {"port_code": port["port_code"], "name": port["name"]},
        "nearest_port_distance_nm": round(nm, 1),
    }


def vessels_near_port(
    port: str, radius_nm: Annotated[float, Field(gt=0, le=12500)] = 500.0
) -> dict:
    """Ships whose latest AIS position is within a radius (great-circle nautical miles) of a
    port, nearest first, with distance, speed, navigation status and voyage.

    Args:
        port: Port UN/LOCODE (e.g. "USLAX") or name (e.g. "Los Angeles").
        radius_nm: Search radius in nautical miles (1 nm = 1.852 km); default 500.
    """
    center = resolve_port(port)
    found = []
    for fix in query(LATEST_POSITIONS_SQL):
        nm = geo.great_circle_nm(
            center["latitude"], center["longitude"], fix["latitude"], fix["longitude"]
        )
        if nm <= radius_nm:
            found.append(
                {
                    "vessel": fix["vessel"],
                    "imo_number": fix["imo_number"],
                    "distance_nm": round(nm, 1),
                    "distance_km": round(nm * geo.KM_PER_NM, 1),
                    "speed_knots": fix["speed_knots"],
                    "nav_status": fix["nav_status"],
                    "recorded_at": to_datetime(fix["recorded_at"]).isoformat(),
                    "voyage_code": fix["voyage_code"],
                    "bound_for": fix["dest_port"],
                }
            )
    found.sort(key=lambda f: f["distance_nm"])
    return {
        "port": {"port_code": center["port_code"], "name": center["name"]},
        "radius_nm": radius_nm,
        "count": len(found),
        "vessels": found,
    }


def carrier_fleet(carrier: str) -> dict:
    """The ships of one shipping line, largest first, with the fleet's total capacity in TEU
    (container slots, not tons) and total deadweight in tons.

    Args:
        carrier: Carrier name or part of it (e.g. "Maersk") or 4-letter SCAC code (e.g. MAEU).
    """
    line = resolve_carrier(carrier)
    ships = query(
        VESSELS_SQL + " WHERE v.carrier_id = :cid ORDER BY v.capacity_teu DESC",
        cid=line["carrier_id"],
    )
    return {
        "carrier": line["name"],
        "scac_code": line["scac_code"],
        "headquarters": f"{line['headquarters']}, {line['country']}",
        "vessels": len(ships),
        "total_capacity_teu": sum(s["capacity_teu"] for s in ships),
        "total_deadweight_tons": sum(s["deadweight_tons"] or 0 for s in ships),
        "fleet": [
            {
                k: s[k]
                for k in ("name", "imo_number", "capacity_teu", "deadweight_tons", "year_built")
            }
            for s in ships
        ],
    }


def eta_estimate(vessel: str) -> dict:
    """Estimated arrival of a ship at sea, from its latest AIS position and speed: the sailing
    distance left along the sea route to its destination (nm), the estimated arrival time (UTC)
    and how it compares with the scheduled eta_date (positive = later than scheduled).

    Args:
        vessel: Ship name (or part of it) or 7-digit IMO number.
    """
    ship = resolve_vessel(vessel)
    rows = query(LATEST_POSITIONS_SQL + " AND p.imo_number = :imo", imo=ship["imo_number"])
    if not rows:
        raise ToolError(
            f"{ship['name']} has no AIS position: it is not at sea on an ACTIVE or DELAYED"
            " voyage. Use vessel_position to see where it is and its next voyage."
        )
    fix = rows[0]
    left = geo.route_progress(
        fix["origin_port"], fix["dest_port"], fix["latitude"], fix["longitude"]
    )
    seen = to_datetime(fix["recorded_at"])
    scheduled = to_date(fix["eta_date"])
    result = {
        "vessel": ship["name"],
        "voyage_code": fix["voyage_code"],
        "voyage_status": fix["status"],
        "destination": fix["dest_port"],
        "position_at": seen.isoformat(),
        "nav_status": fix["nav_status"],
        "speed_knots": fix["speed_knots"],
        "remaining_nm": round(left["remaining_nm"]),
        "next_waypoint": left["next_waypoint"],
        "scheduled_eta_date": scheduled.isoformat(),
    }
    if fix["nav_status"] != "UNDER_WAY" or fix["speed_knots"] < 3:
        result["estimated_arrival"] = None
        result["note"] = (
            f"{fix['nav_status'].lower().replace('_', ' ')} at {fix['speed_knots']} kn,"
            f" {result['remaining_nm']} nm from the berth: arrival depends on when a berth or"
            " pilot is free, not on speed"
        )
        return result
    arrival = seen + dt.timedelta(hours=left["remaining_nm"] / fix["speed_knots"])
    arrival = arrival.replace(microsecond=0, second=0)
    result["estimated_arrival"] = arrival.isoformat()
    result["days_vs_schedule"] = (arrival.date() - scheduled).days
    result["hours_to_go"] = round(left["remaining_nm"] / fix["speed_knots"], 1)
    return result


def fleet_capacity_by_region(ocean_region: str | None = None) -> dict:
    """Container capacity deployed at sea per ocean region: the TEU (twenty-foot container
    slots, not tons) and number of ships on ACTIVE or DELAYED voyages, grouped by the voyage's
    ocean region, largest first.

    Args:
        ocean_region: Only this region: PACIFIC, ATLANTIC, INDIAN or MEDITERRANEAN; all when
            empty.
    """
    region = resolve_region(ocean_region)
    sql = (
        "SELECT y.ocean_region, COUNT(*) AS voyages, SUM(v.capacity_teu) AS teu"
        " FROM supplychain.voyages y JOIN supplychain.vessels v ON v.imo_number = y.imo_number"
        " WHERE y.status IN ('ACTIVE', 'DELAYED')"
    )
    if region:
        rows = query(sql + " AND y.ocean_region = :region GROUP BY y.ocean_region", region=region)
    else:
        rows = query(sql + " GROUP BY y.ocean_region")
    found = {r["ocean_region"]: r for r in rows}
    regions = [
        {
            "ocean_region": r,
            "ships": int(found[r]["voyages"]) if r in found else 0,
            "capacity_teu": int(found[r]["teu"]) if r in found else 0,
        }
        for r in ([region] if region else OCEAN_REGIONS)
    ]
    regions.sort(key=lambda r: -r["capacity_teu"])
    return {
        "as_of": TODAY.isoformat(),
        "regions": regions,
        "total_capacity_teu": sum(r["capacity_teu"] for r in regions),
    }
