"""Catalog scanner: tables, columns and foreign keys become memories, idempotently."""

from __future__ import annotations

import pytest

from agent_harness.parts.catalog_scanner import CatalogScanner
from agent_harness.supplychain import TABLES


@pytest.fixture
def scanner(harness, memory):
    return CatalogScanner(harness.backend, memory)


def test_dictionary_views_describe_the_demo_schema(harness):
    tables = {
        r["table_name"]
        for r in harness.backend.query(
            "SELECT table_name FROM all_tables WHERE owner = 'SUPPLYCHAIN'"
        )
    }
    assert tables == {t.name.upper() for t in TABLES}


def test_facts_cover_every_table_column_and_foreign_key(scanner):
    facts = scanner.facts("supplychain")
    kinds = [f.kind for f in facts]
    assert kinds.count("table") == len(TABLES)
    assert kinds.count("column") == sum(len(t.columns) for t in TABLES)
    assert kinds.count("relationship") == sum(len(t.foreign_keys) for t in TABLES)
    by_subject = {f.subject: f for f in facts}
    teu = by_subject["SUPPLYCHAIN.VESSELS.CAPACITY_TEU"].content
    assert "TEU" in teu and "NOT NULL" in teu and "NUMBER" in teu
    assert "cents" in by_subject["SUPPLYCHAIN.CARGO_ITEMS.UNIT_VALUE_CENTS"].content.lower()
    vessels = by_subject["SUPPLYCHAIN.VESSELS"]
    assert vessels.metadata["row_count"] == scanner.row_count("SUPPLYCHAIN", "VESSELS") > 0
    assert "rows)" in vessels.content
    rel = [f for f in facts if f.kind == "relationship" and "VESSELS.CARRIER_ID" in f.subject]
    assert rel and "CARRIERS.CARRIER_ID" in rel[0].content


def test_scan_is_idempotent_and_a_changed_comment_updates_exactly_one_memory(harness, scanner):
    first = scanner.scan("SUPPLYCHAIN")
    total = first["added"]
    assert total > 50 and first["updated"] == 0
    again = scanner.scan("SUPPLYCHAIN")
    assert again == {"added": 0, "updated": 0, "unchanged": total, "removed": 0}
    before = {m.subject: (m.id, m.content_hash) for m in scanner.memory.list(limit=10_000)}
    original = next(
        c.comment for t in TABLES if t.name == "ports" for c in t.columns if c.name == "berths"
    )
    try:
        harness.backend.set_comment("ports", "berths", "Number of container berths (changed).")
        changed = scanner.scan("SUPPLYCHAIN")
        assert changed == {"added": 0, "updated": 1, "unchanged": total - 1, "removed": 0}
        after = {m.subject: (m.id, m.content_hash) for m in scanner.memory.list(limit=10_000)}
        diff = [s for s in after if after[s] != before[s]]
        assert diff == ["SUPPLYCHAIN.PORTS.BERTHS"]
        assert after["SUPPLYCHAIN.PORTS.BERTHS"][0] == before["SUPPLYCHAIN.PORTS.BERTHS"][0]
        hit = scanner.memory.search("container berths changed", k=1, mode="keyword")[0]
        assert hit.subject == "SUPPLYCHAIN.PORTS.BERTHS"
    finally:
        harness.backend.set_comment("ports", "berths", original)


@pytest.mark.parametrize("owner", ["", "x; DROP TABLE y", "1abc", None])
def test_scanner_rejects_bad_owner_names(scanner, owner):
    with pytest.raises(ValueError, match="schema name"):
        scanner.scan(owner)


def test_unknown_owner_gives_no_facts(scanner):
    assert scanner.facts("NOBODY") == []


def test_scan_database_tool(harness):
    import json

    out = json.loads(harness.tools.call("scan_database", {}))
    assert out["added"] == 0 and out["unchanged"] > 50
    assert "error" in json.loads(harness.tools.call("scan_database", {"owner": "a b"}))


class _DictionaryRows:
    """Stands in for a backend's ``query``: rows of ALL_TAB_COLUMNS / ALL_COL_COMMENTS shaped as
    Oracle shows an INVISIBLE column (listed, with a NULL COLUMN_ID; see the ALL_TAB_COLS page
    of the Oracle Database Reference: only system-generated hidden columns are left out)."""

    def __init__(self):
        import apsw

        self.conn = apsw.Connection(":memory:")
        self.conn.execute(
            "CREATE TABLE all_tab_columns (owner, table_name, column_name, data_type,"
            " data_length, data_scale, nullable, column_id);"
            "CREATE TABLE all_col_comments (owner, table_name, column_name, comments);"
            "INSERT INTO all_tab_columns VALUES"
            " ('SUPPLYCHAIN', 'PORTS', 'PORT_CODE', 'VARCHAR2', 5, NULL, 'N', 1),"
            " ('SUPPLYCHAIN', 'PORTS', 'LATITUDE', 'NUMBER', 22, NULL, 'Y', 2),"
            " ('SUPPLYCHAIN', 'PORTS', 'LOCATION', 'SDO_GEOMETRY', 1, NULL, 'Y', NULL);"
            "INSERT INTO all_col_comments VALUES"
            " ('SUPPLYCHAIN', 'PORTS', 'LOCATION', 'Invisible SDO_GEOMETRY point');"
        )

    def query(self, sql, binds=None):
        cursor = self.conn.execute(sql, binds or {})
        names = [d[0].lower() for d in cursor.get_description()]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def test_invisible_columns_are_not_column_facts():
    facts = CatalogScanner(_DictionaryRows(), memory=None).column_facts("SUPPLYCHAIN")
    assert [f.subject for f in facts] == [
        "SUPPLYCHAIN.PORTS.PORT_CODE",
        "SUPPLYCHAIN.PORTS.LATITUDE",
    ]
