"""Probes of 09_guardrails.

``row_predicate``: the probes run the student's predicate as the owner
(``SELECT <key> FROM supplychain.<table> WHERE <predicate>`` with the student's binds) for
probe-only identities (other regions and combinations of them, lower and mixed case,
duplicates, no regions, no ``regions`` key, roles that do not matter) on every table of the
policy, and record the sorted keys of the rows selected (or what was raised).

``voyage_document``: the probes read documents of other voyages than the visible checks, with
the owner's harness and with harnesses of probe identities (regions with and without the
finance role), and of probe-only voyages they add and remove (containers without cargo, with
items some of which have no value, no containers, more containers than ``max_rows``' default);
they record each document as plain data without its etag, and whether each etag is the one
the TODO describes for that very document.

``catalog_fingerprint``: the probes change the catalog in ways the visible checks do not
(other comments, the same comment written again, a table with two columns, a second table,
rows of other tables), undo every change, and record which fingerprints are equal.
"""

from dataclasses import replace

from grader.value_checks import Probe

# --- row_predicate ------------------------------------------------------------------------------
_ROW_SETUP = """
_KEYS = {"voyages": "voyage_id", "containers": "container_no", "cargo_items": "item_id",
         "vessel_positions": "position_id", "carriers": "carrier_id", "ports": "port_code",
         "vessels": "imo_number"}


def _keys(table, identity):
    try:
        got = row_predicate(table, identity)
    except Exception as e:
        return ["raised", type(e).__name__]
    if type(got) is not tuple or len(got) != 2 or type(got[0]) is not str or type(
            got[1]) is not dict:
        return {"shape": plain(got)}
    try:
        rows = h.backend.readonly_query(
            f"SELECT {_KEYS[table]} FROM supplychain.{table} WHERE {got[0]}", dict(got[1]),
            max_rows=100_000).rows
    except Exception as e:
        return ["sql failed", type(e).__name__]
    return sorted(plain(r[0]) for r in rows)


def _who(regions, **more):
    return {"user": "probe9", "roles": ["analyst"], "regions": regions, **more}
"""

_R_REGIONS = """
value = [
    _keys("voyages", _who(["INDIAN"])),
    _keys("voyages", _who(["MEDITERRANEAN", "PACIFIC"])),
    _keys("voyages", _who(["ATLANTIC", "INDIAN", "MEDITERRANEAN", "PACIFIC"])),
    _keys("voyages", {"user": "probe9", "roles": ["finance"], "regions": ["PACIFIC"]}),
    _keys("voyages", None),
    _keys("containers", None),
    _keys("vessel_positions", None),
    _keys("carriers", _who(["MEDITERRANEAN"])),
    _keys("ports", _who(["INDIAN", "PACIFIC"])),
    _keys("vessels", None),
]
"""

_R_BOUNDARIES = """
value = [
    _keys("voyages", _who([])),
    _keys("vessel_positions", _who([])),
    _keys("cargo_items", _who([])),
    _keys("cargo_items", {"user": "probe9", "roles": ["finance"]}),
    _keys("containers", {"user": "probe9"}),
    _keys("carriers", _who([])),
    _keys("vessels", {"user": "probe9"}),
    _keys("voyages", _who(["indian"])),
    _keys("voyages", _who(["Mediterranean", "MEDITERRANEAN", "pacific"])),
    _keys("containers", _who(["atlantic"])),
    _keys("memories", _who(["ATLANTIC"])),
    _keys("turn_events", None),
    _keys("", _who(["INDIAN"])),
    _keys("cargo_items", {}),
    _keys("vessel_positions", {}),
    _keys("CONTAINERS", _who(["ATLANTIC"])),
    _keys("Ports", None),
]
"""

_R_LINEAGE = """
value = []
for _regions in (["INDIAN"], ["MEDITERRANEAN"], ["PACIFIC", "INDIAN"],
                 ["ATLANTIC", "MEDITERRANEAN", "PACIFIC"]):
    for _table in ("containers", "vessel_positions", "cargo_items"):
        value.append(_keys(_table, _who(_regions)))
"""

