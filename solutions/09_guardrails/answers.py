"""Other answers to the TODOs of 09_guardrails.ipynb (beside this file), for the tests.

Wrong ones: ``MUTANTS`` (each scores 0 on the grade cell of ``COVERED_BY``, default the TODO's
first), ``WRONG`` and ``ALWAYS_EQUAL`` (pass the visible checks; a value check must catch
them) and ``VISIBLE`` (once passed the visible checks; now fail them). Correct ones:
``CORRECT`` and ``MORE_CORRECT`` (each scores full marks). What each table holds and which test
reads it: docs/notebook-authoring.md, "A notebook's folder".
"""

_PREDICATE = '''def row_predicate(table, identity):
    """Wrong on purpose: see the mutant's description."""
    reference = {"carriers", "ports", "vessels"}
    if table not in reference | {"voyages", "containers", "cargo_items", "vessel_positions"}:
        raise ValueError(f"no row policy for table {table!r}")
    if identity is None or table in reference:
        return "1 = 1", {}
    regions = sorted({str(r).upper() for r in identity.get("regions") or []})
    if not regions:
        return "1 = 0", {}
    binds = {f"r{i}": region for i, region in enumerate(regions)}
    voyages = f"ocean_region IN ({', '.join(':' + name for name in binds)})"
    if table == "voyages":
        return voyages, binds
    visible = f"voyage_id IN (SELECT voyage_id FROM supplychain.voyages WHERE {voyages})"
    if table in ("containers", "vessel_positions"):
        return visible, binds
    return (f"container_no IN (SELECT container_no FROM supplychain.containers"
            f" WHERE {visible})", binds)
'''


def _predicate(old: str, new: str) -> str:
    assert _PREDICATE.count(old) == 1, old
    return _PREDICATE.replace(old, new)


_UPPER = '    regions = sorted({str(r).upper() for r in identity.get("regions") or []})\n'
_EMPTY = '    if not regions:\n        return "1 = 0", {}\n'
_OWNER = '    if identity is None or table in reference:\n        return "1 = 1", {}\n'
_CHILD = '    if table in ("containers", "vessel_positions"):\n        return visible, binds\n'

_DOCUMENT = '''def voyage_document(harness, voyage_id):
    """Wrong on purpose: see the mutant's description."""
    import hashlib
    import json

    def rows(sql):
        return harness.backend.readonly_query(sql, {"v": voyage_id}, max_rows=10_000).rows

    found = rows("SELECT voyage_id, voyage_code, status, ocean_region"
                 " FROM supplychain.voyages WHERE voyage_id = :v")
    if not found:
        return None
    _id, code, status, region = found[0]
    boxes = rows("SELECT c.container_no, c.status, SUM(i.quantity * i.unit_value_cents)"
                 " FROM supplychain.containers c"
                 " LEFT JOIN supplychain.cargo_items i ON i.container_no = c.container_no"
                 " WHERE c.voyage_id = :v GROUP BY c.container_no, c.status"
                 " ORDER BY c.container_no")
    doc = {"_id": _id, "voyageCode": code, "status": status, "oceanRegion": region,
           "containers": [{"containerNo": no, "status": st, "cargoValueCents": value}
                          for no, st, value in boxes]}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    doc["_metadata"] = {"etag": hashlib.sha256(text.encode("utf-8")).hexdigest()[:16].upper()}
    return doc
'''


def _document(old: str, new: str) -> str:
    assert _DOCUMENT.count(old) == 1, old
    return _DOCUMENT.replace(old, new)


_ETAG = "hexdigest()[:16].upper()}"
_TEXT = '    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))\n'
_SUM = "SUM(i.quantity * i.unit_value_cents)"

_FINGERPRINT = '''def catalog_fingerprint(owner):
    """Wrong on purpose: see the mutant's description."""
    import hashlib
    import json

    rows = h.backend.query(
        """SELECT c.table_name, c.column_name, c.data_type, c.nullable,
                  k.comments AS column_comment, t.comments AS table_comment
           FROM all_tab_columns c
           LEFT JOIN all_col_comments k ON k.owner = c.owner
                AND k.table_name = c.table_name AND k.column_name = c.column_name
           LEFT JOIN all_tab_comments t ON t.owner = c.owner AND t.table_name = c.table_name
           WHERE c.owner = :owner
           ORDER BY c.table_name, c.column_id""",
        {"owner": owner})
    text = json.dumps(rows, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
'''


