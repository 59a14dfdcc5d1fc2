"""Oracle's data dictionary views, emulated on SQLite for the embedded backend.

SQLite has no ``COMMENT ON`` and no data dictionary, so the embedded backend keeps comments in
``supplychain._dictionary_comments`` and creates ``ALL_TABLES``, ``ALL_TAB_COMMENTS``,
``ALL_TAB_COLUMNS``, ``ALL_COL_COMMENTS``, ``ALL_CONSTRAINTS`` and ``ALL_CONS_COLUMNS`` as TEMP
views over it: the catalog scanner's SQL (:mod:`agent_harness.parts.catalog_scanner`) runs unchanged
on both backends, and so does a participant's dictionary query through ``run_sql``.
"""

from __future__ import annotations

import apsw

__all__ = ["COMMENTS_DDL", "USER_TABLES_SQL", "create_dictionary_views"]

# Tables whose names start with ``_`` are the emulation's own.
USER_TABLES_SQL = (
    "SELECT name FROM supplychain.sqlite_schema WHERE type = 'table'"
    " AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'"
)
COMMENTS_DDL = (
    "CREATE TABLE IF NOT EXISTS supplychain._dictionary_comments ("
    " table_name TEXT NOT NULL, column_name TEXT NOT NULL DEFAULT '',"
    " comments TEXT, PRIMARY KEY (table_name, column_name))"
)


def create_dictionary_views(conn: apsw.Connection) -> None:
    """Emulate Oracle's data dictionary views over ``supplychain`` as TEMP views.

    Only the columns the harness and the workshop use; names, owners and types are upper-case
    as Oracle shows them. Tables whose names start with ``_`` are the emulation's own.
    """
    owner = "'SUPPLYCHAIN'"
    user_tables = USER_TABLES_SQL
    views = {
        "all_tables": f"SELECT {owner} AS owner, upper(t.name) AS table_name,"
        f" NULL AS num_rows FROM ({user_tables}) t",
        "all_tab_comments": f"SELECT {owner} AS owner, upper(t.name) AS table_name,"
        " 'TABLE' AS table_type, c.comments FROM (" + user_tables + ") t"
        " LEFT JOIN supplychain._dictionary_comments c"
        " ON c.table_name = upper(t.name) AND c.column_name = ''",
        "all_tab_columns": f"SELECT {owner} AS owner, upper(t.name) AS table_name,"
        " upper(p.name) AS column_name,"
        " upper(CASE WHEN instr(p.type, '(') > 0 THEN substr(p.type, 1, instr(p.type, '(') - 1)"
        " ELSE p.type END) AS data_type,"
        " CASE WHEN instr(p.type, '(') > 0 THEN"
        " CAST(substr(p.type, instr(p.type, '(') + 1) AS INTEGER) END AS data_length,"
        " CASE WHEN instr(p.type, ',') > 0 THEN"
        " CAST(substr(p.type, instr(p.type, ',') + 1) AS INTEGER) END AS data_scale,"
        " CASE WHEN p.\"notnull\" = 1 OR p.pk > 0 THEN 'N' ELSE 'Y' END AS nullable,"
        " p.cid + 1 AS column_id"
        f" FROM ({user_tables}) t JOIN pragma_table_info(t.name, 'supplychain') p",
        "all_col_comments": "SELECT c.owner, c.table_name, c.column_name, d.comments"
        " FROM all_tab_columns c LEFT JOIN supplychain._dictionary_comments d"
        " ON d.table_name = c.table_name AND d.column_name = c.column_name",
        "all_constraints": f"SELECT {owner} AS owner, 'PK_' || upper(t.name) AS constraint_name,"
        " 'P' AS constraint_type, upper(t.name) AS table_name, NULL AS r_owner,"
        " NULL AS r_constraint_name"
        f" FROM ({user_tables}) t WHERE EXISTS (SELECT 1 FROM"
        " pragma_table_info(t.name, 'supplychain') p WHERE p.pk > 0)"
        f" UNION ALL SELECT {owner}, 'FK_' || upper(t.name) || '_' || upper(f.\"from\"), 'R',"
        f" upper(t.name), {owner}, 'PK_' || upper(f.\"table\")"
        f" FROM ({user_tables}) t JOIN pragma_foreign_key_list(t.name, 'supplychain') f",
        "all_cons_columns": f"SELECT {owner} AS owner, 'PK_' || upper(t.name) AS constraint_name,"
        " upper(t.name) AS table_name, upper(p.name) AS column_name, p.pk AS position"
        f" FROM ({user_tables}) t JOIN pragma_table_info(t.name, 'supplychain') p WHERE p.pk > 0"
        f" UNION ALL SELECT {owner}, 'FK_' || upper(t.name) || '_' || upper(f.\"from\"),"
        ' upper(t.name), upper(f."from"), f.seq + 1'
        f" FROM ({user_tables}) t JOIN pragma_foreign_key_list(t.name, 'supplychain') f",
    }
    for name, select in views.items():
        # Each use of a view in a statement is computed once (MATERIALIZED): joined as the
        # catalog scanner joins them (constraints to their columns, twice), SQLite would
        # otherwise run the pragma functions again for every row of the outer view
        # (tests/test_embedded_backend.py counts them).
        conn.execute(
            f"CREATE TEMP VIEW IF NOT EXISTS {name} AS"
            f" WITH {name}_rows AS MATERIALIZED ({select}) SELECT * FROM {name}_rows"
        )
