"""The SUPPLYCHAIN demo data: shape, integrity, determinism and realism."""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter, defaultdict

import pytest

from agent_harness.supplychain import ENUMS, REFERENCE_DATE, TABLES, data_digest, generate, table
from agent_harness.supplychain.generate import (
    CARRIERS,
    PRODUCTS,
    imo_check_digit,
    iso6346_check_digit,
    sea_route,
)

# Regenerate on purpose when the data changes: python -c "from agent_harness.supplychain
# import data_digest; print(data_digest())"
PINNED_DIGEST = "82562581bd30d2117476799453f30a1d548cc8bc19abba2c07692f3d9a0a212d"

COUNTS = {
    "carriers": 15,
    "ports": 25,
    "vessels": 30,
    "voyages": 60,
    "vessel_positions": 80,
    "containers": 150,
    "cargo_items": 300,
}

# (name, lat_min, lat_max, lon_min, lon_max): boxes well inside continents; no ship is there.
LAND_BOXES = [
    ("Sahara", 18, 30, -5, 30),
    ("central Africa", -15, 8, 15, 35),
    ("southern Africa interior", -28, -18, 18, 30),
    ("Arabian interior", 18, 28, 42, 52),
    ("Anatolia", 37.5, 40.5, 30, 40),
    ("central Asia", 35, 55, 55, 100),
    ("inland China", 25, 40, 100, 115),
    ("Indian interior", 15, 28, 74, 84),
    ("Indochina", 14, 22, 100, 106),
    ("Borneo", -2, 4, 111, 117),
    ("Australian interior", -30, -20, 120, 145),
    ("North American interior", 35, 50, -115, -85),
    ("Mexican interior", 18, 28, -108, -98),
    ("South American interior", -20, -5, -65, -42),
    ("central Europe", 46.5, 52, 6, 25),
    ("Iberian interior", 38, 42.5, -7, -1),
]


@pytest.fixture(scope="module")
def data():
    return generate()


def rows_as_dicts(data, name):
    names = table(name).column_names
    return [dict(zip(names, row)) for row in data[name]]


@pytest.fixture(scope="module")
def db(data):
    return {t.name: rows_as_dicts(data, t.name) for t in TABLES}


def test_row_counts(data):
    assert {name: len(rows) for name, rows in data.items()} == COUNTS
    assert sum(COUNTS.values()) == 660


def test_rows_match_the_schema(data):
    kinds = {
        "text": (str,),
        "int": (int,),
        "decimal": (float, int),
        "date": (dt.date,),
        "timestamp": (dt.datetime,),
    }
    for t in TABLES:
        for row in data[t.name]:
            assert len(row) == len(t.columns)
            for column, value in zip(t.columns, row):
                where = f"{t.name}.{column.name}"
                if value is None:
                    assert column.nullable, f"{where} is NULL"
                    continue
                assert isinstance(value, kinds[column.type]), f"{where}: {value!r}"
                assert not isinstance(value, bool), where
                if column.type == "text":
                    assert len(value) <= column.length, f"{where} longer than {column.length}"
                if column.type == "date":
                    assert not isinstance(value, dt.datetime), where
                if column.type == "timestamp":
                    assert value.microsecond == 0 and value.tzinfo is None, where
                if column.type == "decimal":
                    assert round(value, column.scale) == value, f"{where} not at its scale"
                    assert abs(value) < 10 ** (column.length - column.scale), where


def test_primary_keys_are_unique(db):
    for t in TABLES:
        keys = [r[t.primary_key] for r in db[t.name]]
        assert len(keys) == len(set(keys)), t.name
        for column in t.unique:
            values = [r[column] for r in db[t.name]]
            assert len(values) == len(set(values)), f"{t.name}.{column}"


def test_every_foreign_key_resolves(db):
    checked = 0
    for t in TABLES:
        for fk in t.foreign_keys:
            targets = {r[fk.ref_column] for r in db[fk.ref_table]}
            for row in db[t.name]:
                assert row[fk.column] in targets, f"{t.name}.{fk.column}={row[fk.column]}"
                checked += 1
    assert checked > 600