def _fingerprint(old: str, new: str) -> str:
    assert _FINGERPRINT.count(old) == 1, old
    return _FINGERPRINT.replace(old, new)


_SELECT = "k.comments AS column_comment, t.comments AS table_comment"
_RETURN = '    return hashlib.sha256(text.encode("utf-8")).hexdigest()\n'

MUTANTS = {
    "row_predicate": [
        (
            "regions compared as given (lower case misses)",
            _predicate(_UPPER, '    regions = sorted(set(identity.get("regions") or []))\n'),
        ),
        (
            "no regions sees every voyage",
            _predicate(_EMPTY, '    if not regions:\n        return "1 = 1", {}\n'),
        ),
        (
            "no regions key raises KeyError",
            _predicate(
                _UPPER, '    regions = sorted({str(r).upper() for r in identity["regions"]})\n'
            ),
        ),
        (
            "reference tables filtered by region too",
            _predicate(
                _OWNER,
                '    if identity is None:\n        return "1 = 1", {}\n'
                "    if table in reference:\n"
                '        return ("1 = 0", {}) if not identity.get("regions") else ("1 = 1", {})\n',
            ),
        ),
        (
            "an empty identity {} taken for the owner",
            _predicate(
                _OWNER, '    if not identity or table in reference:\n        return "1 = 1", {}\n'
            ),
        ),
        (
            "a table name in another case accepted (lower-cased first)",
            _predicate(
                '    reference = {"carriers", "ports", "vessels"}\n',
                '    table = table.lower()\n    reference = {"carriers", "ports", "vessels"}\n',
            ),
        ),
        (
            "the owner sees nothing",
            _predicate(
                _OWNER,
                '    if identity is None:\n        return "1 = 0", {}\n'
                '    if table in reference:\n        return "1 = 1", {}\n',
            ),
        ),
        (
            "containers and positions not filtered",
            _predicate(
                _CHILD,
                '    if table in ("containers", "vessel_positions"):\n        return "1 = 1", {}\n',
            ),
        ),
        (
            "cargo items not filtered",
            _predicate(
                '    return (f"container_no IN (SELECT container_no FROM supplychain.containers"\n'
                '            f" WHERE {visible})", binds)\n',
                '    return "1 = 1", {}\n',
            ),
        ),
        (
            "vessel positions filtered by the first region only",
            _predicate(
                _CHILD,
                '    if table == "vessel_positions":\n'
                '        return ("voyage_id IN (SELECT voyage_id FROM supplychain.voyages'
                ' WHERE ocean_region = :r0)", {"r0": regions[0]})\n' + _CHILD,
            ),
        ),
        (
            "a table the policy does not cover gets every row",
            _predicate(
                '        raise ValueError(f"no row policy for table {table!r}")\n',
                '        return "1 = 1", {}\n',
            ),
        ),
        (
            "children see the voyages of every region",
            _predicate(
                'supplychain.voyages WHERE {voyages})"\n',
                'supplychain.voyages)"\n',
            ),
        ),
    ],
    "voyage_document": [
        (
            "max_rows left at its default (a voyage of more than 50 containers is cut)",
            _document(
                'harness.backend.readonly_query(sql, {"v": voyage_id}, max_rows=10_000)',
                'harness.backend.readonly_query(sql, {"v": voyage_id})',
            ),
        ),
        (
            "containers in descending order",
            _document(' ORDER BY c.container_no")', ' ORDER BY c.container_no DESC")'),
        ),
        (
            "an unknown voyage gives an empty dict",
            _document(
                "    if not found:\n        return None\n", "    if not found:\n        return {}\n"
            ),
        ),
        (
            "the cargo value without the quantity",
            _document(_SUM, "SUM(i.unit_value_cents)"),
        ),
        (
            "no known value counted as 0",
            _document(_SUM, "COALESCE(SUM(i.quantity * i.unit_value_cents), 0)"),
        ),
        (
            "containers without cargo left out",
            _document("LEFT JOIN supplychain.cargo_items", "JOIN supplychain.cargo_items"),
        ),
        (
            "the containers of every voyage",
            _document(" WHERE c.voyage_id = :v GROUP BY", " WHERE :v IS NOT NULL GROUP BY"),
        ),
        (
            "the etag in lower case",
            _document(
                _ETAG,
                "hexdigest()[:16]}",
            ),
        ),
        (
            "the etag of 32 characters",
            _document(
                _ETAG,
                "hexdigest()[:32].upper()}",
            ),
        ),
        (
            "the etag over unsorted keys",
            _document(_TEXT, '    text = json.dumps(doc, separators=(",", ":"))\n'),
        ),
        (
            "the etag with json.dumps' default separators",
            _document(_TEXT, "    text = json.dumps(doc, sort_keys=True)\n"),
        ),
    ],
    "catalog_fingerprint": [
        (
            "column comments left out",
            _fingerprint(_SELECT, "t.comments AS table_comment"),
        ),
        (
            "table comments left out",
            _fingerprint(_SELECT, "k.comments AS column_comment"),
        ),
        (
            "names and types only, no comments",
            _fingerprint(_SELECT, "c.column_id"),
        ),
        (
            "tables only: a new column does not move it",
            _fingerprint(
                "    text = json.dumps(rows, sort_keys=True, default=str)\n",
                "    text = json.dumps(sorted({(r['table_name'], r['table_comment'] or '',"
                " r['column_comment'] or '') for r in rows}))\n",
            ),
        ),
        (
            "the owner ignored: always SUPPLYCHAIN",
            _fingerprint('        {"owner": owner})', '        {"owner": "SUPPLYCHAIN"})'),
        ),
        (
            "a sum of the data in it (moves with the rows)",
            _fingerprint(
                _RETURN,
                "    text += str(h.backend.readonly_query("
                "'SELECT SUM(berths) FROM supplychain.ports', {}, max_rows=1).rows)\n" + _RETURN,
            ),
        ),
        (
            "None for an owner without tables",
            _fingerprint(_RETURN, "    if not rows:\n        return None\n" + _RETURN),
        ),
        (
            "the memory count in it",
            _fingerprint(_RETURN, "    text += str(len(h.memory.list(limit=100000)))\n" + _RETURN),
        ),
        (
            "the time of the call in it",
            _fingerprint(_RETURN, "    import time\n    text += str(time.time())\n" + _RETURN),
        ),
        (
            "a version bumped on each change (undoing one does not bring the old value back)",
            _fingerprint(
                _RETURN,
                "    seen = globals().setdefault('_fingerprint_versions', [])\n"
                "    if rows and (not seen or seen[-1] != text):\n"
                "        seen.append(text)\n"
                "    return f'{owner}:v{len(seen)}' if rows else 'empty'\n",
            ),
        ),
    ],
}

