"""Plausible wrong implementations of the TODO in solutions/01_memory.ipynb.

Each entry replaces the whole source of the solution cell with that ``grade_id``; the TODO's
grade cell covering the broken behaviour (``COVERED_BY``, default: the TODO's first grade
cell) must then score 0 while the untouched solution passes.
"""

_HEAD = '''def scan_tables(owner):
    """Wrong on purpose: see the mutant's description."""
'''

_CHECK_OWNER = """    if not isinstance(owner, str) or not IDENTIFIER.fullmatch(owner):
        raise ValueError(f"owner {owner!r} is not a schema name")
    owner = owner.upper()
"""

_TABLES_SQL = '''    rows = h.backend.query(
        """SELECT t.table_name, c.comments
           FROM all_tables t
           LEFT JOIN all_tab_comments c
             ON c.owner = t.owner AND c.table_name = t.table_name
           WHERE t.owner = :owner
           ORDER BY t.table_name""",
        {"owner": owner},
    )
'''

_COUNT = """        n = int(h.backend.query(f"SELECT COUNT(*) AS n FROM {owner}.{table}")[0]["n"])
"""

_FACT = """        facts.append({
            "kind": "table",
            "subject": f"{owner}.{table}",
            "content": f"Table {owner}.{table}: {purpose} ({n} rows)",
            "metadata": {"owner": owner, "table": table, "row_count": n},
        })
    return facts
"""


def _scan(
    check: str = _CHECK_OWNER,
    tables: str = _TABLES_SQL,
    count: str = _COUNT,
    fact: str = _FACT,
) -> str:
    """A scan_tables source made of the correct parts, with some replaced."""
    return (
        _HEAD
        + check
        + tables
        + """    facts = []
    for row in rows:
        table = row["table_name"]
        purpose = (row["comments"] or "no documented purpose").strip()
"""
        + count
        + fact
    )


MUTANTS = {
    "scan_tables": [
        (
            "forgets the row count in the content (only in metadata)",
            _scan(fact=_FACT.replace(" ({n} rows)", "")),
        ),
        (
            "counts the table's columns (all_tab_columns) instead of its rows",
            _scan(
                count="""        n = int(h.backend.query(
            "SELECT COUNT(*) AS n FROM all_tab_columns WHERE owner = :o AND table_name = :t",
            {"o": owner, "t": table},
        )[0]["n"])
"""
            ),
        ),
        (
            "uses all_tables.num_rows (statistics, empty here) instead of COUNT(*)",
            _scan(
                tables=_TABLES_SQL.replace("c.comments\n", "c.comments, t.num_rows\n"),
                count="""        n = row["num_rows"]
""",
            ),
        ),
        (
            "returns the comments of the columns (all_col_comments): one fact per column",
            _scan(
                tables='''    rows = h.backend.query(
        """SELECT t.table_name, c.comments
           FROM all_tables t
           JOIN all_col_comments c
             ON c.owner = t.owner AND c.table_name = t.table_name
           WHERE t.owner = :owner
           ORDER BY t.table_name""",
        {"owner": owner},
    )
'''
            ),
        ),
        (
            "owner is case-sensitive (not upper-cased)",
            _scan(check=_CHECK_OWNER.replace("    owner = owner.upper()\n", "")),
        ),
        (
            "pastes the owner into the SQL text: no validation, no bind",
            _scan(
                check="    owner = owner.upper()\n",
                tables='''    rows = h.backend.query(
        f"""SELECT t.table_name, c.comments
           FROM all_tables t
           LEFT JOIN all_tab_comments c
             ON c.owner = t.owner AND c.table_name = t.table_name
           WHERE t.owner = '{owner}'
           ORDER BY t.table_name"""
    )
''',
            ),
        ),
        (
            "not ordered by table name",
            _scan(tables=_TABLES_SQL.replace("ORDER BY t.table_name", "ORDER BY c.comments")),
        ),
        (
            "copies the comments from the Python schema instead of reading the database",
            _scan(
                tables="""    from agent_harness.supplychain import TABLES as _TABLES

    documented = {t.name.upper(): t.comment for t in _TABLES}
    rows = [
        {"table_name": r["table_name"], "comments": documented.get(r["table_name"])}
        for r in h.backend.query(
            "SELECT table_name FROM all_tables WHERE owner = :owner ORDER BY table_name",
            {"owner": owner},
        )
    ]
"""
            ),
        ),
        (
            "no owner check: a bad owner goes to the query as a bind (gives [], no ValueError)",
            _scan(check="    owner = owner.upper()\n"),
        ),
        (
            "also stores each fact with h.memory.add (scan_tables must only read)",
            _scan(
                fact=_FACT.replace(
                    "    return facts\n",
                    "    for fact in facts:\n"
                    '        h.memory.add(fact["content"], kind=fact["kind"], '
                    'subject=fact["subject"],\n'
                    '                     metadata=fact["metadata"])\n'
                    "    return facts\n",
                )
            ),
        ),
    ],
}

#: The grade cell covering each mutant's broken behaviour (default: the TODO's first one).
COVERED_BY = {
    "owner is case-sensitive (not upper-cased)": "scan_tables_owner",
    "pastes the owner into the SQL text: no validation, no bind": "scan_tables_owner",
    "no owner check: a bad owner goes to the query as a bind (gives [], no ValueError)": (
        "scan_tables_owner"
    ),
}
