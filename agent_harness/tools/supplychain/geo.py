"""Geography for the domain tools: great-circle distance, nearest port, distance left on a route.

Great-circle distance is the shortest path over the globe and may cross land; ships sail the
longer sea-lane route of :func:`agent_harness.supplychain.generate.sea_route` (the same lanes the
demo data was generated on, so a position always lies on its voyage's route).
"""

from __future__ import annotations

from agent_harness.supplychain.generate import haversine_nm, initial_bearing, sea_route

__all__ = [
    "KM_PER_NM",
    "great_circle_nm",
    "bearing_deg",
    "compass_point",
    "nearest_port",
    "route_progress",
    "sailing_nm",
]

KM_PER_NM = 1.852

_POINTS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


def great_circle_nm(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in nautical miles between two points given in decimal degrees."""
    return haversine_nm((lat1, lon1), (lat2, lon2))


def bearing_deg(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Initial course from the first point to the second, degrees clockwise from north."""
    return initial_bearing((lat1, lon1), (lat2, lon2))


def compass_point(degrees: float) -> str:
    """The 8-point compass name of a course: 0 -> "N", 100 -> "E", 225 -> "SW"."""
    return _POINTS[round((degrees % 360) / 45) % 8]


def nearest_port(lat: float, lon: float, ports: list[dict]) -> tuple[dict, float]:
    """The port (a row with ``latitude``/``longitude``) nearest a point, and its distance in nm.

    Raises:
        ValueError: ``ports`` is empty.
    """
    if not ports:
        raise ValueError("no ports to compare with")
    best = min(ports, key=lambda p: great_circle_nm(lat, lon, p["latitude"], p["longitude"]))
    return best, great_circle_nm(lat, lon, best["latitude"], best["longitude"])


def sailing_nm(origin: str, dest: str) -> float:
    """Sailing distance in nm between two ports (UN/LOCODEs) along the data's sea lanes."""
    return sea_route(origin, dest).distance_nm


def route_progress(origin: str, dest: str, lat: float, lon: float) -> dict:
    """Where a position lies on the sea route between two ports.

    Args:
        origin: UN/LOCODE of the port of departure.
        dest: UN/LOCODE of the port of arrival.
        lat: Latitude of the position.
        lon: Longitude of the position.

    Returns:
        ``route_nm`` (whole route), ``sailed_nm``, ``remaining_nm``, ``off_route_nm`` (how far
        the position is from the route line) and ``next_waypoint``.
    """
    route = sea_route(origin, dest)
    sailed = route.locate(lat, lon)
    on_route = route.point_at(sailed)
    passed = 0.0
    next_waypoint = route.legs[-1].end
    for leg in route.legs:
        passed += leg.nm
        if passed > sailed + 0.5:
            next_waypoint = leg.end
            break
    return {
        "route_nm": route.distance_nm,
        "sailed_nm": sailed,
        "remaining_nm": route.distance_nm - sailed,
        "off_route_nm": great_circle_nm(lat, lon, on_route[0], on_route[1]),
        "next_waypoint": next_waypoint,
    }
