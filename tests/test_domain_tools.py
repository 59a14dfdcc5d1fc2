"""The 20 SUPPLYCHAIN domain tools give the answers the data implies.

Expected values are computed in Python from ``generate()`` and compared with what the tools
return through ``harness.tools.call`` (JSON text, as the model sees it), using the session
``harness`` fixture of tests/conftest.py.
"""

from __future__ import annotations

import datetime as dt
import inspect
import json
from collections import defaultdict

import pytest

from agent_harness.supplychain import REFERENCE_DATE, TABLES, generate
from agent_harness.supplychain.generate import haversine_nm, sea_route

TOOLS = {
    "find_vessel": [("name", None)],
    "vessel_position": [("vessel", None)],
    "vessels_near_port": [("port", None), ("radius_nm", 500.0)],
    "port_info": [("port", None)],
    "port_distance": [("from_port", None), ("to_port", None)],
    "voyage_status": [("voyage", None)],
    "delayed_voyages": [("ocean_region", None)],
    "voyages_between": [("origin", None), ("destination", None)],
    "container_manifest": [("container_no", None)],
    "containers_on_hold": [("port", None)],
    "cargo_value": [("voyage", None), ("container_no", None)],
    "carrier_fleet": [("carrier", None)],
    "hs_code_lookup": [("hs_code", None)],
    "eta_estimate": [("vessel", None)],
    "convert_units": [("value", None), ("from_unit", None), ("to_unit", None)],
    "hazmat_containers": [("voyage", None)],
    "reefer_containers": [("min_temp_c", None), ("max_temp_c", None)],
    "consignee_shipments": [("consignee", None)],
    "port_congestion": [("port", None)],
    "fleet_capacity_by_region": [("ocean_region", None)],
}


def call(harness, tool: str, /, **args) -> dict:
    """Call a tool as the model would and decode its JSON answer."""
    return json.loads(harness.tools.call(tool, args))


@pytest.fixture(scope="module")
def db():
    rows = generate()
    return {t.name: [dict(zip(t.column_names, r)) for r in rows[t.name]] for t in TABLES}


@pytest.fixture(scope="module")
def latest(db):
    """The newest position of each vessel."""
    newest = {}
    for p in db["vessel_positions"]:
        if (
            p["imo_number"] not in newest
            or p["recorded_at"] > newest[p["imo_number"]]["recorded_at"]
        ):
            newest[p["imo_number"]] = p
    return newest


def voyage_of(db, code):
    return next(v for v in db["voyages"] if v["voyage_code"] == code)


def line_values(db):
    values = defaultdict(int)
    for item in db["cargo_items"]:
        values[item["container_no"]] += item["quantity"] * item["unit_value_cents"]
    return values


def test_the_twenty_tools_are_registered_with_their_signatures(harness):
    from agent_harness.tools import supplychain as domain

    assert sorted(f.__name__ for f in domain.DOMAIN_TOOLS) == sorted(TOOLS)
    built = {t.name: t for t in domain.tools()}
    assert sorted(built) == sorted([*TOOLS, "ais_live_position"])
    for name, params in TOOLS.items():
        assert harness.tools.get(name) is built[name], name
        signature = inspect.signature(getattr(domain, name))
        got = [
            (p.name, None if p.default is inspect.Parameter.empty else p.default)
            for p in signature.parameters.values()
        ]
        assert got == params, name
        assert built[name].description, name


def test_find_vessel_by_name_and_imo(harness, db):
    result = call(harness, "find_vessel", name="maersk")
    expected = sorted(v["name"] for v in db["vessels"] if "MAERSK" in v["name"])
    assert [v["name"] for v in result["vessels"]] == expected
    ship = db["vessels"][0]
    by_imo = call(harness, "find_vessel", name=str(ship["imo_number"]))
    assert by_imo["count"] == 1
    assert by_imo["vessels"][0]["capacity_teu"] == ship["capacity_teu"]
    assert "error" in call(harness, "find_vessel", name="TITANIC")
    assert "CELESTINA" in call(harness, "vessel_position", vessel="MSC CELESTIN")["vessel"]


