"""What the SUPPLYCHAIN domain tools share: SQL, value conversions and name resolution.

Each tool runs portable read-only SQL through :func:`query` (the same text on SQLite and Oracle:
``supplychain.<table>``, named binds, no LIMIT, no date arithmetic) and does the rest in Python.
"Today" is the data's reference date, :data:`TODAY`, never the wall clock. The ``resolve_*``
helpers accept codes or names, case-insensitively; when nothing matches, the ToolError lists
close matches so the model can retry.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re

from agent_harness.supplychain.generate import REFERENCE_DATE
from agent_harness.supplychain.schema import OCEAN_REGIONS
from agent_harness.tools.readonly_sql import query
from agent_harness.tools.tool import ToolError

__all__ = [
    "TODAY",
    "VESSELS_SQL",
    "PORTS_SQL",
    "VOYAGES_SQL",
    "LATEST_POSITIONS_SQL",
    "query",
    "to_date",
    "to_datetime",
    "iso_date",
    "usd",
    "cents",
    "cents_sum",
    "required_text",
    "close_matches",
    "only_match",
    "resolve_vessel",
    "resolve_port",
    "resolve_voyage",
    "resolve_carrier",
    "resolve_region",
    "container_number",
    "voyage_summary",
]

#: "Today" for every tool: the data's reference date.
TODAY = REFERENCE_DATE

# --- queries --------------------------------------------------------------------------------
VESSELS_SQL = (
    "SELECT v.imo_number, v.name, v.capacity_teu, v.deadweight_tons, v.year_built, v.flag,"
    " v.service_speed_knots, c.name AS carrier, c.scac_code"
    " FROM supplychain.vessels v JOIN supplychain.carriers c ON c.carrier_id = v.carrier_id"
)
PORTS_SQL = (
    "SELECT port_code, name, country, ocean_region, latitude, longitude, berths, max_draft_m"
    " FROM supplychain.ports"
)
VOYAGES_SQL = (
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
LATEST_POSITIONS_SQL = (
    "SELECT p.imo_number, v.name AS vessel, p.voyage_id, y.voyage_code, y.origin_port,"
    " y.dest_port, y.status, y.eta_date, p.recorded_at, p.latitude, p.longitude,"
    " p.speed_knots, p.heading_deg, p.nav_status"
    " FROM supplychain.vessel_positions p"
    " JOIN supplychain.vessels v ON v.imo_number = p.imo_number"
    " JOIN supplychain.voyages y ON y.voyage_id = p.voyage_id"
    " WHERE p.recorded_at = (SELECT MAX(q.recorded_at) FROM supplychain.vessel_positions q"
    " WHERE q.imo_number = p.imo_number)"
)


def to_date(value) -> dt.date | None:
    """A date from a query value: 'YYYY-MM-DD', an ISO timestamp (Oracle DATE) or a date."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])


def to_datetime(value) -> dt.datetime:
    """A naive datetime from a query value: an ISO timestamp string or a datetime."""
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None)
    return dt.datetime.fromisoformat(str(value).replace(" ", "T")[:19])


def iso_date(value) -> str | None:
    """A query value as 'YYYY-MM-DD', or None when it is empty."""
    day = to_date(value)
    return day.isoformat() if day else None


def usd(cents: float | int | None) -> float | None:
    """US cents as dollars, rounded to the cent; None stays None (a value the identity's
    access policy masks is unknown, not zero)."""
    return None if cents is None else round(cents / 100, 2)


def cents_sum(values) -> int | None:
    """The sum of amounts in cents; None when any is None (masked: the total is unknown)."""
    values = list(values)
    return None if any(v is None for v in values) else int(sum(values))


def cents(value) -> int | None:
    """An amount in cents as an int; None stays None (masked by the access policy)."""
    return None if value is None else int(value)


def required_text(value: str | None, what: str) -> str:
    """``value`` stripped; a ToolError naming ``what`` when it is empty."""
    text = (value or "").strip()
    if not text:
        raise ToolError(f"{what} is empty: give a name or a code")
    return text


def close_matches(text: str, options: list[str], n: int = 5) -> str:
    """Up to ``n`` options that look like ``text``, comma-separated ("none" if there are none)."""
    upper = {o.upper(): o for o in options if o}
    close = difflib.get_close_matches(text.upper(), list(upper), n=n, cutoff=0.4)
    close += [k for k in upper if k not in close and k[:3] == text.upper()[:3]][: n - len(close)]
    return ", ".join(upper[k] for k in close) if close else "none"


def only_match(rows: list[dict], text: str, what: str, key: str, label) -> dict:
    """The single row ``text`` means: the only match, or the one whose ``key`` equals it."""
    if len(rows) == 1:
        return rows[0]
    exact = [r for r in rows if str(r[key]).upper() == text.upper()]
    if len(exact) == 1:
        return exact[0]
    listed = "; ".join(label(r) for r in rows[:10])
    raise ToolError(f"{what} '{text}' matches {len(rows)}: {listed}. Give the exact one.")


