"""The 20 SUPPLYCHAIN domain tools: vessels, ports, voyages, containers, cargo and units.

Each tool runs portable read-only SQL through :func:`agent_harness.tools.data.query` (the same
text on SQLite and Oracle: ``supplychain.<table>``, named binds, no LIMIT, no date arithmetic)
and does the rest in Python. "Today" is the data's reference date, never the wall clock.
Names accept codes or names, case-insensitively; when nothing matches, the ToolError lists close
matches so the model can retry.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re

from agent_harness.supplychain.generate import PRODUCTS, REFERENCE_DATE, iso6346_check_digit
from agent_harness.supplychain.schema import OCEAN_REGIONS
from agent_harness.tools import data, geo
from agent_harness.tools.registry import ToolError, register

__all__ = [
    "find_vessel",
    "vessel_position",
    "vessels_near_port",
    "port_info",
    "port_distance",
    "voyage_status",
    "delayed_voyages",
    "voyages_between",
    "container_manifest",
    "containers_on_hold",
    "cargo_value",
    "carrier_fleet",
    "hs_code_lookup",
    "eta_estimate",
    "convert_units",
    "hazmat_containers",
    "reefer_containers",
    "consignee_shipments",
    "port_congestion",
    "fleet_capacity_by_region",
]

TODAY = REFERENCE_DATE

# --- reference tables -----------------------------------------------------------------------
HS_CHAPTERS = {
    "02": "Meat and edible meat offal",
    "03": "Fish and crustaceans, molluscs and other aquatic invertebrates",
    "04": "Dairy produce; birds' eggs; natural honey",
    "08": "Edible fruit and nuts; peel of citrus fruit or melons",
    "09": "Coffee, tea, mate and spices",
    "15": "Animal or vegetable fats and oils",
    "22": "Beverages, spirits and vinegar",
    "27": "Mineral fuels, mineral oils and products of their distillation",
    "28": "Inorganic chemicals",
    "29": "Organic chemicals",
    "30": "Pharmaceutical products",
    "31": "Fertilisers",
    "32": "Tanning or dyeing extracts; paints and varnishes; inks",
    "33": "Essential oils; perfumery, cosmetic or toilet preparations",
    "38": "Miscellaneous chemical products",
    "39": "Plastics and articles thereof",
    "40": "Rubber and articles thereof",
    "52": "Cotton",
    "61": "Articles of apparel, knitted or crocheted",
    "64": "Footwear, gaiters and the like",
    "68": "Articles of stone, plaster, cement, asbestos or mica",
    "69": "Ceramic products",
    "72": "Iron and steel",
    "73": "Articles of iron or steel",
    "76": "Aluminium and articles thereof",
    "84": "Machinery and mechanical appliances; nuclear reactors, boilers",
    "85": "Electrical machinery and equipment; sound and television apparatus",
    "87": "Vehicles other than railway or tramway rolling stock",
    "94": "Furniture; bedding; lamps; prefabricated buildings",
    "95": "Toys, games and sports requisites",
}
HS_HEADINGS = {
    "0202": "Meat of bovine animals, frozen",
    "0207": "Meat and edible offal of poultry, fresh, chilled or frozen",
    "0303": "Fish, frozen (excluding fillets)",
    "0306": "Crustaceans: shrimps, prawns, crabs, lobsters",
    "0406": "Cheese and curd",
    "0802": "Other nuts: almonds, hazelnuts, walnuts and others",
    "0803": "Bananas, including plantains",
    "0804": "Dates, figs, pineapples, avocados, guavas and mangoes",
    "0805": "Citrus fruit",
    "0808": "Apples, pears and quinces",
    "0901": "Coffee",
    "0902": "Tea",
    "1509": "Olive oil",
    "2204": "Wine of fresh grapes",
    "2710": "Petroleum oils other than crude (e.g. motor spirit)",
    "2807": "Sulphuric acid; oleum",
    "2815": "Sodium hydroxide (caustic soda); potassium hydroxide",
    "2905": "Acyclic alcohols (e.g. methanol)",
    "3004": "Medicaments, packaged for retail sale",
    "3102": "Mineral or chemical fertilisers, nitrogenous",
    "3208": "Paints and varnishes in a non-aqueous medium",
    "3305": "Preparations for use on the hair",
    "3808": "Insecticides, fungicides, herbicides and similar products",
    "3901": "Polymers of ethylene, in primary forms",
    "4011": "New pneumatic tyres, of rubber",
    "4015": "Apparel and gloves of vulcanised rubber",
    "5205": "Cotton yarn (85 % or more cotton), not for retail sale",
    "6109": "T-shirts, singlets and other vests, knitted",
    "6403": "Footwear with uppers of leather",
    "6802": "Worked monumental or building stone",
    "6907": "Ceramic flags, paving, floor and wall tiles",
    "7202": "Ferro-alloys",
    "7308": "Structures and parts of structures, of iron or steel",
    "7601": "Unwrought aluminium",
    "8408": "Compression-ignition (diesel) engines",
    "8429": "Bulldozers, graders, excavators and similar self-propelled machines",
    "8471": "Automatic data-processing machines (computers)",
    "8479": "Machines with individual functions, not elsewhere specified",
    "8481": "Taps, cocks, valves and similar appliances",
    "8507": "Electric accumulators (batteries)",
    "8517": "Telephone sets, including smartphones",
    "8528": "Monitors, projectors and television receivers",
    "8541": "Semiconductor devices; photovoltaic cells and modules",
    "8708": "Parts and accessories of motor vehicles",
    "8712": "Bicycles and other cycles, not motorised",
    "9401": "Seats",
    "9403": "Other furniture",
    "9503": "Toys",
}
HS_SUBHEADINGS = {p.hs_code: p.description for p in PRODUCTS}
UN_CLASSES = {
    "1": "Explosives",
    "2.1": "Flammable gases",
    "2.2": "Non-flammable, non-toxic gases",
    "2.3": "Toxic gases",
    "3": "Flammable liquids",
    "4.1": "Flammable solids",
    "5.1": "Oxidizing substances",
    "6.1": "Toxic substances",
    "8": "Corrosive substances",
    "9": "Miscellaneous dangerous goods (e.g. lithium batteries)",
}
# unit -> (dimension, factor to the dimension's base unit); temperature is handled apart.
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

# --- queries --------------------------------------------------------------------------------
_VESSELS = (
    "SELECT v.imo_number, v.name, v.capacity_teu, v.deadweight_tons, v.year_built, v.flag,"
    " v.service_speed_knots, c.name AS carrier, c.scac_code"
    " FROM supplychain.vessels v JOIN supplychain.carriers c ON c.carrier_id = v.carrier_id"
)
_PORTS = (
    "SELECT port_code, name, country, ocean_region, latitude, longitude, berths, max_draft_m"
    " FROM supplychain.ports"
)
_VOYAGES = (
    "SELECT y.voyage_id, y.voyage_code, y.imo_number, v.name AS vessel, c.name AS carrier,"
    " y.origin_port, po.name AS origin_name, y.dest_port, pd.name AS dest_name,"
    " y.departure_date, y.eta_date, y.actual_arrival_date, y.status, y.ocean_region,"
    " y.distance_nm"
    " FROM supplychain.voyages y"
    " JOIN supplychain.vessels v ON v.imo_number = y.imo_number"
    " JOIN supplychain.carriers c ON c.carrier_id = v.carrier_id"
    " JOIN supplychain.ports po ON po.port_code = y.origin_port"
    " JOIN supplychain.ports pd ON pd.port_code = y.dest_port"
)
_LATEST_POSITIONS = (
    "SELECT p.imo_number, v.name AS vessel, p.voyage_id, y.voyage_code, y.origin_port,"
    " y.dest_port, y.status, y.eta_date, p.recorded_at, p.latitude, p.longitude,"
    " p.speed_knots, p.heading_deg, p.nav_status"
    " FROM supplychain.vessel_positions p"
    " JOIN supplychain.vessels v ON v.imo_number = p.imo_number"
    " JOIN supplychain.voyages y ON y.voyage_id = p.voyage_id"
    " WHERE p.recorded_at = (SELECT MAX(q.recorded_at) FROM supplychain.vessel_positions q"
    " WHERE q.imo_number = p.imo_number)"
)


def _query(sql: str, **binds) -> list[dict]:
    return data.query(sql, **binds)  # looked up on each call, so tests can substitute it


def _day(value) -> dt.date | None:
    """A date from a query value: 'YYYY-MM-DD', an ISO timestamp (Oracle DATE) or a date."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])