def test_vessel_position_is_the_latest_fix(harness, db, latest):
    for imo, fix in latest.items():
        result = call(harness, "vessel_position", vessel=str(imo))
        assert result["recorded_at"] == fix["recorded_at"].isoformat()
        assert result["latitude"] == pytest.approx(fix["latitude"])
        assert result["nav_status"] == fix["nav_status"]
        ports = db["ports"]
        nearest = min(
            ports,
            key=lambda p: haversine_nm(
                (fix["latitude"], fix["longitude"]), (p["latitude"], p["longitude"])
            ),
        )
        assert result["nearest_port"]["port_code"] == nearest["port_code"]
    in_port = next(v for v in db["vessels"] if v["imo_number"] not in latest)
    result = call(harness, "vessel_position", vessel=in_port["name"])
    assert result["position"] is None and "in_port" in result
    assert "error" in call(harness, "vessel_position", vessel="MSC")  # three MSC ships


def test_vessels_near_port_are_within_the_radius_nearest_first(harness, db, latest):
    la = next(p for p in db["ports"] if p["port_code"] == "USLAX")
    expected = sorted(
        (haversine_nm((la["latitude"], la["longitude"]), (f["latitude"], f["longitude"])), imo)
        for imo, f in latest.items()
    )
    expected = [imo for nm, imo in expected if nm <= 1500]
    result = call(harness, "vessels_near_port", port="los angeles", radius_nm=1500)
    assert [v["imo_number"] for v in result["vessels"]] == expected
    assert expected, "some ship should be near Los Angeles"
    assert "error" in call(harness, "vessels_near_port", port="USLAX", radius_nm=-5)


def test_port_info_counts_voyages(harness, db):
    result = call(harness, "port_info", port="Rotterdam")
    assert result["port_code"] == "NLRTM" and result["ocean_region"] == "ATLANTIC"
    departing = sum(v["origin_port"] == "NLRTM" for v in db["voyages"])
    arriving = sum(v["dest_port"] == "NLRTM" for v in db["voyages"])
    assert result["voyages_departing"]["total"] == departing
    assert result["voyages_arriving"]["total"] == arriving
    assert "error" in call(harness, "port_info", port="Atlantis")


def test_port_distance_is_great_circle(harness, db):
    ports = {p["port_code"]: p for p in db["ports"]}
    a, b = ports["CNSHA"], ports["NLRTM"]
    nm = haversine_nm((a["latitude"], a["longitude"]), (b["latitude"], b["longitude"]))
    result = call(harness, "port_distance", from_port="Shanghai", to_port="NLRTM")
    assert result["great_circle_nm"] == pytest.approx(nm, abs=0.1)
    assert result["great_circle_km"] == pytest.approx(nm * 1.852, abs=0.2)
    assert result["sea_route_nm"] > result["great_circle_nm"]
    assert "great-circle" in result["note"]


def test_voyage_status_by_code_and_id(harness, db):
    delayed = next(v for v in db["voyages"] if v["status"] == "DELAYED")
    result = call(harness, "voyage_status", voyage=delayed["voyage_code"].lower())
    assert result["voyage_id"] == delayed["voyage_id"]
    assert result["days_late"] == (REFERENCE_DATE - delayed["eta_date"]).days
    assert result["eta_date"] == delayed["eta_date"].isoformat()
    same = call(harness, "voyage_status", voyage=str(delayed["voyage_id"]))
    assert same["voyage_code"] == delayed["voyage_code"]
    assert "error" in call(harness, "voyage_status", voyage="XXX-9999Q")