# --- voyage_document ----------------------------------------------------------------------------
_DOC_SETUP = """
import agent_harness as _ah


def _doc(harness, voyage_id, etag=True):
    try:
        got = voyage_document(harness, voyage_id)
    except Exception as e:
        return ["raised", type(e).__name__]
    if got is not None and type(got) is dict and not etag:
        got = {k: v for k, v in got.items() if k != "_metadata"}
    return plain(got)


def _ids(region=None):
    sql = "SELECT voyage_id FROM supplychain.voyages"
    if region:
        sql += " WHERE ocean_region = :r"
    sql += " ORDER BY voyage_id"
    return [r[0] for r in h.backend.readonly_query(sql, {"r": region} if region else {},
                                                   max_rows=100_000).rows]


_SPARE = 919_001


def _drop_spare():
    h.backend.supplychain_execute(
        "DELETE FROM supplychain.cargo_items WHERE container_no LIKE 'PRBU%'")
    h.backend.supplychain_execute("DELETE FROM supplychain.containers WHERE voyage_id IN (:v, :w)",
                                  {"v": _SPARE, "w": _SPARE + 1})
    h.backend.supplychain_execute("DELETE FROM supplychain.voyages WHERE voyage_id IN (:v, :w)",
                                  {"v": _SPARE, "w": _SPARE + 1})


def _add_spare():
    _drop_spare()
    for _v, _code, _region in ((_SPARE, "PRB-0001", "MEDITERRANEAN"),
                               (_SPARE + 1, "PRB-0002", "INDIAN")):
        h.backend.supplychain_execute(
            "INSERT INTO supplychain.voyages (voyage_id, voyage_code, imo_number, origin_port,"
            " dest_port, departure_date, eta_date, status, ocean_region, distance_nm)"
            " SELECT :v, :code, imo_number, origin_port, dest_port, departure_date, eta_date,"
            " 'DELAYED', :region, 42 FROM supplychain.voyages"
            " WHERE voyage_id = (SELECT MAX(voyage_id) FROM supplychain.voyages)",
            {"v": _v, "code": _code, "region": _region})
    for _no in ("PRBU0000002", "PRBU0000001", "PRBU0000003"):
        h.backend.supplychain_execute(
            "INSERT INTO supplychain.containers (container_no, voyage_id, container_type,"
            " size_ft, consignor, consignee, status, gross_weight_kg)"
            " VALUES (:no, :v, 'REEFER', 40, 'Probe', 'Probe', 'BOOKED', 3000)",
            {"no": _no, "v": _SPARE})
    for _item, _no, _value in ((919_001, "PRBU0000002", None), (919_002, "PRBU0000002", 7),
                               (919_003, "PRBU0000002", 11), (919_004, "PRBU0000003", None)):
        h.backend.supplychain_execute(
            "INSERT INTO supplychain.cargo_items (item_id, container_no, description, quantity,"
            " unit_value_cents) VALUES (:i, :no, 'Probe goods', 3, :c)",
            {"i": _item, "no": _no, "c": _value})
"""

_D_FIELDS = """
_all = _ids()
value = [_doc(h, v, etag=False) for v in _all[1:-1:7]]
value += [_doc(h, v, etag=False) for v in (0, -5, 10 ** 6, max(_all) + 1)]
_LARGE = 919_101   # a probe voyage with more containers than max_rows' default


def _drop_large():
    h.backend.supplychain_execute(
        "DELETE FROM supplychain.containers WHERE voyage_id = :v", {"v": _LARGE})
    h.backend.supplychain_execute(
        "DELETE FROM supplychain.voyages WHERE voyage_id = :v", {"v": _LARGE})


_drop_large()
try:
    h.backend.supplychain_execute(
        "INSERT INTO supplychain.voyages (voyage_id, voyage_code, imo_number, origin_port,"
        " dest_port, departure_date, eta_date, status, ocean_region, distance_nm)"
        " SELECT :v, 'PRB-LARGE', imo_number, origin_port, dest_port, departure_date, eta_date,"
        " 'ACTIVE', 'INDIAN', 77 FROM supplychain.voyages"
        " WHERE voyage_id = (SELECT MAX(voyage_id) FROM supplychain.voyages)", {"v": _LARGE})
    for _n in range(64):
        h.backend.supplychain_execute(
            "INSERT INTO supplychain.containers (container_no, voyage_id, container_type,"
            " size_ft, consignor, consignee, status, gross_weight_kg)"
            " VALUES (:no, :v, 'REEFER', 40, 'Probe', 'Probe', 'BOOKED', 1000)",
            {"no": f"PRBL{8_100_000 + _n}", "v": _LARGE})
    value.append(_doc(h, _LARGE, etag=False))
finally:
    _drop_large()
"""

