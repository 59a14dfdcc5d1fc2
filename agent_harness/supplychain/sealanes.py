"""Sea lanes: the waypoint graph the demo voyages follow, and the shortest route along it.

A small graph of open-water waypoints (Malacca, Bab-el-Mandeb, Suez, Gibraltar, the Channel,
Panama, the Cape of Good Hope, Tsugaru, ...), each checked against a coastline mask, joins the
ports of :data:`agent_harness.supplychain.reference_data.PORTS`. :func:`sea_route` finds the
shortest route between two ports, so a voyage's ``distance_nm`` is a sailing distance and
every AIS fix can lie on open water.
"""

from __future__ import annotations

import functools
import heapq
import math
from collections import Counter
from dataclasses import dataclass

from agent_harness.supplychain.reference_data import PORTS
from agent_harness.supplychain.schema import OCEAN_REGIONS

__all__ = [
    "EARTH_RADIUS_NM",
    "WAYPOINTS",
    "SEA_LANES",
    "Leg",
    "SeaRoute",
    "haversine_nm",
    "initial_bearing",
    "position",
    "sea_route",
]

EARTH_RADIUS_NM = 3440.065

# --- sea lanes ------------------------------------------------------------------------------
#: Waypoints on open water (lat, lon), each checked against a 1 km land mask.
WAYPOINTS = {
    "ECS_N": (30.55, 122.73), "NGB_OFF": (29.75, 122.75), "ECS_S": (28.4, 123.8),
    "JEJU_E": (33.3, 127.4), "KOREA_STR_S": (34.45, 128.85), "BUSAN_OFF": (34.9, 129.15),
    "KOREA_STR": (35.8, 130.4), "JAPAN_SEA": (39.0, 135.5), "TSUGARU_W": (41.25, 139.7),
    "TSUGARU": (41.45, 140.43), "TSUGARU_MID": (41.62, 140.95), "TSUGARU_E": (41.62, 141.5),
    "HOKKAIDO_SE": (41.3, 144.0), "URAGA": (35.25, 139.75), "TOKYO_OFF": (34.8, 140.1),
    "JAPAN_S": (30.0, 142.0), "MIYAKO": (25.3, 126.5), "PHIL_SEA": (22.5, 126.0),
    "TAIWAN_STR_N": (25.6, 120.6), "TAIWAN_STR_S": (23.5, 119.0), "KHH_OFF": (22.45, 120.1),
    "LUZON_STR": (21.0, 120.85), "YTN_OFF": (22.35, 114.45), "LAMMA": (22.18, 114.08),
    "HK_OFF": (22.05, 114.05), "SCS_N": (18.5, 115.5), "SCS_S": (7.5, 108.0),
    "SING_E": (1.32, 104.45), "SING_STRAIT": (1.2, 103.85), "SING_SW": (1.13, 103.7),
    "SING_W": (1.18, 103.5),
    "CAL_W": (33.6, -121.5), "LA_OFF": (33.6, -118.35), "MEXICO_W": (24.0, -116.0),
    "BAJA_S": (22.0, -110.0), "ACAPULCO_OFF": (14.5, -100.0), "PANAMA_PAC": (6.5, -81.0),
    "PANAMA_GULF": (7.3, -79.4), "BALBOA_OFF": (8.85, -79.5), "CULEBRA": (9.05, -79.66),
    "GATUN_LAKE": (9.15, -79.8), "GATUN": (9.27, -79.92), "COLON_OFF": (9.45, -79.92),
    "MALACCA_S": (1.95, 102.35), "KLANG_OFF": (2.9, 101.05), "MALACCA_N": (5.7, 97.9),
    "WEH": (6.2, 94.9), "DONDRA": (5.5, 80.6), "GALLE_OFF": (6.0, 79.9), "CMB_OFF": (6.9, 79.65),
    "COMORIN_S": (7.4, 77.4), "INDIA_SW": (9.5, 75.6), "INDIA_W": (14.0, 73.2),
    "NSA_OFF": (18.8, 72.65), "EIGHT_DEG": (7.7, 72.8), "RAS_AL_HADD": (22.9, 60.3),
    "OMAN_GULF": (25.4, 57.2), "HORMUZ": (26.58, 56.4), "GULF": (26.4, 55.7),
    "JEA_OFF": (25.2, 54.85), "SOCOTRA_N": (13.3, 53.5), "ADEN_GULF": (12.2, 46.0),
    "BAB_EL_MANDEB": (12.58, 43.3), "RED_SEA_S": (15.0, 41.6), "RED_SEA_C": (20.5, 38.5),
    "JED_OFF": (21.5, 38.9), "RED_SEA_N": (25.5, 35.5), "GUBAL_S": (27.4, 34.15),
    "GUBAL": (27.85, 33.75), "SUEZ_GULF": (28.9, 32.95), "SUEZ_N": (29.55, 32.62),
    "SUEZ": (29.85, 32.56), "BITTER_LAKE": (30.35, 32.38), "ISMAILIA": (30.65, 32.33),
    "PSD_OFF": (31.45, 32.35), "MASCARENE_S": (-26.0, 56.0), "SA_EAST": (-31.3, 31.0),
    "DUR_OFF": (-29.9, 31.2), "PORT_ELIZABETH": (-34.5, 26.5), "AGULHAS": (-35.3, 20.5),
    "CAPE": (-35.0, 18.3), "CRETE_S": (34.4, 24.5), "KASOS": (35.3, 26.58),
    "CYCLADES_S": (35.7, 26.3), "MYRTOAN": (36.55, 24.0), "SARONIC": (37.45, 23.75),
    "PIR_OFF": (37.8, 23.58), "KYTHIRA": (36.0, 23.15), "IONIAN": (35.5, 16.5),
    "MESSINA_S": (37.85, 15.45), "MESSINA": (38.2, 15.605), "MESSINA_FARO": (38.243, 15.633),
    "MESSINA_SCILLA": (38.275, 15.69), "MESSINA_N": (38.45, 15.72),
    "TYRRHENIAN_SE": (38.9, 15.55), "TYRRHENIAN": (40.5, 11.0), "TYRRHENIAN_N": (42.2, 9.85),
    "CORSICA_CH": (42.9, 9.86), "GOA_OFF": (44.3, 8.9), "LIGURIAN": (43.6, 8.0),
    "EGADI": (38.2, 11.8), "SICILY_CH": (37.2, 11.6), "ALGERIA_E": (37.8, 8.0),
    "BALEARIC_N": (41.0, 6.0), "ALGERIA_W": (37.0, 1.0), "NAO": (38.55, 0.6),
    "VLC_OFF": (39.4, -0.15), "PALOS": (37.5, -0.45), "GATA": (36.55, -2.1),
    "ALBORAN": (36.15, -3.5), "GIBRALTAR": (35.97, -5.45), "SPARTEL": (35.9, -6.3),
    "ST_VINCENT": (37.0, -9.6), "ROCA": (38.8, -9.9), "FINISTERRE": (43.2, -9.9),
    "USHANT": (48.6, -5.7), "CHANNEL_W": (49.9, -3.5), "CHANNEL_MID": (50.3, -0.5),
    "CHANNEL_E": (50.6, 0.6), "DOVER": (51.0, 1.45), "NORTH_SEA_S": (51.6, 2.6),
    "ANR_OFF": (51.45, 3.2), "SCHELDT": (51.4, 3.6), "RTM_OFF": (52.0, 3.85),
    "NORTH_SEA_C": (52.6, 3.9), "NORTH_SEA_N": (53.6, 4.5), "GERMAN_BIGHT": (53.9, 7.0),
    "ELBE_1": (54.0, 8.1), "ELBE_MOUTH": (53.9, 8.55), "NORTH_ATL": (46.0, -30.0),
    "AZORES_N": (40.3, -28.0), "NANTUCKET": (40.3, -69.5), "NYC_OFF": (40.45, -73.8),
    "SAV_OFF": (31.95, -80.7), "MONA_N": (19.0, -67.7), "MONA_S": (17.8, -68.3),
    "MADEIRA_E": (33.0, -14.5), "CANARIES_W": (28.5, -19.0), "CAPE_VERDE_E": (15.0, -19.5),
    "CAPE_VERDE_W": (15.0, -26.5), "GUINEA": (3.0, -12.0), "RECIFE_OFF": (-7.5, -33.5),
    "SALVADOR_OFF": (-13.0, -37.5), "ABROLHOS": (-18.5, -37.5), "CABO_FRIO": (-23.5, -41.5),
    "SSZ_OFF": (-24.1, -46.25),
}  # fmt: skip