COVERED_BY = {
    "regions compared as given (lower case misses)": "row_predicate_boundaries",
    "no regions sees every voyage": "row_predicate_boundaries",
    "no regions key raises KeyError": "row_predicate_boundaries",
    "a table the policy does not cover gets every row": "row_predicate_boundaries",
    "reference tables filtered by region too": "row_predicate_boundaries",
    "an empty identity {} taken for the owner": "row_predicate_boundaries",
    "a table name in another case accepted (lower-cased first)": "row_predicate_boundaries",
    "containers and positions not filtered": "row_predicate_lineage",
    "cargo items not filtered": "row_predicate_lineage",
    "vessel positions filtered by the first region only": "row_predicate_lineage",
    "children see the voyages of every region": "row_predicate_lineage",
    "the cargo value without the quantity": "voyage_document_checks",
    "no known value counted as 0": "voyage_document_policy",
    "containers without cargo left out": "voyage_document_policy",
    "the etag in lower case": "voyage_document_etag",
    "the etag of 32 characters": "voyage_document_etag",
    "the etag over unsorted keys": "voyage_document_etag",
    "the etag with json.dumps' default separators": "voyage_document_etag",
    "column comments left out": "catalog_fingerprint_comments",
    "table comments left out": "catalog_fingerprint_comments",
    "names and types only, no comments": "catalog_fingerprint_comments",
    "tables only: a new column does not move it": "catalog_fingerprint_tables",
    "a version bumped on each change (undoing one does not bring the old value back)": (
        "catalog_fingerprint_comments"
    ),
}