def test_delayed_voyages_match_the_data(harness, db):
    expected = {
        v["voyage_code"]: (REFERENCE_DATE - v["eta_date"]).days
        for v in db["voyages"]
        if v["status"] == "DELAYED"
    }
    result = call(harness, "delayed_voyages")
    assert {v["voyage_code"]: v["days_overdue"] for v in result["voyages"]} == expected
    overdue = [v["days_overdue"] for v in result["voyages"]]
    assert overdue == sorted(overdue, reverse=True)
    pacific = call(harness, "delayed_voyages", ocean_region="pacific")
    assert {v["voyage_code"] for v in pacific["voyages"]} == {
        v["voyage_code"]
        for v in db["voyages"]
        if v["status"] == "DELAYED" and v["ocean_region"] == "PACIFIC"
    }
    error = call(harness, "delayed_voyages", ocean_region="Arctic")["error"]
    assert "MEDITERRANEAN" in error


def test_voyages_between_two_ports(harness, db):
    result = call(harness, "voyages_between", origin="Busan", destination="los angeles")
    expected = [
        v["voyage_code"]
        for v in db["voyages"]
        if (v["origin_port"], v["dest_port"]) == ("KRPUS", "USLAX")
    ]
    assert [v["voyage_code"] for v in result["voyages"]] == expected
    none = call(harness, "voyages_between", origin="Durban", destination="Tokyo")
    assert none["count"] == 0 and "note" in none


def test_container_manifest_totals(harness, db):
    values = line_values(db)
    box = max(db["containers"], key=lambda c: values[c["container_no"]])
    items = [i for i in db["cargo_items"] if i["container_no"] == box["container_no"]]
    result = call(harness, "container_manifest", container_no=box["container_no"].lower())
    assert [i["item_id"] for i in result["items"]] == [i["item_id"] for i in items]
    totals = result["totals"]
    assert totals["value_cents"] == values[box["container_no"]]
    assert totals["value_usd"] == pytest.approx(values[box["container_no"]] / 100)
    assert totals["quantity"] == sum(i["quantity"] for i in items)
    assert totals["weight_kg"] == pytest.approx(sum(i["weight_kg"] for i in items))
    assert "error" in call(harness, "container_manifest", container_no="not-a-box")
    wrong_digit = box["container_no"][:10] + str((int(box["container_no"][10]) + 1) % 10)
    assert "check digit" in call(harness, "container_manifest", container_no=wrong_digit)["error"]


def test_containers_on_hold(harness, db):
    held = {c["container_no"] for c in db["containers"] if c["status"] == "CUSTOMS_HOLD"}
    result = call(harness, "containers_on_hold")
    assert {c["container_no"] for c in result["containers"]} == held
    values = line_values(db)
    assert result["total_value_usd"] == pytest.approx(sum(values[c] for c in held) / 100)
    voyages = {v["voyage_id"]: v for v in db["voyages"]}
    box = next(c for c in db["containers"] if c["status"] == "CUSTOMS_HOLD")
    port = voyages[box["voyage_id"]]["dest_port"]
    at_port = call(harness, "containers_on_hold", port=port)
    assert box["container_no"] in {c["container_no"] for c in at_port["containers"]}
    assert all(port in (c["from"], c["to"]) for c in at_port["containers"])


def test_cargo_value_of_a_voyage_or_a_container(harness, db):
    values = line_values(db)
    voyage = db["voyages"][0]
    boxes = [c["container_no"] for c in db["containers"] if c["voyage_id"] == voyage["voyage_id"]]
    result = call(harness, "cargo_value", voyage=voyage["voyage_code"])
    assert result["value_cents"] == sum(values[b] for b in boxes)
    assert result["value_usd"] == pytest.approx(result["value_cents"] / 100)
    assert result["containers"] == len(boxes)
    one = call(harness, "cargo_value", container_no=boxes[0])
    assert one["value_cents"] == values[boxes[0]]
    assert "exactly one" in call(harness, "cargo_value")["error"]
    both = call(harness, "cargo_value", voyage=voyage["voyage_code"], container_no=boxes[0])
    assert "exactly one" in both["error"]