_D_POLICY = """
value = []
_add_spare()
try:
    value += [_doc(h, _SPARE, etag=False), _doc(h, _SPARE + 1, etag=False)]
    _med = _ah.connect(identity={"user": "probe9", "roles": ["analyst"],
                                 "regions": ["MEDITERRANEAN"]})
    try:
        value += [_doc(_med, v, etag=False) for v in _ids("MEDITERRANEAN")[:3]]
        value += [_doc(_med, _SPARE, etag=False), _doc(_med, _SPARE + 1, etag=False)]
        value += [_doc(_med, v, etag=False) for v in _ids("PACIFIC")[:2]]
    finally:
        _med.close()
    _fin = _ah.connect(identity={"user": "probe9f", "roles": ["finance", "analyst"],
                                 "regions": ["INDIAN", "MEDITERRANEAN"]})
    try:
        value += [_doc(_fin, v, etag=False) for v in _ids("INDIAN")[-3:]]
        value += [_doc(_fin, _SPARE, etag=False), _doc(_fin, _ids("ATLANTIC")[-1], etag=False)]
    finally:
        _fin.close()
finally:
    _drop_spare()
"""

_D_ETAG = """
import hashlib as _hashlib
import json as _json


def _etag_of_own(harness, voyage_id):
    \"\"\"Whether the document's etag is the one the TODO describes for THAT document (so a
    wrong field costs the fields' part only).\"\"\"
    try:
        got = voyage_document(harness, voyage_id)
    except Exception as e:
        return ["raised", type(e).__name__]
    if type(got) is not dict or type(got.get("_metadata")) is not dict:
        return {"shape": plain(got if type(got) is not dict else got.get("_metadata"))}
    body = {k: v for k, v in got.items() if k != "_metadata"}
    try:
        text = _json.dumps(body, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError) as e:
        return ["not JSON", type(e).__name__]
    etag = _hashlib.sha256(text.encode("utf-8")).hexdigest()[:16].upper()
    return [sorted(got["_metadata"]), got["_metadata"].get("etag") == etag]


value = []
_add_spare()
try:
    value.append(_etag_of_own(h, _SPARE))
    value.append(_etag_of_own(h, _SPARE + 1))
finally:
    _drop_spare()
value += [_etag_of_own(h, v) for v in _ids()[2::9]]
"""

# --- catalog_fingerprint ------------------------------------------------------------------------
_FP_SETUP = """
def _fp(owner="SUPPLYCHAIN"):
    try:
        got = catalog_fingerprint(owner)
    except Exception as e:
        return ["raised", type(e).__name__]
    return got if type(got) is str else {"shape": plain(got)}


def _comment(table, column=None):
    if column is None:
        rows = h.backend.query("SELECT comments FROM all_tab_comments WHERE owner = 'SUPPLYCHAIN'"
                               " AND table_name = :t", {"t": table.upper()})
    else:
        rows = h.backend.query("SELECT comments FROM all_col_comments WHERE owner = 'SUPPLYCHAIN'"
                               " AND table_name = :t AND column_name = :c",
                               {"t": table.upper(), "c": column.upper()})
    return (rows[0]["comments"] if rows else None) or ""
"""