# --- Answers at the visible checks' edge (WRONG, ALWAYS_EQUAL, VISIBLE) and correct ones

_ROW_FIXED_REGIONS = """def row_predicate(table, identity):
    known = ["ATLANTIC", "PACIFIC", "INDIAN"]   # the regions as remembered: one is missing
    if table not in ("voyages", "containers", "cargo_items", "vessel_positions", "carriers",
                     "ports", "vessels"):
        raise ValueError(table)
    if identity is None or table in ("carriers", "ports", "vessels"):
        return "1 = 1", {}
    regions = [r for r in known if r in {str(x).upper() for x in identity.get("regions", [])}]
    if not regions:
        return "1 = 0", {}
    listed = ", ".join(f"'{r}'" for r in regions)
    voyages = f"SELECT voyage_id FROM supplychain.voyages WHERE ocean_region IN ({listed})"
    if table == "voyages":
        return f"voyage_id IN ({voyages})", {}
    if table in ("containers", "vessel_positions"):
        return f"voyage_id IN ({voyages})", {}
    return (f"container_no IN (SELECT container_no FROM supplychain.containers"
            f" WHERE voyage_id IN ({voyages}))", {})
"""


_ROW_EXISTS = """def row_predicate(table, identity):
    if table in ("carriers", "ports", "vessels"):
        return "1 = 1", {}
    if table not in ("voyages", "containers", "cargo_items", "vessel_positions"):
        raise ValueError(f"{table} is not covered by the policy")
    if identity is None:
        return "1 = 1", {}
    wanted = []
    for region in identity.get("regions", []):
        if region.upper() not in wanted:
            wanted.append(region.upper())
    if len(wanted) == 0:
        return "1 = 0", {}
    binds = {"region_%d" % n: r for n, r in enumerate(wanted)}
    region_test = "v.ocean_region IN (" + ", ".join(":" + k for k in binds) + ")"
    if table == "voyages":
        return region_test.replace("v.", ""), binds
    if table == "cargo_items":
        return ("EXISTS (SELECT 1 FROM supplychain.containers c JOIN supplychain.voyages v"
                " ON v.voyage_id = c.voyage_id WHERE c.container_no = cargo_items.container_no"
                " AND " + region_test + ")", binds)
    return ("EXISTS (SELECT 1 FROM supplychain.voyages v WHERE v.voyage_id = "
            + table + ".voyage_id AND " + region_test + ")", binds)
"""


_ROW_JOINED = """def row_predicate(table, identity):
    parents = {"voyages": None, "containers": "voyage_id", "vessel_positions": "voyage_id",
               "cargo_items": "container_no"}
    if table not in parents and table not in {"carriers", "ports", "vessels"}:
        raise ValueError("row_predicate: unknown table " + repr(table))
    if table not in parents or identity is None:
        return "1 = 1", {}
    regions = sorted(set(map(str.upper, identity.get("regions") or ())))
    if not regions:
        return "1 = 0", {}
    binds = dict(zip((f"p{i}" for i in range(len(regions))), regions))
    inside = " OR ".join(f"v.ocean_region = :{name}" for name in binds)
    if table == "voyages":
        return "(" + inside.replace("v.", "") + ")", binds
    if parents[table] == "voyage_id":
        return (f"voyage_id IN (SELECT v.voyage_id FROM supplychain.voyages v WHERE {inside})",
                binds)
    return ("container_no IN (SELECT c.container_no FROM supplychain.containers c"
            " JOIN supplychain.voyages v ON v.voyage_id = c.voyage_id"
            f" WHERE {inside})", binds)
"""


_ROW_LITERALS = """def row_predicate(table, identity):
    covered = {"voyages", "containers", "cargo_items", "vessel_positions"}
    if table not in covered | {"carriers", "ports", "vessels"}:
        raise ValueError(table)
    if identity is None or table not in covered:
        return "1 = 1", {}
    regions = {r.strip().upper() for r in identity.get("regions") or []}
    allowed = {"ATLANTIC", "INDIAN", "MEDITERRANEAN", "PACIFIC"} & regions
    if not allowed:
        return "1 = 0", {}
    voyage_ok = "ocean_region IN (" + ", ".join(repr(r) for r in sorted(allowed)) + ")"
    predicate = voyage_ok
    for child, key, parent in (("containers", "voyage_id", "voyages"),
                               ("vessel_positions", "voyage_id", "voyages"),
                               ("cargo_items", "container_no", "containers")):
        if table == child:
            inner = row_predicate(parent, identity)[0]
            predicate = f"{key} IN (SELECT {key} FROM supplychain.{parent} WHERE {inner})"
    return predicate, {}
"""


