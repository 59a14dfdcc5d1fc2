"""Plausible wrong implementations of the TODOs in solutions/09_guardrails.ipynb.

Each entry replaces the whole source of the solution cell with that ``grade_id``; the TODO loses
marks and the grade cell covering the broken behaviour (COVERED_BY, else the TODO's first grade
cell) scores 0, while the untouched solution passes.
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