def _moment(value) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None)
    return dt.datetime.fromisoformat(str(value).replace(" ", "T")[:19])


def _iso(value) -> str | None:
    day = _day(value)
    return day.isoformat() if day else None


def _usd(cents: float | int | None) -> float:
    return round((cents or 0) / 100, 2)


def _text(value: str | None, what: str) -> str:
    text = (value or "").strip()
    if not text:
        raise ToolError(f"{what} is empty: give a name or a code")
    return text


def _suggest(text: str, options: list[str], n: int = 5) -> str:
    upper = {o.upper(): o for o in options if o}
    close = difflib.get_close_matches(text.upper(), list(upper), n=n, cutoff=0.4)
    close += [k for k in upper if k not in close and k[:3] == text.upper()[:3]][: n - len(close)]
    return ", ".join(upper[k] for k in close) if close else "none"


def _one(rows: list[dict], text: str, what: str, key: str, label) -> dict:
    """The single row ``text`` means: the only match, or the one whose ``key`` equals it."""
    if len(rows) == 1:
        return rows[0]
    exact = [r for r in rows if str(r[key]).upper() == text.upper()]
    if len(exact) == 1:
        return exact[0]
    listed = "; ".join(label(r) for r in rows[:10])
    raise ToolError(f"{what} '{text}' matches {len(rows)}: {listed}. Give the exact one.")