def pick_by_code_or_name(
    rows: list[dict], text: str, what: str, code: str, table: str, hint: str
) -> dict:
    """The row whose ``code`` column equals ``text``, else the only row matched by name.

    Raises:
        ToolError: Nothing matched (with close names and codes from ``table``), or several.
    """
    by_code = [r for r in rows if r[code].upper() == text.upper()]
    if by_code:
        return by_code[0]
    if not rows:
        every = query(f"SELECT name, {code} FROM {table}")
        options = [r["name"] for r in every] + [r[code] for r in every]
        raise ToolError(
            f"no {what} '{text}'. Close matches: {close_matches(text, options)}. {hint}"
        )
    return only_match(rows, text, what, "name", lambda r: f"{r['name']} ({r[code]})")


def resolve_vessel(text: str) -> dict:
    """The one vessel row (:data:`VESSELS_SQL`) a name, part of a name or IMO number means."""
    text = required_text(text, "vessel")
    digits = re.fullmatch(r"(?:IMO\s*)?(\d{7})", text.upper())
    if digits:
        rows = query(VESSELS_SQL + " WHERE v.imo_number = :imo", imo=int(digits.group(1)))
    else:
        rows = query(VESSELS_SQL + " WHERE UPPER(v.name) LIKE UPPER(:pat)", pat=f"%{text}%")
    if not rows:
        names = [r["name"] for r in query("SELECT name FROM supplychain.vessels")]
        raise ToolError(
            f"no vessel named or numbered '{text}'. Close matches: {close_matches(text, names)}."
            " Use find_vessel with part of the name, or a 7-digit IMO number."
        )
    return only_match(
        rows, text, "vessel", "name", lambda r: f"{r['name']} (IMO {r['imo_number']})"
    )


def resolve_port(text: str) -> dict:
    """The one port row (:data:`PORTS_SQL`) a UN/LOCODE, name or country means."""
    text = required_text(text, "port")
    rows = query(
        PORTS_SQL + " WHERE UPPER(port_code) = UPPER(:code) OR UPPER(country) = UPPER(:code)"
        " OR UPPER(name) LIKE UPPER(:pat) ORDER BY port_code",
        code=text,
        pat=f"%{text}%",
    )
    return pick_by_code_or_name(
        rows,
        text,
        "port",
        "port_code",
        "supplychain.ports",
        "Give a UN/LOCODE (e.g. CNSHA, NLRTM) or a port name.",
    )


def resolve_voyage(text: str) -> dict:
    """The voyage row (:data:`VOYAGES_SQL`) of a voyage_code or numeric voyage_id."""
    text = required_text(text, "voyage")
    if text.isdigit():
        rows = query(VOYAGES_SQL + " WHERE y.voyage_id = :vid", vid=int(text))
    else:
        rows = query(VOYAGES_SQL + " WHERE UPPER(y.voyage_code) = UPPER(:code)", code=text)
    if not rows:
        codes = [r["voyage_code"] for r in query("SELECT voyage_code FROM supplychain.voyages")]
        raise ToolError(
            f"no voyage '{text}'. Give a voyage_code like 'MAE-2514W' or a numeric voyage_id."
            f" Close matches: {close_matches(text, codes)}."
        )
    return rows[0]


def resolve_carrier(text: str) -> dict:
    """The one carrier row a SCAC code, name or part of a name means."""
    text = required_text(text, "carrier")
    rows = query(
        "SELECT carrier_id, name, scac_code, country, headquarters, founded_year"
        " FROM supplychain.carriers"
        " WHERE UPPER(scac_code) = UPPER(:code) OR UPPER(name) LIKE UPPER(:pat)",
        code=text,
        pat=f"%{text}%",
    )
    return pick_by_code_or_name(
        rows,
        text,
        "carrier",
        "scac_code",
        "supplychain.carriers",
        "Give a name or a 4-letter SCAC code (e.g. MAEU, MSCU).",
    )


def resolve_region(value: str | None) -> str | None:
    """An ocean region in upper case, or None (all regions) when ``value`` is empty."""
    if value is None or not value.strip():
        return None
    region = value.strip().upper()
    if region not in OCEAN_REGIONS:
        raise ToolError(
            f"unknown ocean region '{value}'. Use one of: {', '.join(OCEAN_REGIONS)}"
            " (or leave it empty for all)."
        )
    return region


def container_number(text: str) -> str:
    """An ISO 6346 container number without spaces or dashes, in upper case."""
    number = re.sub(r"[\s\-/]", "", required_text(text, "container_no")).upper()
    if not re.fullmatch(r"[A-Z]{4}\d{7}", number):
        raise ToolError(
            f"'{text}' is not an ISO 6346 container number: 4 letters then 7 digits,"
            " e.g. MSCU1234566."
        )
    return number


def voyage_summary(row: dict) -> dict:
    """A voyage row as the tools show it, with its timing relative to today."""
    eta, arrival = to_date(row["eta_date"]), to_date(row["actual_arrival_date"])
    summary = {
        "voyage_id": row["voyage_id"],
        "voyage_code": row["voyage_code"],
        "vessel": row["vessel"],
        "imo_number": row["imo_number"],
        "carrier": row["carrier"],
        "origin": {"port_code": row["origin_port"], "name": row["origin_name"]},
        "destination": {"port_code": row["dest_port"], "name": row["dest_name"]},
        "departure_date": iso_date(row["departure_date"]),
        "eta_date": iso_date(eta),
        "actual_arrival_date": iso_date(arrival),
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
