"""Port tools: a port's details, the distance between two ports, and congestion."""

from __future__ import annotations

from agent_harness.tools.supplychain import geo
from agent_harness.tools.supplychain.lookups import (
    LATEST_POSITIONS_SQL,
    PORTS_SQL,
    TODAY,
    VOYAGES_SQL,
    query,
    resolve_port,
    to_date,
)

#: The category of every tool in this module (``Tool.from_function`` reads it).
TOOL_CATEGORY = "ports"

__all__ = [
    "port_info",
    "port_distance",
    "port_congestion",
]


def port_info(port: str) -> dict:
    """A port's details (UN/LOCODE, country, ocean region, position, berths, max draft in m)
    and how many voyages depart from and arrive at it, by voyage status.

    Args:
        port: Port UN/LOCODE (e.g. "NLRTM"), name (e.g. "Rotterdam") or country.
    """
    info = resolve_port(port)
    counts = query(
        "SELECT origin_port, dest_port, status, COUNT(*) AS n FROM supplychain.voyages"
        " WHERE origin_port = :code OR dest_port = :code"
        " GROUP BY origin_port, dest_port, status",
        code=info["port_code"],
    )
    departing: dict[str, int] = {}
    arriving: dict[str, int] = {}
    for row in counts:
        if row["origin_port"] == info["port_code"]:
            departing[row["status"]] = departing.get(row["status"], 0) + row["n"]
        if row["dest_port"] == info["port_code"]:
            arriving[row["status"]] = arriving.get(row["status"], 0) + row["n"]
    return {
        **info,
        "voyages_departing": {"total": sum(departing.values()), "by_status": departing},
        "voyages_arriving": {"total": sum(arriving.values()), "by_status": arriving},
    }


def port_distance(from_port: str, to_port: str) -> dict:
    """Great-circle distance between two ports in nautical miles and kilometres: the shortest
    path over the globe, NOT the sailing distance (ships follow longer sea lanes around land;
    the sailing distance along the data's sea lanes is given too, as sea_route_nm).

    Args:
        from_port: First port, UN/LOCODE or name.
        to_port: Second port, UN/LOCODE or name.
    """
    a, b = resolve_port(from_port), resolve_port(to_port)
    nm = geo.great_circle_nm(a["latitude"], a["longitude"], b["latitude"], b["longitude"])
    result = {
        "from": {"port_code": a["port_code"], "name": a["name"]},
        "to": {"port_code": b["port_code"], "name": b["name"]},
        "great_circle_nm": round(nm, 1),
        "great_circle_km": round(nm * geo.KM_PER_NM, 1),
        "initial_course_deg": round(
            geo.bearing_deg(a["latitude"], a["longitude"], b["latitude"], b["longitude"])
        ),
    }
    if a["port_code"] != b["port_code"]:
        result["sea_route_nm"] = round(geo.sailing_nm(a["port_code"], b["port_code"]))
    result["note"] = "great-circle distance, not sailing distance"
    return result


def port_congestion(port: str | None = None) -> dict:
    """Pressure on ports as of today (2025-06-01): per destination port, the ships due within
    the next 7 days (ACTIVE or SCHEDULED, eta today to today+7), DELAYED voyages heading there,
    ships waiting at anchor off it, and containers held by customs there. Busiest first.

    Args:
        port: Only this port (UN/LOCODE or name); all ports with any activity when empty.
    """
    target = resolve_port(port) if port and port.strip() else None
    voyages = query(VOYAGES_SQL + " WHERE y.status IN ('ACTIVE', 'DELAYED', 'SCHEDULED')")
    holds = query(
        "SELECT y.dest_port, COUNT(*) AS n FROM supplychain.containers c"
        " JOIN supplychain.voyages y ON y.voyage_id = c.voyage_id"
        " WHERE c.status = 'CUSTOMS_HOLD' GROUP BY y.dest_port"
    )
    anchored = [f for f in query(LATEST_POSITIONS_SQL) if f["nav_status"] == "AT_ANCHOR"]
    ports = {p["port_code"]: p for p in query(PORTS_SQL)}
    report = {
        code: {
            "port_code": code,
            "name": p["name"],
            "due_within_7_days": [],
            "delayed_inbound": [],
            "waiting_at_anchor": [],
            "containers_on_hold": 0,
        }
        for code, p in ports.items()
    }
    for v in voyages:
        eta = to_date(v["eta_date"])
        entry = report[v["dest_port"]]
        if v["status"] == "DELAYED":
            entry["delayed_inbound"].append(f"{v['voyage_code']} ({v['vessel']})")
        elif 0 <= (eta - TODAY).days <= 7:
            entry["due_within_7_days"].append(f"{v['voyage_code']} ({v['vessel']}, eta {eta})")
    for fix in anchored:
        report[fix["dest_port"]]["waiting_at_anchor"].append(fix["vessel"])
    for row in holds:
        report[row["dest_port"]]["containers_on_hold"] = row["n"]
    for entry in report.values():
        entry["score"] = (
            len(entry["due_within_7_days"])
            + 2 * len(entry["delayed_inbound"])
            + 2 * len(entry["waiting_at_anchor"])
            + entry["containers_on_hold"]
        )
    if target:
        return {"as_of": TODAY.isoformat(), **report[target["port_code"]]}
    busy = sorted(
        (e for e in report.values() if e["score"]), key=lambda e: (-e["score"], e["port_code"])
    )
    return {
        "as_of": TODAY.isoformat(),
        "ports": busy,
        "quiet_ports": sorted(code for code, e in report.items() if not e["score"]),
    }
