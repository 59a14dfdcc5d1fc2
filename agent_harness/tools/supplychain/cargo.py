"""Cargo tools: containers, their manifests and declared values, holds, hazmat and reefers."""

from __future__ import annotations

from agent_harness.supplychain.reference_data import iso6346_check_digit
from agent_harness.tools.supplychain.lookups import (
    TODAY,
    cents,
    cents_sum,
    close_matches,
    container_number,
    query,
    required_text,
    resolve_port,
    resolve_voyage,
    to_date,
    usd,
)
from agent_harness.tools.tool import ToolError

#: The category of every tool in this module (``Tool.from_function`` reads it).
TOOL_CATEGORY = "cargo"

__all__ = [
    "UN_CLASSES",
    "container_manifest",
    "containers_on_hold",
    "cargo_value",
    "hazmat_containers",
    "reefer_containers",
    "consignee_shipments",
]

#: UN dangerous-goods classes, by class number.
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
    rows = query(
        "SELECT i.container_no, SUM(i.quantity * i.unit_value_cents) AS cents"
        " FROM supplychain.cargo_items i GROUP BY i.container_no"
    )
    wanted = set(container_nos)
    return {r["container_no"]: cents(r["cents"]) for r in rows if r["container_no"] in wanted}


_UNVALUED = object()


def _container_brief(row: dict, value=_UNVALUED) -> dict:
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
    if value is not _UNVALUED:  # None: masked by the identity's access policy
        brief["value_cents"] = value
        brief["value_usd"] = usd(value)
    return brief


def container_manifest(container_no: str) -> dict:
    """One container (ISO 6346 number, e.g. "MSCU1234566") with its voyage and every cargo
    line: HS code, description, quantity, unit value in cents and dollars, weight in kg and
    UN number; plus totals of quantity, weight (kg) and value in US dollars AND in cents.

    Args:
        container_no: The 11-character container number (spaces or dashes are ignored).
    """
    number = container_number(container_no)
    rows = query(_CONTAINERS + " WHERE c.container_no = :cno", cno=number)
    if not rows:
        numbers = [
            r["container_no"] for r in query("SELECT container_no FROM supplychain.containers")
        ]
        check = iso6346_check_digit(number[:10])
        hint = "" if str(check) == number[10] else f" (its check digit should be {check}: a typo?)"
        raise ToolError(
            f"no container {number}{hint}. Close matches: {close_matches(number, numbers)}."
            " Use consignee_shipments or cargo_value to find containers."
        )
    box = rows[0]
    items = []
    for item in query(_ITEMS + " WHERE i.container_no = :cno ORDER BY i.item_id", cno=number):
        unit = item["unit_value_cents"]
        line_cents = None if unit is None else item["quantity"] * unit
        items.append(
            {
                **{k: item[k] for k in ("item_id", "hs_code", "description", "quantity")},
                "unit_value_cents": item["unit_value_cents"],
                "unit_value_usd": usd(item["unit_value_cents"]),
                "line_value_cents": line_cents,
                "line_value_usd": usd(line_cents),
                "weight_kg": item["weight_kg"],
                "un_number": item["un_number"],
            }
        )
    total_cents = cents_sum(i["line_value_cents"] for i in items)
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
            "value_usd": usd(total_cents),
        },
    }


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
        where = resolve_port(port)
        sql += " AND (y.origin_port = :code OR y.dest_port = :code)"
        rows = query(sql + " ORDER BY c.container_no", code=where["port_code"])
    else:
        rows = query(sql + " ORDER BY c.container_no")
    values = _values_by_container([r["container_no"] for r in rows])
    held = []
    for row in rows:
        brief = _container_brief(row, values.get(row["container_no"], 0))
        arrived = to_date(row["actual_arrival_date"])
        brief["held_at"] = row["dest_port"]
        brief["days_held"] = (TODAY - arrived).days if arrived else None
        held.append(brief)
    return {
        "as_of": TODAY.isoformat(),
        "port": where["port_code"] if where else "ALL",
        "count": len(held),
        "total_value_usd": usd(cents_sum(h["value_cents"] for h in held)),
        "containers": held,
    }


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
        number = container_number(container_no)
        manifest = container_manifest(number)
        return {
            "container_no": number,
            "voyage_code": manifest["voyage_code"],
            "lines": manifest["totals"]["lines"],
            "value_cents": manifest["totals"]["value_cents"],
            "value_usd": manifest["totals"]["value_usd"],
        }
    trip = resolve_voyage(voyage)
    rows = query(
        "SELECT c.container_no, c.container_type, COUNT(i.item_id) AS lines,"
        " SUM(i.quantity * i.unit_value_cents) AS cents"
        " FROM supplychain.containers c"
        " JOIN supplychain.cargo_items i ON i.container_no = c.container_no"
        " WHERE c.voyage_id = :vid GROUP BY c.container_no, c.container_type"
        " ORDER BY c.container_no",
        vid=trip["voyage_id"],
    )
    total = cents_sum(r["cents"] for r in rows)
    return {
        "voyage_code": trip["voyage_code"],
        "vessel": trip["vessel"],
        "containers": len(rows),
        "lines": sum(r["lines"] for r in rows),
        "value_cents": total,
        "value_usd": usd(total),
        "by_container": [
            {
                "container_no": r["container_no"],
                "container_type": r["container_type"],
                "value_cents": cents(r["cents"]),
                "value_usd": usd(r["cents"]),
            }
            for r in rows
        ],
    }


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
    trip = resolve_voyage(voyage) if voyage and voyage.strip() else None
    if trip:
        rows = query(
            sql + " AND c.voyage_id = :vid ORDER BY c.container_no, i.item_id",
            vid=trip["voyage_id"],
        )
    else:
        rows = query(sql + " ORDER BY c.container_no, i.item_id")
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
    rows = query(sql + " ORDER BY c.reefer_temp_c, c.container_no", **binds)
    goods: dict[str, list[str]] = {}
    for item in query(
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


def consignee_shipments(consignee: str) -> dict:
    """Containers addressed to a consignee (receiver) whose name contains the text, case-
    insensitive: container, type, voyage and its status, container status and declared value
    in US dollars and cents.

    Args:
        consignee: Part of the receiving company's name, e.g. "Van Dijk" or "Hanseatic".
    """
    text = required_text(consignee, "consignee")
    rows = query(
        _CONTAINERS
        + " WHERE UPPER(c.consignee) LIKE UPPER(:pat) ORDER BY c.consignee, c.container_no",
        pat=f"%{text}%",
    )
    if not rows:
        names = [
            r["consignee"] for r in query("SELECT DISTINCT consignee FROM supplychain.containers")
        ]
        raise ToolError(
            f"no consignee matches '{text}'. Close matches: {close_matches(text, names)}."
        )
    values = _values_by_container([r["container_no"] for r in rows])
    shipments = [_container_brief(r, values.get(r["container_no"], 0)) for r in rows]
    return {
        "query": text,
        "consignees": sorted({r["consignee"] for r in rows}),
        "count": len(shipments),
        "total_value_usd": usd(cents_sum(s["value_cents"] for s in shipments)),
        "shipments": shipments,
    }