def test_generation_is_deterministic():
    assert generate() == generate()
    assert data_digest() == data_digest() == PINNED_DIGEST


def test_pinned_iso_invariants(db):
    assert REFERENCE_DATE.isoformat() == "2025-06-01"
    newest = max(p["recorded_at"] for p in db["vessel_positions"])
    assert newest.isoformat() <= "2025-06-01T00:00:00"
    assert newest.isoformat() >= "2025-05-31T00:00:00"
    first = db["voyages"][0]
    assert first["voyage_code"] == "MAE-2514W"
    assert first["departure_date"].isoformat() == "2025-04-02"


def test_imo_numbers_have_valid_check_digits(db):
    assert imo_check_digit(932148) == 3  # EMMA MAERSK, IMO 9321483
    for vessel in db["vessels"]:
        imo = str(vessel["imo_number"])
        assert len(imo) == 7
        assert int(imo[6]) == imo_check_digit(imo[:6]), imo


def test_container_numbers_follow_iso_6346(db):
    assert iso6346_check_digit("CSQU305438") == 3  # the standard's example, CSQU3054383
    owners = {code for c in CARRIERS for code in c[6]}
    for box in db["containers"]:
        number = box["container_no"]
        assert len(number) == 11 and number[:4].isalpha() and number[4:].isdigit()
        assert number[3] == "U", number
        assert number[:4] in owners, number
        assert int(number[10]) == iso6346_check_digit(number[:10]), number


def test_every_enumerated_value_appears(db):
    for (name, column), allowed in ENUMS.items():
        seen = Counter(r[column] for r in db[name])
        assert set(seen) == set(allowed), f"{name}.{column}: {seen}"


def test_every_table_and_column_is_documented():
    for t in TABLES:
        assert len(t.comment) > 30, t.name
        for column in t.columns:
            assert len(column.comment) > 15, f"{t.name}.{column.name}"


def test_every_catalogue_item_is_reachable(db):
    """Every port, carrier, ship and product is used, and every voyage carries cargo."""
    assert {v["origin_port"] for v in db["voyages"]} | {v["dest_port"] for v in db["voyages"]} == {
        p["port_code"] for p in db["ports"]
    }
    assert {v["carrier_id"] for v in db["vessels"]} == {c["carrier_id"] for c in db["carriers"]}
    assert {v["imo_number"] for v in db["voyages"]} == {v["imo_number"] for v in db["vessels"]}
    assert {c["voyage_id"] for c in db["containers"]} == {v["voyage_id"] for v in db["voyages"]}
    assert {i["container_no"] for i in db["cargo_items"]} == {
        c["container_no"] for c in db["containers"]
    }
    assert {i["hs_code"] for i in db["cargo_items"]} == {p.hs_code for p in PRODUCTS}


def test_the_surprising_columns_say_so_loudly():
    teu = table("vessels").column("capacity_teu").comment
    assert teu.startswith("Capacity in TEU (twenty-foot equivalent units), NOT tons")
    cents = table("cargo_items").column("unit_value_cents").comment
    assert cents.startswith("Unit value in US cents, NOT dollars: divide by 100 for dollars")


def test_carriers_and_ports_are_real(db):
    scac = {c["name"]: c["scac_code"] for c in db["carriers"]}
    assert scac["A.P. Moller-Maersk"] == "MAEU"
    assert scac["MSC Mediterranean Shipping Company"] == "MSCU"
    ports = {p["port_code"]: p for p in db["ports"]}
    assert ports["CNSHA"]["ocean_region"] == "PACIFIC"
    assert ports["NLRTM"]["ocean_region"] == "ATLANTIC"
    assert ports["AEJEA"]["ocean_region"] == "INDIAN"
    assert ports["GRPIR"]["ocean_region"] == "MEDITERRANEAN"
    assert abs(ports["NLRTM"]["latitude"] - 51.95) < 0.1
    assert abs(ports["USLAX"]["longitude"] + 118.27) < 0.1
    for code in ports:
        assert code[:2].isalpha() and code.isupper() and len(code) == 5