def test_carrier_fleet_totals(harness, db):
    maersk = next(c for c in db["carriers"] if c["scac_code"] == "MAEU")
    ships = [v for v in db["vessels"] if v["carrier_id"] == maersk["carrier_id"]]
    for text in ("MAEU", "maersk"):
        result = call(harness, "carrier_fleet", carrier=text)
        assert result["vessels"] == len(ships)
        assert result["total_capacity_teu"] == sum(v["capacity_teu"] for v in ships)
    assert "error" in call(harness, "carrier_fleet", carrier="White Star Line")


def test_hs_code_lookup(harness, db):
    from agent_harness.tools.supplychain.hs_codes import HS_CHAPTERS, HS_HEADINGS

    for item in db["cargo_items"]:  # the built-in tables cover every code in the data
        assert item["hs_code"][:2] in HS_CHAPTERS and item["hs_code"][:4] in HS_HEADINGS
    result = call(harness, "hs_code_lookup", hs_code="8471.30")
    assert result["chapter"]["code"] == "84" and result["heading"]["code"] == "8471"
    assert "Laptop" in result["subheading"]["title"]
    assert result["cargo"]["lines"] == sum(
        i["hs_code"].startswith("847130") for i in db["cargo_items"]
    )
    assert "error" in call(harness, "hs_code_lookup", hs_code="12345")
    assert "error" in call(harness, "hs_code_lookup", hs_code="99")


def test_eta_estimate_from_position_and_speed(harness, db, latest):
    voyages = {v["voyage_id"]: v for v in db["voyages"]}
    fix = next(f for f in latest.values() if f["nav_status"] == "UNDER_WAY")
    voyage = voyages[fix["voyage_id"]]
    route = sea_route(voyage["origin_port"], voyage["dest_port"])
    remaining = route.distance_nm - route.locate(fix["latitude"], fix["longitude"])
    result = call(harness, "eta_estimate", vessel=str(fix["imo_number"]))
    assert result["remaining_nm"] == pytest.approx(remaining, abs=2)
    arrival = fix["recorded_at"] + dt.timedelta(hours=remaining / fix["speed_knots"])
    estimated = dt.datetime.fromisoformat(result["estimated_arrival"])
    assert abs((estimated - arrival).total_seconds()) < 3 * 3600
    assert result["days_vs_schedule"] == (estimated.date() - voyage["eta_date"]).days
    anchored = next(f for f in latest.values() if f["nav_status"] == "AT_ANCHOR")
    waiting = call(harness, "eta_estimate", vessel=str(anchored["imo_number"]))
    assert waiting["estimated_arrival"] is None and waiting["remaining_nm"] < 30
    in_port = next(v for v in db["vessels"] if v["imo_number"] not in latest)
    assert "error" in call(harness, "eta_estimate", vessel=in_port["name"])


@pytest.mark.parametrize(
    "value, source, target, expected",
    [
        (100, "nm", "km", 185.2),
        (10, "km", "nm", 5.399568),
        (1, "mi", "km", 1.609344),
        (1, "t", "lb", 2204.622622),
        (2500, "kg", "t", 2.5),
        (3, "feu", "teu", 6),
        (12345, "cents", "usd", 123.45),
        (2, "USD", "cents", 200),
        (20, "knots", "kmh", 37.04),
        (20, "knots", "mph", 23.015589),
        (-18, "c", "f", -0.4),
        (32, "Fahrenheit", "celsius", 0),
    ],
)
def test_convert_units(harness, value, source, target, expected):
    result = call(harness, "convert_units", value=value, from_unit=source, to_unit=target)
    assert result["result"] == pytest.approx(expected, abs=1e-6)


def test_convert_units_refuses_bad_units(harness):
    unknown = call(harness, "convert_units", value=1, from_unit="furlong", to_unit="km")["error"]
    assert "furlong" in unknown and "nm" in unknown and "teu" in unknown
    teu = call(harness, "convert_units", value=1, from_unit="teu", to_unit="t")["error"]
    assert "not weight" in teu