_DOC_FLOATS = """def voyage_document(harness, voyage_id):
    import hashlib
    import json

    def rows(sql):
        return harness.backend.readonly_query(sql, {"v": voyage_id}, max_rows=10_000).rows

    found = rows("SELECT voyage_id, voyage_code, status, ocean_region"
                 " FROM supplychain.voyages WHERE voyage_id = :v")
    if not found:
        return None
    _id, code, status, region = found[0]
    boxes = rows("SELECT c.container_no, c.status, SUM(i.quantity * i.unit_value_cents * 1.0)"
                 " FROM supplychain.containers c"
                 " LEFT JOIN supplychain.cargo_items i ON i.container_no = c.container_no"
                 " WHERE c.voyage_id = :v GROUP BY c.container_no, c.status"
                 " ORDER BY c.container_no")
    doc = {"_id": _id, "voyageCode": code, "status": status, "oceanRegion": region,
           "containers": [{"containerNo": no, "status": st, "cargoValueCents": value}
                          for no, st, value in boxes]}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    doc["_metadata"] = {"etag": hashlib.sha256(text.encode("utf-8")).hexdigest()[:16].upper()}
    return doc
"""


_DOC_PYTHON = """def voyage_document(harness, voyage_id):
    import hashlib
    import json

    read = harness.backend.readonly_query
    voyage = read("SELECT voyage_id, voyage_code, status, ocean_region FROM supplychain.voyages"
                  " WHERE voyage_id = :v", {"v": voyage_id}, max_rows=1).rows
    if len(voyage) == 0:
        return None
    containers = []
    for number, status in sorted(read(
            "SELECT container_no, status FROM supplychain.containers WHERE voyage_id = :v",
            {"v": voyage_id}, max_rows=10_000).rows):
        known = [q * c for q, c in read(
            "SELECT quantity, unit_value_cents FROM supplychain.cargo_items"
            " WHERE container_no = :c", {"c": number}, max_rows=10_000).rows if c is not None]
        containers.append({"containerNo": number, "status": status,
                           "cargoValueCents": sum(known) if known else None})
    document = dict(zip(("_id", "voyageCode", "status", "oceanRegion"), voyage[0]))
    document["containers"] = containers
    body = json.dumps(document, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return {**document, "_metadata": {"etag": hashlib.sha256(body).hexdigest()[:16].upper()}}
"""


_DOC_ONE_JOIN = """def voyage_document(harness, voyage_id):
    import hashlib
    import json

    result = harness.backend.readonly_query(
        "SELECT v.voyage_id, v.voyage_code, v.status, v.ocean_region, c.container_no,"
        " c.status, i.quantity, i.unit_value_cents"
        " FROM supplychain.voyages v"
        " LEFT JOIN supplychain.containers c ON c.voyage_id = v.voyage_id"
        " LEFT JOIN supplychain.cargo_items i ON i.container_no = c.container_no"
        " WHERE v.voyage_id = :v", {"v": voyage_id}, max_rows=100_000)
    if not result.rows:
        return None
    first = result.rows[0]
    boxes = {}
    for _, _, _, _, number, box_status, quantity, cents in result.rows:
        if number is None:
            continue
        box = boxes.setdefault(number, {"containerNo": number, "status": box_status,
                                        "cargoValueCents": None})
        if quantity is not None and cents is not None:
            box["cargoValueCents"] = (box["cargoValueCents"] or 0) + quantity * cents
    doc = {"_id": first[0], "voyageCode": first[1], "status": first[2],
           "oceanRegion": first[3], "containers": [boxes[k] for k in sorted(boxes)]}
    digest = hashlib.sha256(json.dumps(doc, separators=(",", ":"), sort_keys=True)
                            .encode("utf-8")).hexdigest()
    doc["_metadata"] = {"etag": digest[:16].upper()}
    return doc
"""