def _vessel(text: str) -> dict:
    text = _text(text, "vessel")
    digits = re.fullmatch(r"(?:IMO\s*)?(\d{7})", text.upper())
    if digits:
        rows = _query(_VESSELS + " WHERE v.imo_number = :imo", imo=int(digits.group(1)))
    else:
        rows = _query(_VESSELS + " WHERE UPPER(v.name) LIKE UPPER(:pat)", pat=f"%{text}%")
    if not rows:
        names = [r["name"] for r in _query("SELECT name FROM supplychain.vessels")]
        raise ToolError(
            f"no vessel named or numbered '{text}'. Close matches: {_suggest(text, names)}."
            " Use find_vessel with part of the name, or a 7-digit IMO number."
        )
    return _one(rows, text, "vessel", "name", lambda r: f"{r['name']} (IMO {r['imo_number']})")


def _port(text: str) -> dict:
    text = _text(text, "port")
    rows = _query(
        _PORTS + " WHERE UPPER(port_code) = UPPER(:code) OR UPPER(country) = UPPER(:code)"
        " OR UPPER(name) LIKE UPPER(:pat) ORDER BY port_code",
        code=text,
        pat=f"%{text}%",
    )
    by_code = [r for r in rows if r["port_code"].upper() == text.upper()]
    if by_code:
        return by_code[0]
    if not rows:
        ports = _query("SELECT port_code, name FROM supplychain.ports")
        options = [p["name"] for p in ports] + [p["port_code"] for p in ports]
        raise ToolError(
            f"no port '{text}'. Close matches: {_suggest(text, options)}. Give a UN/LOCODE"
            " (e.g. CNSHA, NLRTM) or a port name."
        )
    return _one(rows, text, "port", "name", lambda r: f"{r['name']} ({r['port_code']})")


def _voyage(text: str) -> dict:
    text = _text(text, "voyage")
    if text.isdigit():
        rows = _query(_VOYAGES + " WHERE y.voyage_id = :vid", vid=int(text))
    else:
        rows = _query(_VOYAGES + " WHERE UPPER(y.voyage_code) = UPPER(:code)", code=text)
    if not rows:
        codes = [r["voyage_code"] for r in _query("SELECT voyage_code FROM supplychain.voyages")]
        raise ToolError(
            f"no voyage '{text}'. Give a voyage_code like 'MAE-2514W' or a numeric voyage_id."
            f" Close matches: {_suggest(text, codes)}."
        )
    return rows[0]


def _carrier(text: str) -> dict:
    text = _text(text, "carrier")
    rows = _query(
        "SELECT carrier_id, name, scac_code, country, headquarters, founded_year"
        " FROM supplychain.carriers"
        " WHERE UPPER(scac_code) = UPPER(:code) OR UPPER(name) LIKE UPPER(:pat)",
        code=text,
        pat=f"%{text}%",
    )
    by_scac = [r for r in rows if r["scac_code"].upper() == text.upper()]
    if by_scac:
        return by_scac[0]
    if not rows:
        all_rows = _query("SELECT name, scac_code FROM supplychain.carriers")
        options = [r["name"] for r in all_rows] + [r["scac_code"] for r in all_rows]
        raise ToolError(
            f"no carrier '{text}'. Close matches: {_suggest(text, options)}. Give a name or"
            " a 4-letter SCAC code (e.g. MAEU, MSCU)."
        )
    return _one(rows, text, "carrier", "name", lambda r: f"{r['name']} ({r['scac_code']})")