def test_hazmat_containers_carry_un_numbers(harness, db):
    hazmat = {c["container_no"]: c for c in db["containers"] if c["container_type"] == "HAZMAT"}
    result = call(harness, "hazmat_containers")
    assert {c["container_no"] for c in result["containers"]} == set(hazmat)
    for box in result["containers"]:
        assert box["hazmat_class"] == hazmat[box["container_no"]]["hazmat_class"]
        assert box["un_numbers"] and all(u.startswith("UN") for u in box["un_numbers"])
    voyage_id = next(iter(hazmat.values()))["voyage_id"]
    one = call(harness, "hazmat_containers", voyage=str(voyage_id))
    assert {c["container_no"] for c in one["containers"]} == {
        n for n, c in hazmat.items() if c["voyage_id"] == voyage_id
    }


def test_reefer_containers_in_a_temperature_range(harness, db):
    frozen = {
        c["container_no"]
        for c in db["containers"]
        if c["container_type"] == "REEFER" and -25 <= c["reefer_temp_c"] <= -18
    }
    result = call(harness, "reefer_containers", min_temp_c=-25, max_temp_c=-18)
    assert {c["container_no"] for c in result["containers"]} == frozen
    everything = call(harness, "reefer_containers")
    assert everything["count"] == sum(c["container_type"] == "REEFER" for c in db["containers"])
    assert "error" in call(harness, "reefer_containers", min_temp_c=5, max_temp_c=-5)


def test_consignee_shipments(harness, db):
    values = line_values(db)
    mine = [c["container_no"] for c in db["containers"] if "VAN DIJK" in c["consignee"].upper()]
    result = call(harness, "consignee_shipments", consignee="van dijk")
    assert sorted(s["container_no"] for s in result["shipments"]) == sorted(mine)
    assert result["total_value_usd"] == pytest.approx(sum(values[c] for c in mine) / 100)
    assert "error" in call(harness, "consignee_shipments", consignee="Acme Widgets")


def test_port_congestion(harness, db, latest):
    voyages = {v["voyage_id"]: v for v in db["voyages"]}
    la = call(harness, "port_congestion", port="USLAX")
    delayed = {
        v["voyage_code"]
        for v in db["voyages"]
        if v["status"] == "DELAYED" and v["dest_port"] == "USLAX"
    }
    assert {d.split()[0] for d in la["delayed_inbound"]} == delayed
    anchored = {
        f["imo_number"]
        for f in latest.values()
        if f["nav_status"] == "AT_ANCHOR" and voyages[f["voyage_id"]]["dest_port"] == "USLAX"
    }
    names = {v["name"] for v in db["vessels"] if v["imo_number"] in anchored}
    assert set(la["waiting_at_anchor"]) == names
    held = sum(
        c["status"] == "CUSTOMS_HOLD" and voyages[c["voyage_id"]]["dest_port"] == "USLAX"
        for c in db["containers"]
    )
    assert la["containers_on_hold"] == held
    soon = {
        v["voyage_code"]
        for v in db["voyages"]
        if v["status"] in ("ACTIVE", "SCHEDULED")
        and 0 <= (v["eta_date"] - REFERENCE_DATE).days <= 7
    }
    overview = call(harness, "port_congestion")
    listed = {d.split()[0] for p in overview["ports"] for d in p["due_within_7_days"]}
    assert listed == soon
    scores = [p["score"] for p in overview["ports"]]
    assert scores == sorted(scores, reverse=True)


def test_fleet_capacity_by_region(harness, db):
    teu = {v["imo_number"]: v["capacity_teu"] for v in db["vessels"]}
    expected = defaultdict(int)
    for v in db["voyages"]:
        if v["status"] in ("ACTIVE", "DELAYED"):
            expected[v["ocean_region"]] += teu[v["imo_number"]]
    result = call(harness, "fleet_capacity_by_region")
    assert {
        r["ocean_region"]: r["capacity_teu"] for r in result["regions"] if r["capacity_teu"]
    } == dict(expected)
    indian = call(harness, "fleet_capacity_by_region", ocean_region="Indian")
    assert indian["total_capacity_teu"] == expected["INDIAN"]
    assert "error" in call(harness, "fleet_capacity_by_region", ocean_region="ARCTIC")
