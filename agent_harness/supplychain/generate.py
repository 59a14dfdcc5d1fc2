"""Deterministic demo data for the SUPPLYCHAIN schema.

Everything comes from one ``random.Random(SEED)`` and the fixed catalogues of
:mod:`~agent_harness.supplychain.reference_data`, never from the clock: ``generate()`` returns the
same rows on every call and every machine, and ``data_digest()`` proves it. "Today" in the data
is :data:`REFERENCE_DATE`.

Ships get IMO numbers with valid check digits, containers ISO 6346 numbers with valid check
digits. Voyages follow the sea lanes of :mod:`~agent_harness.supplychain.sealanes`, so a
voyage's ``distance_nm`` is a sailing distance and every AIS fix lies on open water.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import random
from dataclasses import dataclass

from agent_harness.supplychain.reference_data import (
    CARRIERS,
    COMPANIES,
    MAX_GROSS_KG,
    PORT_GROUPS,
    PORTS,
    PRODUCTS,
    TARE_KG,
    VESSELS,
    Product,
    imo_check_digit,
    iso6346_check_digit,
    iso6346_remainder,
)
from agent_harness.supplychain.sealanes import (
    SEA_LANES,
    WAYPOINTS,
    Leg,
    SeaRoute,
    haversine_nm,
    initial_bearing,
    position,
    sea_route,
)

__all__ = [
    "SEED",
    "REFERENCE_DATE",
    "CARRIERS",
    "PORTS",
    "VESSELS",
    "PRODUCTS",
    "WAYPOINTS",
    "SEA_LANES",
    "Leg",
    "SeaRoute",
    "generate",
    "data_digest",
    "sea_route",
    "haversine_nm",
    "initial_bearing",
    "imo_check_digit",
    "iso6346_check_digit",
]  # the catalogue and sea-lane names stay importable from here, as before the split

SEED = 20250601
REFERENCE_DATE = dt.date(2025, 6, 1)

#: How often each container type is booked.
TYPE_WEIGHTS = {"DRY": 0.58, "REEFER": 0.2, "HAZMAT": 0.11, "OPEN_TOP": 0.11}

_REF_DT = dt.datetime.combine(REFERENCE_DATE, dt.time())
_STATUS = {"C": "COMPLETED", "A": "ACTIVE", "D": "DELAYED", "S": "SCHEDULED"}
_DAY = dt.timedelta(days=1)


def _hours(h: float) -> dt.timedelta:
    return dt.timedelta(seconds=round(h * 3600))


def _span_h(later: dt.datetime, earlier: dt.datetime) -> float:
    return (later - earlier).total_seconds() / 3600


@dataclass
class _Voyage:
    vessel: int  # index into VESSELS
    route: SeaRoute
    days: int  # scheduled duration
    status: str = "SCHEDULED"
    departure: dt.date = REFERENCE_DATE
    eta: dt.date = REFERENCE_DATE
    arrival: dt.date | None = None
    anchored: bool = False  # DELAYED: waiting at anchor off the destination
    sailed_yesterday: bool = False  # ACTIVE: its first fix is at the berth
    rest_hours: float = 0.0  # DELAYED: hours until it reaches its berth, seen from today
    voyage_id: int = 0


def _plan(rng: random.Random, vessel: int, origin: str, dest: str) -> _Voyage:
    route = sea_route(origin, dest)
    knots = VESSELS[vessel][5] * rng.uniform(0.72, 0.82)  # liner ships slow-steam
    canal_days = 1 if any(leg.kind == "canal" for leg in route.legs) else 0
    days = math.ceil(route.distance_nm / knots / 24 + canal_days + 0.5)
    return _Voyage(vessel, route, max(days, 2))


def _schedule(rng: random.Random, vessel: int) -> list[_Voyage]:
    """The vessel's two voyages, dated around the reference date as its pattern says."""
    calls, pattern = VESSELS[vessel][6].split(), VESSELS[vessel][7]
    first, second = _plan(rng, vessel, calls[0], calls[1]), _plan(rng, vessel, calls[1], calls[2])
    first.status, second.status = _STATUS[pattern[0]], _STATUS[pattern[1]]
    ref = REFERENCE_DATE
    current = first if pattern[0] in "AD" else second if pattern[1] in "AD" else None
    if current is not None:
        current.anchored, current.sailed_yesterday = "a" in pattern[2:], "m" in pattern[2:]
        if current.status == "ACTIVE":
            elapsed = round(current.days * rng.uniform(0.15, 0.85))
            elapsed = 1 if current.sailed_yesterday else min(max(elapsed, 1), current.days - 1)
            current.departure = ref - elapsed * _DAY
        else:  # DELAYED: the schedule says it should have arrived already
            late = rng.randint(2, 6) if current.anchored else rng.randint(1, 6)
            current.departure = ref - (late + current.days) * _DAY
            current.rest_hours = rng.uniform(24, 60) if current.anchored else rng.uniform(20, 80)
        current.eta = current.departure + current.days * _DAY
    if current is None:  # in port today, between a COMPLETED and a SCHEDULED voyage
        first.arrival = ref - rng.randint(1, 3) * _DAY
        second.departure = ref + rng.randint(1, 4) * _DAY
    elif current is second:
        first.arrival = second.departure - rng.randint(1, 3) * _DAY
    else:
        expected = current.eta
        if current.status == "DELAYED":
            expected = ref + math.ceil(current.rest_hours / 24) * _DAY
        second.departure = max(expected, ref) + rng.randint(1, 3) * _DAY
    if first.status == "COMPLETED":
        first.eta = first.arrival - rng.choice((-1, 0, 0, 0, 1, 1, 2)) * _DAY
        first.departure = first.eta - first.days * _DAY
    if second.status == "SCHEDULED":
        second.eta = second.departure + second.days * _DAY
    return [first, second]