def _region(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    region = value.strip().upper()
    if region not in OCEAN_REGIONS:
        raise ToolError(
            f"unknown ocean region '{value}'. Use one of: {', '.join(OCEAN_REGIONS)}"
            " (or leave it empty for all)."
        )
    return region


def _container_no(text: str) -> str:
    number = re.sub(r"[\s\-/]", "", _text(text, "container_no")).upper()
    if not re.fullmatch(r"[A-Z]{4}\d{7}", number):
        raise ToolError(
            f"'{text}' is not an ISO 6346 container number: 4 letters then 7 digits,"
            " e.g. MSCU1234566."
        )
    return number


def _voyage_summary(row: dict) -> dict:
    """A voyage row as the tools show it, with its timing relative to today."""
    eta, arrival = _day(row["eta_date"]), _day(row["actual_arrival_date"])
    summary = {
        "voyage_id": row["voyage_id"],
        "voyage_code": row["voyage_code"],
        "vessel": row["vessel"],
        "imo_number": row["imo_number"],
        "carrier": row["carrier"],
        "origin": {"port_code": row["origin_port"], "name": row["origin_name"]},
        "destination": {"port_code": row["dest_port"], "name": row["dest_name"]},
        "departure_date": _iso(row["departure_date"]),
        "eta_date": _iso(eta),
        "actual_arrival_date": _iso(arrival),
        "status": row["status"],
        "ocean_region": row["ocean_region"],
        "distance_nm": row["distance_nm"],
    }
    if row["status"] == "DELAYED":
        summary["days_late"] = (TODAY - eta).days
    elif row["status"] == "COMPLETED" and arrival:
        summary["arrival_delay_days"] = (arrival - eta).days
    else:
        summary["days_to_eta"] = (eta - TODAY).days
    return summary


# --- vessels --------------------------------------------------------------------------------
@register
def find_vessel(name: str) -> dict:
    """Find container ships by part of their name (case-insensitive) or by exact IMO number.

    Returns each match with IMO number, carrier and SCAC code, capacity_teu (container slots
    in twenty-foot equivalent units, NOT tons), deadweight tons, year built, flag and service
    speed in knots.

    Args:
        name: Part of a ship name (e.g. "maersk", "EVER ACE") or a 7-digit IMO number.
    """
    text = _text(name, "name")
    digits = re.fullmatch(r"(?:IMO\s*)?(\d{7})", text.upper())
    rows = _query(
        _VESSELS + " WHERE UPPER(v.name) LIKE UPPER(:pat) OR v.imo_number = :imo ORDER BY v.name",
        pat=f"%{text}%",
        imo=int(digits.group(1)) if digits else -1,
    )
    if not rows:
        names = [r["name"] for r in _query("SELECT name FROM supplychain.vessels")]
        raise ToolError(f"no vessel matches '{text}'. Close matches: {_suggest(text, names)}.")
    return {"query": text, "count": len(rows), "vessels": rows}


def _last_known(vessel: dict) -> dict:
    """Where a ship with no AIS track is: in port between its last and next voyage."""
    rows = _query(_VOYAGES + " WHERE y.imo_number = :imo", imo=vessel["imo_number"])
    done = [r for r in rows if r["status"] == "COMPLETED"]
    upcoming = [r for r in rows if r["status"] == "SCHEDULED"]
    result = {"vessel": vessel["name"], "imo_number": vessel["imo_number"], "position": None}
    if done:
        last = max(done, key=lambda r: _day(r["actual_arrival_date"]))
        result["in_port"] = {"port_code": last["dest_port"], "name": last["dest_name"]}
        result["arrived"] = _iso(last["actual_arrival_date"])
        result["last_voyage"] = last["voyage_code"]
    if upcoming:
        following = min(upcoming, key=lambda r: _day(r["departure_date"]))
        result["next_voyage"] = _voyage_summary(following)
    result["note"] = "No AIS track: the ship is not at sea on an ACTIVE or DELAYED voyage."
    return result


@register
def vessel_position(vessel: str) -> dict:
    """Latest AIS position of a ship: time (UTC), latitude/longitude, speed in knots, heading,
    navigation status, the voyage it is on, and the nearest port with distance in nm.

    Ships in port (no ACTIVE or DELAYED voyage) have no track; then the answer says which port
    they are in and their next voyage.

    Args:
        vessel: Ship name (or part of it) or 7-digit IMO number.
    """
    ship = _vessel(vessel)
    rows = _query(_LATEST_POSITIONS + " AND p.imo_number = :imo", imo=ship["imo_number"])
    if not rows:
        return _last_known(ship)
    fix = rows[0]
    port, nm = geo.nearest_port(fix["latitude"], fix["longitude"], _query(_PORTS))
    age = dt.datetime.combine(TODAY, dt.time()) - _moment(fix["recorded_at"])
    return {
        "vessel": ship["name"],
        "imo_number": ship["imo_number"],
        "carrier": ship["carrier"],
        "recorded_at": _moment(fix["recorded_at"]).isoformat(),
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
            "eta_date": _iso(fix["eta_date"]),
        },
        "nearest_port": {"port_code": port["port_code"], "name": port["name"]},
        "nearest_port_distance_nm": round(nm, 1),
    }


@register
def vessels_near_port(port: str, radius_nm: float = 500.0) -> dict:
    """Ships whose latest AIS position is within a radius (great-circle nautical miles) of a
    port, nearest first, with distance, speed, navigation status and voyage.

    Args:
        port: Port UN/LOCODE (e.g. "USLAX") or name (e.g. "Los Angeles").
        radius_nm: Search radius in nautical miles (1 nm = 1.852 km); default 500.
    """
    if not 0 < radius_nm <= 12500:
        raise ToolError("radius_nm must be between 0 and 12500 nautical miles")
    center = _port(port)
    found = []
    for fix in _query(_LATEST_POSITIONS):
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
                    "recorded_at": _moment(fix["recorded_at"]).isoformat(),
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