def test_vessels_are_plausible(db):
    for v in db["vessels"]:
        assert 1000 <= v["capacity_teu"] <= 24000, v["name"]
        assert 8 <= v["deadweight_tons"] / v["capacity_teu"] <= 16, v["name"]
        assert 2000 <= v["year_built"] <= 2025
        assert 18 <= v["service_speed_knots"] <= 26


def test_voyage_dates_fit_their_status(db):
    today = REFERENCE_DATE
    for v in db["voyages"]:
        assert v["departure_date"] < v["eta_date"], v["voyage_code"]
        status = v["status"]
        if status == "COMPLETED":
            assert v["actual_arrival_date"] < today
            assert v["actual_arrival_date"] > v["departure_date"]
        else:
            assert v["actual_arrival_date"] is None, v["voyage_code"]
        if status == "SCHEDULED":
            assert v["departure_date"] > today
        if status == "ACTIVE":
            assert v["departure_date"] < today < v["eta_date"]
        if status == "DELAYED":
            assert v["departure_date"] < today and v["eta_date"] <= today + dt.timedelta(days=1)


def test_a_vessels_voyages_do_not_overlap(db):
    by_vessel = defaultdict(list)
    for v in db["voyages"]:
        by_vessel[v["imo_number"]].append(v)
    for voyages in by_vessel.values():
        voyages.sort(key=lambda v: v["departure_date"])
        for before, after in zip(voyages, voyages[1:]):
            end = before["actual_arrival_date"] or before["eta_date"]
            assert end <= after["departure_date"], (before["voyage_code"], after["voyage_code"])
            assert before["dest_port"] == after["origin_port"]
        assert sum(v["status"] in ("ACTIVE", "DELAYED") for v in voyages) <= 1


def test_distances_and_regions_follow_the_sea_route(db):
    for v in db["voyages"]:
        route = sea_route(v["origin_port"], v["dest_port"])
        assert v["distance_nm"] == round(route.distance_nm), v["voyage_code"]
        assert v["ocean_region"] == route.region, v["voyage_code"]
        assert v["origin_port"] != v["dest_port"]
    # sea routes are longer than great circles, but not absurdly so
    route = sea_route("CNSHA", "NLRTM")
    assert "SUEZ" in route.waypoints and "BAB_EL_MANDEB" in route.waypoints
    assert 10300 < route.distance_nm < 10800
    assert "CAPE" in sea_route("SGSIN", "BRSSZ").waypoints
    assert "GATUN_LAKE" in sea_route("CNSHA", "USSAV").waypoints


def test_positions_track_active_and_delayed_voyages(db):
    voyages = {v["voyage_id"]: v for v in db["voyages"]}
    per_voyage = Counter(p["voyage_id"] for p in db["vessel_positions"])
    at_sea = {v["voyage_id"] for v in db["voyages"] if v["status"] in ("ACTIVE", "DELAYED")}
    assert set(per_voyage) == at_sea
    assert all(3 <= n <= 5 for n in per_voyage.values())
    today = dt.datetime.combine(REFERENCE_DATE, dt.time())
    for p in db["vessel_positions"]:
        v = voyages[p["voyage_id"]]
        assert p["imo_number"] == v["imo_number"]
        assert p["recorded_at"] <= today
        if p["nav_status"] == "UNDER_WAY":
            assert 8 <= p["speed_knots"] <= 25
        else:
            assert p["speed_knots"] <= 0.5
    tracks = defaultdict(list)
    for p in db["vessel_positions"]:
        tracks[p["voyage_id"]].append(p["recorded_at"])
    for times in tracks.values():  # stored oldest first, at least an hour apart
        assert all(
            later - earlier >= dt.timedelta(hours=1) for earlier, later in zip(times, times[1:])
        )
    newest = {}
    for p in db["vessel_positions"]:
        newest[p["voyage_id"]] = max(newest.get(p["voyage_id"], p["recorded_at"]), p["recorded_at"])
    assert all(today - t < dt.timedelta(hours=12) for t in newest.values())