def _direction(route: SeaRoute) -> str:
    dlon = sum((leg.b[1] - leg.a[1] + 540) % 360 - 180 for leg in route.legs)
    dlat = route.legs[-1].b[0] - route.legs[0].a[0]
    if abs(dlon) >= abs(dlat):
        return "E" if dlon > 0 else "W"
    return "N" if dlat > 0 else "S"


def _voyages(rng: random.Random, imos: list[int]) -> tuple[list[_Voyage], list[tuple]]:
    voyages = [v for i in range(len(VESSELS)) for v in _schedule(rng, i)]
    voyages.sort(key=lambda v: (v.departure, VESSELS[v.vessel][0]))
    prefix = {c[1]: c[5] for c in CARRIERS}
    codes: set[str] = set()
    rows = []
    for number, v in enumerate(voyages, start=1):
        v.voyage_id = number
        year, week, _ = v.departure.isocalendar()
        code = ""
        while not code or code in codes:  # two sailings of a line in one week: next number
            code = f"{prefix[VESSELS[v.vessel][1]]}-{year % 100:02d}{week:02d}{_direction(v.route)}"
            week += 1
        codes.add(code)
        r = v.route
        keys = (number, code, imos[v.vessel], r.origin, r.dest)
        rows.append(
            (*keys, v.departure, v.eta, v.arrival, v.status, r.region, round(r.distance_nm))
        )
    return voyages, rows


def _fix_times(rng: random.Random, n: int, earliest: dt.datetime) -> list[dt.datetime]:
    """``n`` report times, newest a few hours before today, oldest not before ``earliest``."""
    newest = _REF_DT - _hours(rng.uniform(0.3, 6))
    gap = min(rng.uniform(6, 20), max(_span_h(newest, earliest), 1) / max(n - 1, 1))
    return [newest - _hours(gap * (n - 1 - i) * rng.uniform(0.85, 1.0)) for i in range(n)]


def _track(rng: random.Random, v: _Voyage, n: int) -> list[tuple]:
    """``n`` AIS fixes (time, lat, lon, knots, heading, nav status) for an ACTIVE/DELAYED voyage."""
    route, dist = v.route, v.route.distance_nm
    dep = dt.datetime.combine(v.departure, dt.time(rng.randint(2, 20)))
    knots = dist / _span_h(dt.datetime.combine(v.eta, dt.time(12)), dep)  # keeps the schedule
    fixes: list[tuple[dt.datetime, float, str, float]] = []  # time, nm from origin, status, knots
    if v.anchored:
        anchored_at = dt.datetime.combine(v.eta, dt.time(12)) - _hours(rng.uniform(0, 18))
        newest = _REF_DT - _hours(rng.uniform(0.3, 6))
        waiting = [newest]
        if n >= 4:
            waiting.append(anchored_at + (newest - anchored_at) * rng.uniform(0.2, 0.6))
        for t in waiting:
            fixes.append((t, route.anchorage_nm, "AT_ANCHOR", 0.0))
        t = anchored_at
        for _ in range(n - len(waiting)):
            t -= _hours(rng.uniform(6, 14))
            fixes.append(
                (t, route.anchorage_nm - knots * _span_h(anchored_at, t), "UNDER_WAY", knots)
            )
    elif v.status == "DELAYED":  # slowed down (weather, congestion): still at sea
        slow = knots * rng.uniform(0.65, 0.85)
        arrives = _REF_DT + _hours(v.rest_hours)
        earliest = max(dep, arrives - _hours(0.9 * dist / slow))
        for t in _fix_times(rng, n, earliest):
            fixes.append((t, dist - slow * _span_h(arrives, t), "UNDER_WAY", slow))
    else:
        earliest = dep + _hours(3)
        if v.sailed_yesterday:
            fixes.append((dep - _hours(rng.uniform(1, 3)), 0.0, "MOORED", 0.0))
            n -= 1
        for t in _fix_times(rng, n, earliest):
            fixes.append((t, knots * _span_h(t, dep), "UNDER_WAY", knots * rng.uniform(1.0, 1.05)))
    track = []
    for t, s, status, speed in sorted(fixes):
        if status == "MOORED":
            lat, lon, heading = *position(route.origin), rng.uniform(0, 360)
        elif status == "AT_ANCHOR":
            lat, lon, _, _ = route.point_at(s)
            lat, lon = lat + rng.uniform(-0.02, 0.02), lon + rng.uniform(-0.02, 0.02)
            heading, speed = rng.uniform(0, 360), rng.uniform(0, 0.3)
        else:
            lat, lon, course, _ = route.point_at(route.nearest_sea_nm(s))
            heading, speed = course + rng.uniform(-2, 2), speed + rng.uniform(-0.4, 0.4)
        when = t.replace(microsecond=0)
        track.append(
            (when, round(lat, 6), round(lon, 6), round(speed, 1), round(heading) % 360, status)
        )
    return track