#: Lanes between waypoints and ports, by (ocean region, kind). Kinds: "sea" = open water,
#: "approach" = a port's fairway or river, "canal" = Suez or Panama. AIS fixes lie on sea lanes.
SEA_LANES = {
    ("PACIFIC", "approach"): (
        "CNSHA-ECS_N CNNGB-NGB_OFF CNYTN-YTN_OFF HKHKG-LAMMA LAMMA-HK_OFF SGSIN-SING_STRAIT "
        "KRPUS-BUSAN_OFF JPTYO-URAGA URAGA-TOKYO_OFF TWKHH-KHH_OFF USLAX-LA_OFF"
    ),
    ("PACIFIC", "sea"): (
        "ECS_N-NGB_OFF ECS_N-ECS_S NGB_OFF-ECS_S ECS_S-TAIWAN_STR_N ECS_S-MIYAKO ECS_N-JEJU_E "
        "JEJU_E-KOREA_STR_S KOREA_STR_S-BUSAN_OFF BUSAN_OFF-KOREA_STR KOREA_STR-JAPAN_SEA "
        "JAPAN_SEA-TSUGARU_W TSUGARU_W-TSUGARU TSUGARU-TSUGARU_MID TSUGARU_MID-TSUGARU_E "
        "TSUGARU_E-HOKKAIDO_SE HOKKAIDO_SE-CAL_W MIYAKO-JAPAN_S JAPAN_S-CAL_W TOKYO_OFF-CAL_W "
        "TOKYO_OFF-JAPAN_S LUZON_STR-PHIL_SEA PHIL_SEA-JAPAN_S KHH_OFF-TAIWAN_STR_S "
        "KHH_OFF-LUZON_STR KHH_OFF-SCS_N TAIWAN_STR_N-TAIWAN_STR_S TAIWAN_STR_S-YTN_OFF "
        "TAIWAN_STR_S-HK_OFF TAIWAN_STR_S-SCS_N HK_OFF-SCS_N YTN_OFF-SCS_N SCS_N-SCS_S "
        "SCS_S-SING_E SING_E-SING_STRAIT SING_STRAIT-SING_SW SING_SW-SING_W CAL_W-LA_OFF "
        "JAPAN_S-MEXICO_W LA_OFF-MEXICO_W CAL_W-MEXICO_W HOKKAIDO_SE-MEXICO_W TOKYO_OFF-MEXICO_W "
        "MEXICO_W-BAJA_S BAJA_S-ACAPULCO_OFF ACAPULCO_OFF-PANAMA_PAC PANAMA_PAC-PANAMA_GULF "
        "PANAMA_GULF-BALBOA_OFF"
    ),
    ("PACIFIC", "canal"): ("BALBOA_OFF-CULEBRA CULEBRA-GATUN_LAKE"),
    ("ATLANTIC", "canal"): ("GATUN_LAKE-GATUN GATUN-COLON_OFF"),
    ("INDIAN", "approach"): (
        "MYPKG-KLANG_OFF LKCMB-CMB_OFF INNSA-NSA_OFF AEJEA-JEA_OFF SAJED-JED_OFF ZADUR-DUR_OFF"
    ),
    ("INDIAN", "sea"): (
        "SING_W-MALACCA_S MALACCA_S-KLANG_OFF KLANG_OFF-MALACCA_N MALACCA_N-WEH WEH-DONDRA "
        "DONDRA-GALLE_OFF GALLE_OFF-CMB_OFF DONDRA-EIGHT_DEG CMB_OFF-EIGHT_DEG CMB_OFF-COMORIN_S "
        "COMORIN_S-INDIA_SW INDIA_SW-INDIA_W INDIA_W-NSA_OFF EIGHT_DEG-SOCOTRA_N "
        "NSA_OFF-SOCOTRA_N NSA_OFF-RAS_AL_HADD EIGHT_DEG-RAS_AL_HADD RAS_AL_HADD-OMAN_GULF "
        "OMAN_GULF-HORMUZ HORMUZ-GULF GULF-JEA_OFF SOCOTRA_N-ADEN_GULF ADEN_GULF-BAB_EL_MANDEB "
        "BAB_EL_MANDEB-RED_SEA_S RED_SEA_S-RED_SEA_C RED_SEA_C-JED_OFF JED_OFF-RED_SEA_N "
        "RED_SEA_C-RED_SEA_N RED_SEA_N-GUBAL_S GUBAL_S-GUBAL GUBAL-SUEZ_GULF SUEZ_GULF-SUEZ_N "
        "SUEZ_N-SUEZ WEH-MASCARENE_S EIGHT_DEG-MASCARENE_S MASCARENE_S-SA_EAST SA_EAST-DUR_OFF "
        "SA_EAST-PORT_ELIZABETH PORT_ELIZABETH-AGULHAS"
    ),
    ("MEDITERRANEAN", "canal"): ("SUEZ-BITTER_LAKE BITTER_LAKE-ISMAILIA ISMAILIA-PSD_OFF"),
    ("MEDITERRANEAN", "approach"): ("EGPSD-PSD_OFF ESVLC-VLC_OFF ITGOA-GOA_OFF GRPIR-PIR_OFF"),
    ("MEDITERRANEAN", "sea"): (
        "PSD_OFF-CRETE_S CRETE_S-IONIAN IONIAN-SICILY_CH SICILY_CH-ALGERIA_E ALGERIA_E-ALGERIA_W "
        "ALGERIA_W-ALBORAN ALBORAN-GIBRALTAR GATA-ALBORAN GATA-PALOS PALOS-NAO NAO-VLC_OFF "
        "NAO-ALGERIA_W BALEARIC_N-ALGERIA_W BALEARIC_N-ALGERIA_E BALEARIC_N-LIGURIAN "
        "LIGURIAN-GOA_OFF GOA_OFF-CORSICA_CH CORSICA_CH-TYRRHENIAN_N TYRRHENIAN_N-TYRRHENIAN "
        "TYRRHENIAN-EGADI EGADI-SICILY_CH PIR_OFF-SARONIC SARONIC-MYRTOAN MYRTOAN-CYCLADES_S "
        "CYCLADES_S-KASOS KASOS-PSD_OFF MYRTOAN-KYTHIRA KYTHIRA-IONIAN IONIAN-MESSINA_S "
        "KYTHIRA-MESSINA_S MESSINA_S-MESSINA MESSINA-MESSINA_FARO MESSINA_FARO-MESSINA_SCILLA "
        "MESSINA_SCILLA-MESSINA_N MESSINA_N-TYRRHENIAN_SE TYRRHENIAN_SE-TYRRHENIAN"
    ),
    ("ATLANTIC", "approach"): (
        "NLRTM-RTM_OFF BEANR-SCHELDT SCHELDT-ANR_OFF DEHAM-ELBE_MOUTH ELBE_MOUTH-ELBE_1 "
        "USNYC-NYC_OFF USSAV-SAV_OFF BRSSZ-SSZ_OFF"
    ),
    ("ATLANTIC", "sea"): (
        "AGULHAS-CAPE GIBRALTAR-SPARTEL SPARTEL-ST_VINCENT ST_VINCENT-ROCA ROCA-FINISTERRE "
        "FINISTERRE-USHANT USHANT-CHANNEL_W CHANNEL_W-CHANNEL_MID CHANNEL_MID-CHANNEL_E "
        "CHANNEL_E-DOVER DOVER-NORTH_SEA_S NORTH_SEA_S-RTM_OFF NORTH_SEA_S-ANR_OFF "
        "RTM_OFF-NORTH_SEA_C NORTH_SEA_S-NORTH_SEA_C NORTH_SEA_C-NORTH_SEA_N "
        "NORTH_SEA_N-GERMAN_BIGHT GERMAN_BIGHT-ELBE_1 USHANT-NORTH_ATL NORTH_ATL-NANTUCKET "
        "NANTUCKET-NYC_OFF SPARTEL-AZORES_N AZORES_N-NANTUCKET AZORES_N-SAV_OFF NORTH_ATL-SAV_OFF "
        "MONA_N-NYC_OFF MONA_N-SAV_OFF MONA_N-MONA_S MONA_S-COLON_OFF SSZ_OFF-CABO_FRIO "
        "CABO_FRIO-ABROLHOS ABROLHOS-SALVADOR_OFF SALVADOR_OFF-RECIFE_OFF RECIFE_OFF-CAPE_VERDE_W "
        "CAPE_VERDE_W-CANARIES_W CANARIES_W-MADEIRA_E MADEIRA_E-ST_VINCENT MADEIRA_E-FINISTERRE "
        "MADEIRA_E-SPARTEL SSZ_OFF-CAPE CANARIES_W-CAPE_VERDE_E CAPE_VERDE_E-GUINEA GUINEA-CAPE"
    ),
}