# --- ports ----------------------------------------------------------------------------------
@register
def port_info(port: str) -> dict:
    """A port's details (UN/LOCODE, country, ocean region, position, berths, max draft in m)
    and how many voyages depart from and arrive at it, by voyage status.

    Args:
        port: Port UN/LOCODE (e.g. "NLRTM"), name (e.g. "Rotterdam") or country.
    """
    info = _port(port)
    counts = _query(
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


@register
def port_distance(from_port: str, to_port: str) -> dict:
    """Great-circle distance between two ports in nautical miles and kilometres: the shortest
    path over the globe, NOT the sailing distance (ships follow longer sea lanes around land;
    the sailing distance along the data's sea lanes is given too, as sea_route_nm).

    Args:
        from_port: First port, UN/LOCODE or name.
        to_port: Second port, UN/LOCODE or name.
    """
    a, b = _port(from_port), _port(to_port)
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


# --- voyages --------------------------------------------------------------------------------
@register
def voyage_status(voyage: str) -> dict:
    """One voyage by voyage_code (e.g. "MAE-2514W") or numeric voyage_id: vessel, carrier,
    origin and destination ports, departure/eta/arrival dates, status, sailing distance in nm,
    and days late (DELAYED), arrival delay (COMPLETED) or days to eta, counted from today
    (2025-06-01, the data's reference date).

    Args:
        voyage: The voyage_code or the numeric voyage_id.
    """
    return {"as_of": TODAY.isoformat(), **_voyage_summary(_voyage(voyage))}


@register
def delayed_voyages(ocean_region: str | None = None) -> dict:
    """Voyages with status DELAYED (past their eta_date and not arrived), most overdue first,
    with days overdue counted from today (2025-06-01), vessel and ports.

    Args:
        ocean_region: Only this region: PACIFIC, ATLANTIC, INDIAN or MEDITERRANEAN; all when
            empty.
    """
    region = _region(ocean_region)
    sql = _VOYAGES + " WHERE y.status = 'DELAYED'"
    rows = _query(sql + " AND y.ocean_region = :region", region=region) if region else _query(sql)
    voyages = sorted((_voyage_summary(r) for r in rows), key=lambda v: -v["days_late"])
    for v in voyages:
        v["days_overdue"] = v.pop("days_late")
    return {
        "as_of": TODAY.isoformat(),
        "ocean_region": region or "ALL",
        "count": len(voyages),
        "voyages": voyages,
    }


@register
def voyages_between(origin: str, destination: str) -> dict:
    """All voyages (any status) sailing from one port to another, oldest departure first, with
    dates, status, vessel and sailing distance in nm.

    Args:
        origin: Port of departure, UN/LOCODE or name.
        destination: Port of arrival, UN/LOCODE or name.
    """
    a, b = _port(origin), _port(destination)
    rows = _query(
        _VOYAGES + " WHERE y.origin_port = :o AND y.dest_port = :d ORDER BY y.departure_date",
        o=a["port_code"],
        d=b["port_code"],
    )
    result = {
        "origin": {"port_code": a["port_code"], "name": a["name"]},
        "destination": {"port_code": b["port_code"], "name": b["name"]},
        "count": len(rows),
        "voyages": [_voyage_summary(r) for r in rows],
    }
    if not rows:
        reverse = _query(
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


# --- containers and cargo -------------------------------------------------------------------
_CONTAINERS = (
    "SELECT c.container_no, c.container_type, c.size_ft, c.consignor, c.consignee, c.status,"
    " c.gross_weight_kg, c.reefer_temp_c, c.hazmat_class, y.voyage_id, y.voyage_code,"
    " y.status AS voyage_status, y.origin_port, y.dest_port, y.eta_date, y.actual_arrival_date,"
    " v.name AS vessel"
    " FROM supplychain.containers c"
    " JOIN supplychain.voyages y ON y.voyage_id = c.voyage_id"
    " JOIN supplychain.vessels v ON v.imo_number = y.imo_number"
)
_ITEMS = (
    "SELECT i.item_id, i.container_no, i.hs_code, i.description, i.quantity,"
    " i.unit_value_cents, i.weight_kg, i.un_number FROM supplychain.cargo_items i"
)


def _values_by_container(container_nos: list[str]) -> dict[str, int]:
    """Declared value in cents of each container (quantity x unit value, summed)."""
    if not container_nos:
        return {}
    rows = _query(
        "SELECT i.container_no, SUM(i.quantity * i.unit_value_cents) AS cents"
        " FROM supplychain.cargo_items i GROUP BY i.container_no"
    )
    wanted = set(container_nos)
    return {r["container_no"]: int(r["cents"]) for r in rows if r["container_no"] in wanted}


def _container_brief(row: dict, cents: int | None = None) -> dict:
    brief = {
        "container_no": row["container_no"],
        "container_type": row["container_type"],
        "size_ft": row["size_ft"],
        "status": row["status"],
        "consignor": row["consignor"],
        "consignee": row["consignee"],
        "voyage_code": row["voyage_code"],
        "voyage_status": row["voyage_status"],
        "vessel": row["vessel"],
        "from": row["origin_port"],
        "to": row["dest_port"],
    }
    if cents is not None:
        brief["value_cents"] = cents
        brief["value_usd"] = _usd(cents)
    return brief


@register
def container_manifest(container_no: str) -> dict:
    """One container (ISO 6346 number, e.g. "MSCU1234566") with its voyage and every cargo
    line: HS code, description, quantity, unit value in cents and dollars, weight in kg and
    UN number; plus totals of quantity, weight (kg) and value in US dollars AND in cents.

    Args:
        container_no: The 11-character container number (spaces or dashes are ignored).
    """
    number = _container_no(container_no)
    rows = _query(_CONTAINERS + " WHERE c.container_no = :cno", cno=number)
    if not rows:
        numbers = [
            r["container_no"] for r in _query("SELECT container_no FROM supplychain.containers")
        ]
        check = iso6346_check_digit(number[:10])
        hint = "" if str(check) == number[10] else f" (its check digit should be {check}: a typo?)"
        raise ToolError(
            f"no container {number}{hint}. Close matches: {_suggest(number, numbers)}."
            " Use consignee_shipments or cargo_value to find containers."
        )
    box = rows[0]
    items = []
    for item in _query(_ITEMS + " WHERE i.container_no = :cno ORDER BY i.item_id", cno=number):
        line_cents = item["quantity"] * item["unit_value_cents"]
        items.append(
            {
                **{k: item[k] for k in ("item_id", "hs_code", "description", "quantity")},
                "unit_value_cents": item["unit_value_cents"],
                "unit_value_usd": _usd(item["unit_value_cents"]),
                "line_value_cents": line_cents,
                "line_value_usd": _usd(line_cents),
                "weight_kg": item["weight_kg"],
                "un_number": item["un_number"],
            }
        )
    total_cents = sum(i["line_value_cents"] for i in items)
    return {
        **_container_brief(box),
        "gross_weight_kg": box["gross_weight_kg"],
        "reefer_temp_c": box["reefer_temp_c"],
        "hazmat_class": box["hazmat_class"],
        "items": items,
        "totals": {
            "lines": len(items),
            "quantity": sum(i["quantity"] for i in items),
            "weight_kg": round(sum(i["weight_kg"] for i in items), 2),
            "value_cents": total_cents,
            "value_usd": _usd(total_cents),
        },
    }


@register
def containers_on_hold(port: str | None = None) -> dict:
    """Containers with status CUSTOMS_HOLD (discharged but held by customs), with consignee,
    voyage, days held since arrival and declared value in US dollars and cents.

    Args:
        port: Only containers on voyages from or to this port (UN/LOCODE or name); all when
            empty.
    """
    sql = _CONTAINERS + " WHERE c.status = 'CUSTOMS_HOLD'"
    where = None
    if port and port.strip():
        where = _port(port)
        sql += " AND (y.origin_port = :code OR y.dest_port = :code)"
        rows = _query(sql + " ORDER BY c.container_no", code=where["port_code"])
    else:
        rows = _query(sql + " ORDER BY c.container_no")
    values = _values_by_container([r["container_no"] for r in rows])
    held = []
    for row in rows:
        brief = _container_brief(row, values.get(row["container_no"], 0))
        arrived = _day(row["actual_arrival_date"])
        brief["held_at"] = row["dest_port"]
        brief["days_held"] = (TODAY - arrived).days if arrived else None
        held.append(brief)
    return {
        "as_of": TODAY.isoformat(),
        "port": where["port_code"] if where else "ALL",
        "count": len(held),
        "total_value_usd": _usd(sum(h["value_cents"] for h in held)),
        "containers": held,
    }


@register
def cargo_value(voyage: str | None = None, container_no: str | None = None) -> dict:
    """Total declared cargo value of ONE voyage or ONE container, in US cents and US dollars
    (unit_value_cents x quantity, summed), with the number of containers and lines.

    Give exactly one of the two arguments.

    Args:
        voyage: A voyage_code (e.g. "MAE-2514W") or numeric voyage_id.
        container_no: An ISO 6346 container number (e.g. "MSCU1234566").
    """
    has_voyage, has_box = (
        bool(voyage and voyage.strip()),
        bool(container_no and container_no.strip()),
    )
    if has_voyage == has_box:
        raise ToolError(
            "give exactly one of voyage or container_no"
            + (" (both were given)" if has_voyage else " (neither was given)")
        )
    if has_box:
        number = _container_no(container_no)
        manifest = container_manifest(number)
        return {
            "container_no": number,
            "voyage_code": manifest["voyage_code"],
            "lines": manifest["totals"]["lines"],
            "value_cents": manifest["totals"]["value_cents"],
            "value_usd": manifest["totals"]["value_usd"],
        }
    trip = _voyage(voyage)
    rows = _query(
        "SELECT c.container_no, c.container_type, COUNT(i.item_id) AS lines,"
        " SUM(i.quantity * i.unit_value_cents) AS cents"
        " FROM supplychain.containers c"
        " JOIN supplychain.cargo_items i ON i.container_no = c.container_no"
        " WHERE c.voyage_id = :vid GROUP BY c.container_no, c.container_type"
        " ORDER BY c.container_no",
        vid=trip["voyage_id"],
    )
    total = sum(int(r["cents"]) for r in rows)
    return {
        "voyage_code": trip["voyage_code"],
        "vessel": trip["vessel"],
        "containers": len(rows),
        "lines": sum(r["lines"] for r in rows),
        "value_cents": total,
        "value_usd": _usd(total),
        "by_container": [
            {
                "container_no": r["container_no"],
                "container_type": r["container_type"],
                "value_cents": int(r["cents"]),
                "value_usd": _usd(r["cents"]),
            }
            for r in rows
        ],
    }


@register
def carrier_fleet(carrier: str) -> dict:
    """The ships of one shipping line, largest first, with the fleet's total capacity in TEU
    (container slots, not tons) and total deadweight in tons.

    Args:
        carrier: Carrier name or part of it (e.g. "Maersk") or 4-letter SCAC code (e.g. MAEU).
    """
    line = _carrier(carrier)
    ships = _query(
        _VESSELS + " WHERE v.carrier_id = :cid ORDER BY v.capacity_teu DESC",
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


@register
def hs_code_lookup(hs_code: str) -> dict:
    """What an HS (Harmonized System) tariff code means: its chapter (2 digits), heading
    (4 digits) and subheading (6 digits), plus the cargo lines in the data whose code starts
    with it (count, quantity, value in US dollars, example descriptions).

    Args:
        hs_code: 2 to 6 digits, e.g. "84", "8471" or "847130" (dots and spaces are ignored).
    """
    code = re.sub(r"[\s.]", "", _text(hs_code, "hs_code"))
    if not re.fullmatch(r"\d{2}|\d{4}|\d{6}", code):
        raise ToolError(f"'{hs_code}' is not an HS code: give 2, 4 or 6 digits, e.g. 847130")
    if code[:2] not in HS_CHAPTERS:
        raise ToolError(
            f"HS chapter {code[:2]} is not used in this data. Chapters present: "
            + ", ".join(f"{k} {v}" for k, v in HS_CHAPTERS.items())
        )
    rows = _query(
        "SELECT i.hs_code, i.description, COUNT(*) AS lines, SUM(i.quantity) AS quantity,"
        " SUM(i.quantity * i.unit_value_cents) AS cents"
        " FROM supplychain.cargo_items i WHERE i.hs_code LIKE :prefix"
        " GROUP BY i.hs_code, i.description ORDER BY i.hs_code",
        prefix=code + "%",
    )
    result = {"hs_code": code, "chapter": {"code": code[:2], "title": HS_CHAPTERS[code[:2]]}}
    if len(code) >= 4:
        result["heading"] = {"code": code[:4], "title": HS_HEADINGS.get(code[:4], "unknown")}
    if len(code) == 6:
        result["subheading"] = {"code": code, "title": HS_SUBHEADINGS.get(code, "unknown")}
    cents = sum(int(r["cents"]) for r in rows)
    result["cargo"] = {
        "lines": sum(r["lines"] for r in rows),
        "quantity": sum(r["quantity"] for r in rows),
        "value_usd": _usd(cents),
        "codes": [
            {"hs_code": r["hs_code"], "description": r["description"], "lines": r["lines"]}
            for r in rows
        ],
    }
    return result


@register
def eta_estimate(vessel: str) -> dict:
    """Estimated arrival of a ship at sea, from its latest AIS position and speed: the sailing
    distance left along the sea route to its destination (nm), the estimated arrival time (UTC)
    and how it compares with the scheduled eta_date (positive = later than scheduled).

    Args:
        vessel: Ship name (or part of it) or 7-digit IMO number.
    """
    ship = _vessel(vessel)
    rows = _query(_LATEST_POSITIONS + " AND p.imo_number = :imo", imo=ship["imo_number"])
    if not rows:
        raise ToolError(
            f"{ship['name']} has no AIS position: it is not at sea on an ACTIVE or DELAYED"
            " voyage. Use vessel_position to see where it is and its next voyage."
        )
    fix = rows[0]
    left = geo.route_progress(
        fix["origin_port"], fix["dest_port"], fix["latitude"], fix["longitude"]
    )
    seen = _moment(fix["recorded_at"])
    scheduled = _day(fix["eta_date"])
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


@register
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


# --- special cargo --------------------------------------------------------------------------
@register
def hazmat_containers(voyage: str | None = None) -> dict:
    """HAZMAT (dangerous goods) containers with their UN class (e.g. 3 = flammable liquids) and
    the UN numbers and descriptions of the goods inside, with voyage, vessel and status.

    Args:
        voyage: Only this voyage (voyage_code or voyage_id); all voyages when empty.
    """
    sql = (
        _CONTAINERS.replace(
            " FROM supplychain.containers c",
            ", i.un_number, i.description, i.quantity FROM supplychain.containers c",
        )
        + " JOIN supplychain.cargo_items i ON i.container_no = c.container_no"
        " WHERE c.container_type = 'HAZMAT'"
    )
    trip = _voyage(voyage) if voyage and voyage.strip() else None
    if trip:
        rows = _query(
            sql + " AND c.voyage_id = :vid ORDER BY c.container_no, i.item_id",
            vid=trip["voyage_id"],
        )
    else:
        rows = _query(sql + " ORDER BY c.container_no, i.item_id")
    boxes: dict[str, dict] = {}
    for row in rows:
        box = boxes.setdefault(
            row["container_no"],
            {
                **_container_brief(row),
                "hazmat_class": row["hazmat_class"],
                "class_name": UN_CLASSES.get(row["hazmat_class"], "unknown"),
                "un_numbers": [],
                "goods": [],
            },
        )
        if row["un_number"] not in box["un_numbers"]:
            box["un_numbers"].append(row["un_number"])
        box["goods"].append(
            {
                "un_number": row["un_number"],
                "description": row["description"],
                "quantity": row["quantity"],
            }
        )
    return {
        "voyage": trip["voyage_code"] if trip else "ALL",
        "count": len(boxes),
        "containers": list(boxes.values()),
    }


@register
def reefer_containers(min_temp_c: float | None = None, max_temp_c: float | None = None) -> dict:
    """REEFER (refrigerated) containers whose set temperature in degrees Celsius lies in a range,
    coldest first, with the goods inside, voyage, vessel and status.

    Args:
        min_temp_c: Lowest set temperature to include, in Celsius (e.g. -25); no limit if empty.
        max_temp_c: Highest set temperature to include, in Celsius (e.g. 8); no limit if empty.
    """
    if min_temp_c is not None and max_temp_c is not None and min_temp_c > max_temp_c:
        raise ToolError(f"min_temp_c ({min_temp_c}) is above max_temp_c ({max_temp_c})")
    sql, binds = _CONTAINERS + " WHERE c.container_type = 'REEFER'", {}
    if min_temp_c is not None:
        sql, binds["lo"] = sql + " AND c.reefer_temp_c >= :lo", min_temp_c
    if max_temp_c is not None:
        sql, binds["hi"] = sql + " AND c.reefer_temp_c <= :hi", max_temp_c
    rows = _query(sql + " ORDER BY c.reefer_temp_c, c.container_no", **binds)
    goods: dict[str, list[str]] = {}
    for item in _query(
        _ITEMS + " JOIN supplychain.containers c ON c.container_no = i.container_no"
        " WHERE c.container_type = 'REEFER' ORDER BY i.item_id"
    ):
        goods.setdefault(item["container_no"], []).append(item["description"])
    reefers = []
    for row in rows:
        brief = _container_brief(row)
        brief["reefer_temp_c"] = row["reefer_temp_c"]
        brief["goods"] = goods.get(row["container_no"], [])
        reefers.append(brief)
    return {
        "min_temp_c": min_temp_c,
        "max_temp_c": max_temp_c,
        "count": len(reefers),
        "containers": reefers,
    }


@register
def consignee_shipments(consignee: str) -> dict:
    """Containers addressed to a consignee (receiver) whose name contains the text, case-
    insensitive: container, type, voyage and its status, container status and declared value
    in US dollars and cents.

    Args:
        consignee: Part of the receiving company's name, e.g. "Van Dijk" or "Hanseatic".
    """
    text = _text(consignee, "consignee")
    rows = _query(
        _CONTAINERS
        + " WHERE UPPER(c.consignee) LIKE UPPER(:pat) ORDER BY c.consignee, c.container_no",
        pat=f"%{text}%",
    )
    if not rows:
        names = [
            r["consignee"] for r in _query("SELECT DISTINCT consignee FROM supplychain.containers")
        ]
        raise ToolError(f"no consignee matches '{text}'. Close matches: {_suggest(text, names)}.")
    values = _values_by_container([r["container_no"] for r in rows])
    shipments = [_container_brief(r, values.get(r["container_no"], 0)) for r in rows]
    return {
        "query": text,
        "consignees": sorted({r["consignee"] for r in rows}),
        "count": len(shipments),
        "total_value_usd": _usd(sum(s["value_cents"] for s in shipments)),
        "shipments": shipments,
    }


# --- network view ---------------------------------------------------------------------------
@register
def port_congestion(port: str | None = None) -> dict:
    """Pressure on ports as of today (2025-06-01): per destination port, the ships due within
    the next 7 days (ACTIVE or SCHEDULED, eta today to today+7), DELAYED voyages heading there,
    ships waiting at anchor off it, and containers held by customs there. Busiest first.

    Args:
        port: Only this port (UN/LOCODE or name); all ports with any activity when empty.
    """
    target = _port(port) if port and port.strip() else None
    voyages = _query(_VOYAGES + " WHERE y.status IN ('ACTIVE', 'DELAYED', 'SCHEDULED')")
    holds = _query(
        "SELECT y.dest_port, COUNT(*) AS n FROM supplychain.containers c"
        " JOIN supplychain.voyages y ON y.voyage_id = c.voyage_id"
        " WHERE c.status = 'CUSTOMS_HOLD' GROUP BY y.dest_port"
    )
    anchored = [f for f in _query(_LATEST_POSITIONS) if f["nav_status"] == "AT_ANCHOR"]
    ports = {p["port_code"]: p for p in _query(_PORTS)}
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
        eta = _day(v["eta_date"])
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


@register
def fleet_capacity_by_region(ocean_region: str | None = None) -> dict:
    """Container capacity deployed at sea per ocean region: the TEU (twenty-foot container
    slots, not tons) and number of ships on ACTIVE or DELAYED voyages, grouped by the voyage's
    ocean region, largest first.

    Args:
        ocean_region: Only this region: PACIFIC, ATLANTIC, INDIAN or MEDITERRANEAN; all when
            empty.
    """
    region = _region(ocean_region)
    sql = (
        "SELECT y.ocean_region, COUNT(*) AS voyages, SUM(v.capacity_teu) AS teu"
        " FROM supplychain.voyages y JOIN supplychain.vessels v ON v.imo_number = y.imo_number"
        " WHERE y.status IN ('ACTIVE', 'DELAYED')"
    )
    if region:
        rows = _query(sql + " AND y.ocean_region = :region GROUP BY y.ocean_region", region=region)
    else:
        rows = _query(sql + " GROUP BY y.ocean_region")
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