def test_no_position_is_on_land(db):
    for p in db["vessel_positions"]:
        for name, la0, la1, lo0, lo1 in LAND_BOXES:
            inside = la0 <= p["latitude"] <= la1 and lo0 <= p["longitude"] <= lo1
            assert not inside, f"position {p['position_id']} is in the {name}"


def test_positions_lie_on_the_route_heading_the_right_way(db):
    voyages = {v["voyage_id"]: v for v in db["voyages"]}
    for p in db["vessel_positions"]:
        v = voyages[p["voyage_id"]]
        route = sea_route(v["origin_port"], v["dest_port"])
        s = route.locate(p["latitude"], p["longitude"])
        lat, lon, _, _ = route.point_at(s)
        assert math.hypot(lat - p["latitude"], lon - p["longitude"]) < 0.05, p["position_id"]
        if p["nav_status"] == "UNDER_WAY":
            courses = [route.point_at(s + d)[2] for d in (-2, 0, 2)]
            gaps = [abs((p["heading_deg"] - c + 180) % 360 - 180) for c in courses]
            assert min(gaps) <= 8, (p["position_id"], p["heading_deg"], courses)
        if p["nav_status"] == "AT_ANCHOR":
            assert abs(s - route.anchorage_nm) < 5


def test_container_contents_fit_the_container(db):
    items = defaultdict(list)
    for item in db["cargo_items"]:
        items[item["container_no"]].append(item)
    hs = {p.hs_code: p for p in PRODUCTS}
    voyage_status = {v["voyage_id"]: v["status"] for v in db["voyages"]}
    expected = {"COMPLETED": {"DISCHARGED", "CUSTOMS_HOLD"}, "SCHEDULED": {"LOADED"}}
    for box in db["containers"]:
        lines = items[box["container_no"]]
        assert 1 <= len(lines) <= 4
        assert box["gross_weight_kg"] <= 30480
        assert box["size_ft"] in (20, 40)
        status = voyage_status[box["voyage_id"]]
        assert box["status"] in expected.get(status, {"IN_TRANSIT"}), box["container_no"]
        if box["container_type"] == "REEFER":
            assert -25 <= box["reefer_temp_c"] <= 13
            assert all(hs[i["hs_code"]].temp_c == box["reefer_temp_c"] for i in lines)
            assert all(i["hs_code"][:2] in ("02", "03", "04", "08", "30") for i in lines)
        else:
            assert box["reefer_temp_c"] is None
        if box["container_type"] == "HAZMAT":
            assert box["hazmat_class"] in ("2.1", "3", "5.1", "6.1", "8", "9")
            assert all(i["un_number"] and i["un_number"].startswith("UN") for i in lines)
            assert {hs[i["hs_code"]].hazmat_class for i in lines} == {box["hazmat_class"]}
        else:
            assert box["hazmat_class"] is None
            assert all(i["un_number"] is None for i in lines)
    assert sum(b["status"] == "CUSTOMS_HOLD" for b in db["containers"]) == 6


def test_cargo_codes_values_and_weights_are_realistic(db):
    hs = {p.hs_code: p for p in PRODUCTS}
    for item in db["cargo_items"]:
        product = hs[item["hs_code"]]
        assert len(item["hs_code"]) == 6 and item["hs_code"].isdigit()
        assert item["description"] == product.description
        low, high = product.usd
        assert low * 100 * 0.99 <= item["unit_value_cents"] <= high * 100 * 1.01
        assert item["quantity"] >= 1 and item["weight_kg"] > 0
    laptops = [i for i in db["cargo_items"] if i["hs_code"] == "847130"]
    assert laptops and all(30000 <= i["unit_value_cents"] <= 120000 for i in laptops)
    assert {"080390", "030617", "320810"} <= {p.hs_code for p in PRODUCTS}
    assert next(p for p in PRODUCTS if p.hs_code == "320810").un_number == "UN1263"