_F_STABLE = """
_base = _fp()
value = [type(_base) is str, _fp() == _base]
h.backend.supplychain_execute(
    "UPDATE supplychain.carriers SET name = name || ' (probe)'"
    " WHERE carrier_id = (SELECT MIN(carrier_id) FROM supplychain.carriers)")
h.backend.supplychain_execute(
    "UPDATE supplychain.ports SET berths = berths + 2"
    " WHERE port_code = (SELECT MAX(port_code) FROM supplychain.ports)")
_ids = [h.memory.add(f"probe memory {i} about ports and berths", kind="note") for i in range(3)]
try:
    value.append(_fp() == _base)
finally:
    h.backend.supplychain_execute(
        "UPDATE supplychain.carriers SET name = substr(name, 1, length(name) - 8)"
        " WHERE carrier_id = (SELECT MIN(carrier_id) FROM supplychain.carriers)")
    h.backend.supplychain_execute(
        "UPDATE supplychain.ports SET berths = berths - 2"
        " WHERE port_code = (SELECT MAX(port_code) FROM supplychain.ports)")
    for _i in _ids:
        h.memory.delete(_i)
_none = [_fp(o) for o in ("PROBE_NOBODY", "Z", "SUPPLYCHAIN_OLD")]
value += [_none[0] == _none[1] == _none[2], _none[0] != _base, _fp() == _base]
value.append(type(_none[0]) is str)
"""

_F_COMMENTS = """
_base = _fp()
value = []
_saved = [("containers", "status", _comment("containers", "status")),
          ("ports", None, _comment("ports")),
          ("cargo_items", "unit_value_cents", _comment("cargo_items", "unit_value_cents"))]
try:
    h.backend.set_comment("containers", "status", _saved[0][2])   # the same text again
    value.append(_fp() == _base)
    h.backend.set_comment("containers", "status", _saved[0][2] + " Probe.")
    _one = _fp()
    value.append(_one != _base)
    h.backend.set_comment("ports", None, "Probe: " + _saved[1][2])
    _two = _fp()
    value += [_two != _base, _two != _one]
    h.backend.set_comment("containers", "status", _saved[0][2])
    value.append(_fp() not in (_base, _one, _two))
    h.backend.set_comment("ports", None, _saved[1][2])
    value.append(_fp() == _base)
    h.backend.set_comment("cargo_items", "unit_value_cents", "")
    value.append(_fp() != _base)
finally:
    for _table, _column, _text in _saved:
        h.backend.set_comment(_table, _column, _text)
value.append(_fp() == _base)
"""

_F_TABLES = """
for _t in ("prb_fees", "prb_berths"):
    h.backend.supplychain_execute(f"DROP TABLE IF EXISTS supplychain.{_t}")
_base = _fp()
value = []
try:
    h.backend.supplychain_execute(
        "CREATE TABLE supplychain.prb_fees (port_code VARCHAR(5), fee NUMBER)")
    _one = _fp()
    h.backend.supplychain_execute("CREATE TABLE supplychain.prb_berths (berth_no NUMBER)")
    _two = _fp()
    h.backend.supplychain_execute("ALTER TABLE supplychain.prb_berths ADD depth_m NUMBER")
    _three = _fp()
    value += [_one != _base, _two not in (_base, _one), _three not in (_base, _one, _two)]
    h.backend.supplychain_execute("DROP TABLE supplychain.prb_berths")
    value.append(_fp() == _one)
finally:
    for _t in ("prb_fees", "prb_berths"):
        h.backend.supplychain_execute(f"DROP TABLE IF EXISTS supplychain.{_t}")
value.append(_fp() == _base)
"""