_DOC_CORRELATED = """def voyage_document(harness, voyage_id):
    import hashlib
    import json

    def query(sql):
        return harness.backend.readonly_query(sql, {"v": voyage_id}, max_rows=5000).rows

    head = query("SELECT voyage_id, voyage_code, status, ocean_region"
                 " FROM supplychain.voyages WHERE voyage_id = :v")
    if not head:
        return None
    boxes = query(
        "SELECT c.container_no, c.status, (SELECT SUM(i.quantity * i.unit_value_cents)"
        " FROM supplychain.cargo_items i WHERE i.container_no = c.container_no)"
        " FROM supplychain.containers c WHERE c.voyage_id = :v ORDER BY 1")
    doc = {"_id": head[0][0], "voyageCode": head[0][1], "status": head[0][2],
           "oceanRegion": head[0][3],
           "containers": [dict(containerNo=b[0], status=b[1], cargoValueCents=b[2])
                          for b in boxes]}
    canonical = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    etag = hashlib.new("sha256", canonical.encode("utf-8")).hexdigest().upper()[:16]
    return doc | {"_metadata": {"etag": etag}}
"""


_FP_THREE_QUERIES = """def catalog_fingerprint(owner):
    import hashlib

    binds = {"o": owner}
    columns = h.backend.query(
        "SELECT table_name, column_name, data_type, nullable FROM all_tab_columns"
        " WHERE owner = :o ORDER BY table_name, column_id", binds)
    tables = h.backend.query(
        "SELECT table_name, comments FROM all_tab_comments WHERE owner = :o"
        " ORDER BY table_name", binds)
    notes = h.backend.query(
        "SELECT table_name, column_name, comments FROM all_col_comments WHERE owner = :o"
        " ORDER BY table_name, column_name", binds)
    digest = hashlib.md5()
    for part in (columns, tables, notes):
        for row in part:
            digest.update(repr(sorted(row.items())).encode("utf-8"))
        digest.update(b"|")
    return digest.hexdigest()
"""


_FP_LIBRARY = """def catalog_fingerprint(owner):
    return h.backend.catalog_watch.fingerprint(owner)
"""


_FP_TEXT = """def catalog_fingerprint(owner):
    lines = []
    for row in h.backend.query(
            "SELECT c.table_name AS t, c.column_name AS c, c.data_type AS d, c.nullable AS n,"
            " (SELECT k.comments FROM all_col_comments k WHERE k.owner = c.owner"
            "  AND k.table_name = c.table_name AND k.column_name = c.column_name) AS ck,"
            " (SELECT tc.comments FROM all_tab_comments tc WHERE tc.owner = c.owner"
            "  AND tc.table_name = c.table_name) AS tk"
            " FROM all_tab_columns c WHERE c.owner = :owner", {"owner": owner}):
        lines.append("\\t".join(str(row[k]) for k in ("t", "c", "d", "n", "ck", "tk")))
    return "\\n".join(sorted(lines))
"""


WRONG = {
    "row_predicate": [("a fixed list of regions without MEDITERRANEAN", _ROW_FIXED_REGIONS)],
}
VISIBLE = {
    "voyage_document": [("cargo values as floats (1234.0)", _DOC_FLOATS)],
}
CORRECT = {
    "row_predicate": _ROW_EXISTS,
    "voyage_document": _DOC_PYTHON,
    "catalog_fingerprint": _FP_THREE_QUERIES,
}
MORE_CORRECT = [
    (
        "a join in the subquery, one query for the document, the library's fingerprint",
        {
            "row_predicate": _ROW_JOINED,
            "voyage_document": _DOC_ONE_JOIN,
            "catalog_fingerprint": _FP_LIBRARY,
        },
    ),
    (
        "literals and recursion, a correlated sum, the catalog as text",
        {
            "row_predicate": _ROW_LITERALS,
            "voyage_document": _DOC_CORRELATED,
            "catalog_fingerprint": _FP_TEXT,
        },
    ),
]
#: The grade cell covering each of these cases.
COVERED_BY.update(
    {
        "a fixed list of regions without MEDITERRANEAN": "row_predicate_checks",
        "cargo values as floats (1234.0)": "voyage_document_checks",
    }
)