def haversine_nm(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle distance in nautical miles between two (lat, lon) points in degrees."""
    la1, lo1, la2, lo2 = map(math.radians, (*a, *b))
    h = (
        math.sin((la2 - la1) / 2) ** 2
        + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    )
    return 2 * EARTH_RADIUS_NM * math.asin(min(1.0, math.sqrt(h)))


def initial_bearing(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Initial great-circle course from ``a`` to ``b`` in degrees (0-360, clockwise from north)."""
    la1, lo1, la2, lo2 = map(math.radians, (*a, *b))
    y = math.sin(lo2 - lo1) * math.cos(la2)
    x = math.cos(la1) * math.sin(la2) - math.sin(la1) * math.cos(la2) * math.cos(lo2 - lo1)
    return math.degrees(math.atan2(y, x)) % 360


def _along(a: tuple[float, float], b: tuple[float, float], f: float) -> tuple[float, float]:
    """The point a fraction ``f`` of the way from ``a`` to ``b`` along the great circle."""
    d = haversine_nm(a, b) / EARTH_RADIUS_NM
    if d < 1e-12:
        return a
    la1, lo1, la2, lo2 = map(math.radians, (*a, *b))
    wa, wb = math.sin((1 - f) * d) / math.sin(d), math.sin(f * d) / math.sin(d)
    x = wa * math.cos(la1) * math.cos(lo1) + wb * math.cos(la2) * math.cos(lo2)
    y = wa * math.cos(la1) * math.sin(lo1) + wb * math.cos(la2) * math.sin(lo2)
    z = wa * math.sin(la1) + wb * math.sin(la2)
    return math.degrees(math.atan2(z, math.hypot(x, y))), math.degrees(math.atan2(y, x))


@dataclass(frozen=True)
class Leg:
    """One lane of a route, from waypoint (or port) ``start`` to ``end``."""

    start: str
    end: str
    a: tuple[float, float]
    b: tuple[float, float]
    nm: float
    region: str
    kind: str


@dataclass(frozen=True)
class SeaRoute:
    """The shortest sea-lane route between two ports (never through a third port)."""

    origin: str
    dest: str
    legs: tuple[Leg, ...]

    @property
    def distance_nm(self) -> float:
        """Sailing distance in nautical miles."""
        return sum(leg.nm for leg in self.legs)

    @property
    def waypoints(self) -> tuple[str, ...]:
        """Names of the points passed, origin and destination ports included."""
        return (self.legs[0].start, *(leg.end for leg in self.legs))

    @property
    def region(self) -> str:
        """The ocean region where most of the distance lies."""
        nm = Counter()
        for leg in self.legs:
            nm[leg.region] += leg.nm
        return max(OCEAN_REGIONS, key=lambda r: nm[r])

    @property
    def anchorage_nm(self) -> float:
        """Distance to the end of the last open-water leg: where ships wait for a berth."""
        s = end = 0.0
        for leg in self.legs:
            s += leg.nm
            if leg.kind == "sea":
                end = s
        return end

    def point_at(self, s: float) -> tuple[float, float, float, Leg]:
        """(lat, lon, course in degrees, leg) at ``s`` nautical miles from the origin."""
        s = min(max(s, 0.0), self.distance_nm)
        for leg in self.legs:
            if s <= leg.nm or leg is self.legs[-1]:
                f = s / leg.nm if leg.nm else 1.0
                lat, lon = _along(leg.a, leg.b, min(f, 1.0))
                course = (
                    initial_bearing((lat, lon), leg.b) if f < 1 else initial_bearing(leg.a, leg.b)
                )
                return lat, lon, course, leg
            s -= leg.nm
        raise AssertionError("unreachable")

    def locate(self, lat: float, lon: float) -> float:
        """Distance along the route (nm from the origin) of the route point nearest (lat, lon)."""
        best = (math.inf, 0.0)
        start = 0.0
        for leg in self.legs:
            n = max(2, math.ceil(leg.nm / 20))
            for i in range(n + 1):
                d = haversine_nm((lat, lon), _along(leg.a, leg.b, i / n))
                best = min(best, (d, start + leg.nm * i / n))
            start += leg.nm
        lo, hi = best[1] - 25.0, best[1] + 25.0
        for _ in range(40):  # ternary search around the coarse best
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            d1 = haversine_nm((lat, lon), self.point_at(m1)[:2])
            d2 = haversine_nm((lat, lon), self.point_at(m2)[:2])
            lo, hi = (lo, m2) if d1 <= d2 else (m1, hi)
        return min(max((lo + hi) / 2, 0.0), self.distance_nm)

    def nearest_sea_nm(self, s: float, margin: float = 1.0) -> float:
        """``s`` moved, if needed, onto the nearest open-water leg (not a fairway or canal)."""
        best, start = None, 0.0
        for leg in self.legs:
            if leg.kind == "sea":
                lo, hi = start + margin, start + leg.nm - margin
                clamped = min(max(s, lo), hi)
                if best is None or abs(clamped - s) < abs(best - s):
                    best = clamped
            start += leg.nm
        return s if best is None else best


def position(name: str) -> tuple[float, float]:
    """The (lat, lon) of a waypoint or a port (UN/LOCODE).

    Raises:
        KeyError: A name that is neither a waypoint nor a port.
    """
    if name in WAYPOINTS:
        return WAYPOINTS[name]
    for code, _, _, _, lat, lon, _, _ in PORTS:
        if code == name:
            return (lat, lon)
    raise KeyError(f"unknown waypoint or port {name!r}")


@functools.cache
def _lane_graph() -> dict[str, list[Leg]]:
    graph: dict[str, list[Leg]] = {}
    for (region, kind), lanes in SEA_LANES.items():
        for lane in lanes.split():
            a, b = lane.split("-")
            pa, pb = position(a), position(b)
            nm = haversine_nm(pa, pb)
            graph.setdefault(a, []).append(Leg(a, b, pa, pb, nm, region, kind))
            graph.setdefault(b, []).append(Leg(b, a, pb, pa, nm, region, kind))
    return graph


@functools.cache
def sea_route(origin: str, dest: str) -> SeaRoute:
    """The shortest route along the sea lanes between two ports (UN/LOCODEs).

    Raises:
        KeyError: A code that is not one of the data's ports.
    """
    ports = {p[0] for p in PORTS}
    for code in (origin, dest):
        if code not in ports:
            raise KeyError(f"unknown port {code!r}; ports: {', '.join(sorted(ports))}")
    graph = _lane_graph()
    best = {origin: 0.0}
    previous: dict[str, Leg] = {}
    queue = [(0.0, origin)]
    while queue:
        d, node = heapq.heappop(queue)
        if node == dest:
            break
        if d > best[node]:
            continue
        for leg in graph.get(node, ()):
            if leg.end in ports and leg.end != dest:
                continue  # a route never calls at a third port
            if d + leg.nm < best.get(leg.end, math.inf):
                best[leg.end] = d + leg.nm
                previous[leg.end] = leg
                heapq.heappush(queue, (d + leg.nm, leg.end))
    legs = []
    node = dest
    while node != origin:
        legs.append(previous[node])
        node = previous[node].start
    return SeaRoute(origin, dest, tuple(reversed(legs)))