PROBES = {
    "row_predicate_checks": [
        Probe(
            "regions",
            _ROW_SETUP + _R_REGIONS,
            "for probe identities (other regions and combinations, the finance role) and for "
            "the owner, the rows your predicate selects differ from the policy's: voyages of "
            "the identity's regions, every row for the owner and the reference tables",
        ),
    ],
    "row_predicate_boundaries": [
        Probe(
            "boundaries",
            _ROW_SETUP + _R_BOUNDARIES,
            "a boundary is handled wrongly for probe identities or tables: no regions (an "
            "empty list or no regions key) on other tables, reference tables without regions, "
            "regions in lower or mixed case or given twice, or a table the policy does not "
            "cover (ValueError expected)",
        ),
    ],
    "row_predicate_lineage": [
        Probe(
            "lineage",
            _ROW_SETUP + _R_LINEAGE,
            "for probe identities with other regions, the containers, vessel positions or "
            "cargo items your predicate selects are not those whose voyage is visible",
        ),
    ],
    "voyage_document_checks": [
        Probe(
            "fields",
            _DOC_SETUP + _D_FIELDS,
            "the document of a probe voyage (other voyage ids than the visible check, and one "
            "with more containers than max_rows' default) has a wrong field or misses "
            "containers, or an id without a voyage does not give None",
        ),
    ],
    "voyage_document_policy": [
        Probe(
            "policy",
            _DOC_SETUP + _D_POLICY,
            "documents read with the harness of a probe identity (another region, with and "
            "without the finance role), or of probe voyages (containers without cargo or with "
            "items without a value, no containers), are wrong: a voyage outside the regions "
            "gives None, items without a value are left out of the sum, and a container with "
            "no known value has a cargoValueCents of None",
        ),
    ],
    "voyage_document_etag": [
        Probe(
            "etag",
            _DOC_SETUP + _D_ETAG,
            "the etag of the document of a probe voyage is not the one the TODO's text "
            "describes for that document (the fields themselves are the first part's)",
        ),
    ],
    "catalog_fingerprint_checks": [
        Probe(
            "stable",
            _FP_SETUP + _F_STABLE,
            "the fingerprint is not a str (for SUPPLYCHAIN or for probe owners without "
            "tables), changes between two calls, moves when rows of the data change or "
            "memories are added, or differs between probe owners without tables",
        ),
    ],
    "catalog_fingerprint_comments": [
        Probe(
            "comments",
            _FP_SETUP + _F_COMMENTS,
            "the fingerprint does not follow other probe comment changes (another column's "
            "comment, a table's comment, a comment emptied, the same text written again, "
            "changes undone one by one)",
        ),
    ],
    "catalog_fingerprint_tables": [
        Probe(
            "tables",
            _FP_SETUP + _F_TABLES,
            "the fingerprint does not follow probe tables (two new tables, a column added, "
            "one dropped, then both)",
        ),
    ],
}

# The sentences of the TODOs each probe enforces (tests/test_grading_fairness.py).
_RETURNS = (
    "``(predicate, binds)``: the SQL text that follows ``WHERE`` in ``SELECT ... FROM "
    "supplychain.<table> WHERE <predicate>``,"
)
_VOYAGES = (
    "**voyages**: those whose `ocean_region` is one of the identity's regions. Regions are "
    'compared in upper case (`"atlantic"` is ATLANTIC).'
)
_NO_REGIONS = (
    "An identity without regions (an empty list, or no `regions` key) sees no voyage at all."
)
_CHILDREN = (
    "**containers** and **vessel_positions**: those whose voyage (`voyage_id`) is a visible voyage."
)
_ITEMS = "**cargo_items**: those whose container (`container_no`) is a visible container."
_REFERENCE = "**carriers**, **ports** and **vessels**: every row, whatever the regions (even none)."
_OWNER = "The workshop owner (`identity` None): every row of every one of these tables."
_RAISES = "ValueError: ``table`` is not one of the seven tables above."
_CASE = 'A name in another case (``"Voyages"``, ``"VOYAGES"``) is not one of them either.'
_EMPTY_ID = "An empty identity `{}` is such an identity, not the owner: only `None` is the owner."
_ROLES = "only `regions` matters for rows"