def _positions(rng: random.Random, voyages: list[_Voyage], imos: list[int]) -> list[tuple]:
    current = [v for v in voyages if v.status in ("ACTIVE", "DELAYED")]
    counts = [4] * len(current)  # 3-5 fixes each, 4 on average
    shuffled = rng.sample(range(len(current)), len(current))
    k = rng.randint(4, len(current) // 2 - 1)
    for i in shuffled[:k]:
        counts[i] += 1
    for i in shuffled[k : 2 * k]:
        counts[i] -= 1
    rows = []
    for v, n in zip(current, counts):
        for fix in _track(rng, v, n):
            rows.append((len(rows) + 1, imos[v.vessel], v.voyage_id, *fix))
    return rows


def _cents(usd: float) -> int:
    """A price as a trader would write it: whole dollars from $100, else quarters or nickels."""
    step = 100 if usd >= 100 else 25 if usd >= 10 else 5
    return max(step, round(usd * 100 / step) * step)


def _company(rng: random.Random, port: str, trade: str) -> str:
    country = next(p[2] for p in PORTS if p[0] == port)
    stems, suffix = COMPANIES[country]
    return f"{rng.choice(stems)} {trade} {suffix}"


def _container_number(rng: random.Random, owners: tuple[str, ...], used: set[str]) -> str:
    while True:
        owner, serial = rng.choice(owners), f"{rng.randrange(0, 1_000_000):06d}"
        remainder = iso6346_remainder(owner + serial)
        number = f"{owner}{serial}{remainder % 10}"
        if remainder != 10 and number not in used:  # ISO 6346 advises against remainder 10
            used.add(number)
            return number


def _may_share(p: Product, first: Product) -> bool:
    """Goods that may share a box: same reefer set point and dangerous-goods class, and no
    single heavy machine (one excavator fills an open-top container)."""
    same = (p.temp_c, p.hazmat_class) == (first.temp_c, first.hazmat_class)
    return p is not first and same and min(p.per_teu[0], first.per_teu[0]) >= 1


def _max_lines(first: Product, mates: list[Product]) -> int:
    """Manifest lines a box may hold: up to 4 in a consolidated dry box, else up to 3."""
    return 1 + min(3 if first.container_type == "DRY" else 2, len(mates))


def _containers(rng: random.Random, voyages: list[_Voyage]) -> tuple[list[tuple], list[tuple]]:
    counts = [2] * 30 + [3] * (len(voyages) - 30)  # 150 containers on 60 voyages
    rng.shuffle(counts)
    slots = [v for v, count in zip(voyages, counts) for _ in range(count)]

    def exports(v: _Voyage, kind: str) -> list[Product]:
        group = PORT_GROUPS[v.route.origin]
        return [p for p in PRODUCTS if p.container_type == kind and group in p.origins.split()]

    # Every product ships at least once: place the rarest (fewest exporting voyages) first.
    firsts: dict[int, Product] = {}
    for p in sorted(PRODUCTS, key=lambda p: sum(p in exports(v, p.container_type) for v in slots)):
        places = [
            i for i, v in enumerate(slots) if i not in firsts and p in exports(v, p.container_type)
        ]
        if not places:
            raise AssertionError(f"no voyage leaves a port that exports {p.hs_code}")
        firsts[rng.choice(places)] = p
    specs = []  # (voyage, first product, compatible products, lines)
    for i, v in enumerate(slots):
        if i in firsts:
            first = firsts[i]
            goods = exports(v, first.container_type)
        else:
            kind = rng.choices(list(TYPE_WEIGHTS), weights=list(TYPE_WEIGHTS.values()))[0]
            goods = exports(v, kind) or exports(v, "DRY")  # else book a dry box
            first = rng.choice(goods)
        mates = [p for p in goods if _may_share(p, first)]
        specs.append([v, first, mates, rng.randint(1, min(3, _max_lines(first, mates)))])
    total = sum(s[3] for s in specs)
    while total != 300:  # manifest lines: exactly 300
        step = 1 if total < 300 else -1
        movable = [s for s in specs if 1 <= s[3] + step <= _max_lines(s[1], s[2])]
        if not movable:
            raise AssertionError("cannot make 300 manifest lines: add goods to PRODUCTS")
        rng.choice(movable)[3] += step
        total += step
    status = dict(
        COMPLETED="DISCHARGED", ACTIVE="IN_TRANSIT", DELAYED="IN_TRANSIT", SCHEDULED="LOADED"
    )
    owners = {c[1]: c[6] for c in CARRIERS}
    used: set[str] = set()
    containers, items = [], []
    for v, first, mates, lines in specs:
        goods = [first, *rng.sample(mates, lines - 1)]
        number = _container_number(rng, owners[VESSELS[v.vessel][1]], used)
        size, kind = first.size_ft, first.container_type
        tare = TARE_KG[kind][size == 40]
        cargo = []
        for p in goods:
            qty = rng.uniform(*p.per_teu) * size / 20 * rng.uniform(0.75, 1.0) / len(goods)
            unit_kg, cents = rng.uniform(*p.unit_kg), _cents(rng.uniform(*p.usd))
            cargo.append([p, max(1, round(qty)), unit_kg, cents])
        net = sum(q * kg for _, q, kg, _ in cargo)
        if tare + net * 1.04 > MAX_GROSS_KG:  # 4 % packaging; stay under the 30,480 kg limit
            factor = (MAX_GROSS_KG - tare) / (net * 1.04) * 0.98
            for line in cargo:
                line[1] = max(1, math.floor(line[1] * factor))
            net = sum(q * kg for _, q, kg, _ in cargo)
        shipper = _company(rng, v.route.origin, first.trade)
        receiver = _company(rng, v.route.dest, first.trade)
        temp = first.temp_c if kind == "REEFER" else None
        hazmat = first.hazmat_class if kind == "HAZMAT" else None
        row = [number, v.voyage_id, kind, size, shipper, receiver, status[v.status]]
        containers.append([*row, round(tare + net * 1.04), temp, hazmat])
        for p, qty, kg, cents in cargo:
            line = (p.hs_code, p.description, qty, cents, round(qty * kg, 2), p.un_number)
            items.append((len(items) + 1, number, *line))
    discharged = [c for c in containers if c[6] == "DISCHARGED"]
    for c in rng.sample(discharged, 6):  # a handful held by customs at the destination
        c[6] = "CUSTOMS_HOLD"
    return [tuple(c) for c in containers], items


def generate() -> dict[str, list[tuple]]:
    """Every SUPPLYCHAIN row, by table name; tuples in the schema's column order.

    Values are int, float (rounded to the column's scale), str, None, ``datetime.date`` for
    date columns and naive-UTC ``datetime.datetime`` (whole seconds) for timestamps. The same
    on every call: all randomness comes from ``random.Random(SEED)``.
    """
    rng = random.Random(SEED)
    carriers = [(i, *c[:5]) for i, c in enumerate(CARRIERS, start=1)]
    carrier_ids = {c[2]: c[0] for c in carriers}
    ports = [tuple(p) for p in PORTS]
    imos, vessels = [], []
    for name, scac, teu, built, flag, knots, _, _ in VESSELS:
        # IMO numbers grow with the keel-laying date: 93xxxxx for 2006, 99xxxxx for 2024.
        first_six = round((932 + (built - 2006) * 3.6) * 1000) + rng.randrange(0, 1500)
        imo = first_six * 10 + imo_check_digit(first_six)
        deadweight = round(teu * (14.5 - teu / 5000) * rng.uniform(0.97, 1.03), -1)
        imos.append(imo)
        vessels.append((imo, name, carrier_ids[scac], teu, int(deadweight), built, flag, knots))
    voyages, voyage_rows = _voyages(rng, imos)
    positions = _positions(rng, voyages, imos)
    containers, items = _containers(rng, voyages)
    return {
        "carriers": carriers,
        "ports": ports,
        "vessels": vessels,
        "voyages": voyage_rows,
        "vessel_positions": positions,
        "containers": containers,
        "cargo_items": items,
    }


def data_digest() -> str:
    """SHA-256 of a canonical JSON dump of :func:`generate` (dates as ISO strings)."""

    def plain(value):
        return value.isoformat() if isinstance(value, (dt.date, dt.datetime)) else value

    rows = {name: [[plain(v) for v in row] for row in table] for name, table in generate().items()}
    text = json.dumps(rows, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()