_DOC_NONE = (
    "None when the harness sees no voyage with this ``voyage_id`` (there is none, or it is "
    "outside the identity's regions)."
)
_DOC_FIELDS = (
    "| `voyageCode`, `status`, `oceanRegion` | the voyage's `voyage_code`, `status`, "
    "`ocean_region` |"
)
_DOC_ID = "| `_id` | the voyage's `voyage_id` |"
_DOC_BOXES = (
    "| `containers` | one dict per container of the voyage, in `container_no` order; `[]` when "
    "it has none |"
)
_DOC_BOX = (
    'Each container is `{"containerNo": ..., "status": ..., "cargoValueCents": ...}` (its '
    "`container_no`, its `status`), where `cargoValueCents` is `SUM(quantity * "
    "unit_value_cents)` over the container's cargo items, as SQL's SUM gives it: items whose "
    "value is NULL are left out, and it is None when the container has no cargo items or none "
    "with a known value (a masked `unit_value_cents` reads as NULL, so without the finance "
    "role it is None, never 0)."
)
_DOC_READ = (
    "so the same function run with Ana's harness gets only what Ana may see: that is how the "
    "database's policy holds through documents."
)
_DOC_ETAG = (
    "The **etag** is computed from the document without its `_metadata`: `text = "
    'json.dumps(doc, sort_keys=True, separators=(",", ":"))`, then the first 16 characters of '
    '`hashlib.sha256(text.encode("utf-8")).hexdigest()`, in upper case.'
)
_DOC_META = '| `_metadata` | `{"etag": ...}` |'
_DOC_ROWS = (
    "It returns at most `max_rows` rows and drops the rest without an error (50 when you leave "
    "it out): pass one larger than any voyage can need, e.g. `max_rows=10_000`, so a voyage "
    "with more containers or cargo items than that is never cut."
)
_DOC_INT = "A known sum is an `int` (the columns hold integers), never a float such as `1234.0`."

_FP_STR = "is the same for two calls when nothing changed in between;"
_FP_IS_STR = "The fingerprint is a `str` that:"
_FP_MOVES = (
    "changes when a table is added or dropped, when a column is added, and when a table's "
    "comment or a column's comment changes;"
)
_FP_STILL = (
    "does not change when rows of the data change or memories are added, and only the schema "
    "`owner` counts;"
)
_FP_BACK = (
    "comes back to its old value when a change is undone (so it depends on what the catalog "
    "holds, not on when you looked);"
)
_FP_EMPTY = "is the same for every owner that has no tables."

_RELIES = {
    ("row_predicate_checks", "regions"): (_RETURNS, _VOYAGES, _REFERENCE, _OWNER, _ROLES),
    ("row_predicate_boundaries", "boundaries"): (
        _RETURNS,
        _VOYAGES,
        _NO_REGIONS,
        _CHILDREN,
        _ITEMS,
        _REFERENCE,
        _RAISES,
        _CASE,
        _EMPTY_ID,
    ),
    ("row_predicate_lineage", "lineage"): (_RETURNS, _CHILDREN, _ITEMS),
    ("voyage_document_checks", "fields"): (
        _DOC_NONE,
        _DOC_ID,
        _DOC_FIELDS,
        _DOC_BOXES,
        _DOC_BOX,
        _DOC_ROWS,
        _DOC_INT,
    ),
    ("voyage_document_policy", "policy"): (_DOC_NONE, _DOC_READ, _DOC_BOXES, _DOC_BOX),
    ("voyage_document_etag", "etag"): (_DOC_META, _DOC_ETAG),
    ("catalog_fingerprint_checks", "stable"): (_FP_IS_STR, _FP_STR, _FP_STILL, _FP_EMPTY),
    ("catalog_fingerprint_comments", "comments"): (_FP_STR, _FP_MOVES, _FP_BACK),
    ("catalog_fingerprint_tables", "tables"): (_FP_MOVES, _FP_BACK),
}
PROBES = {
    grade_id: [replace(p, relies_on=_RELIES[grade_id, p.name]) for p in probes]
    for grade_id, probes in PROBES.items()
}
