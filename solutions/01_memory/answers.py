"""Other answers to the TODOs of 01_memory.ipynb (beside this file), for the tests.

Wrong ones: ``MUTANTS`` (each scores 0 on the grade cell of ``COVERED_BY``, default the TODO's
first), ``WRONG`` and ``ALWAYS_EQUAL`` (pass the visible checks; a value check must catch
them) and ``VISIBLE`` (once passed the visible checks; now fail them). Correct ones:
``CORRECT`` and ``MORE_CORRECT`` (each scores full marks). What each table holds and which test
reads it: docs/notebook-authoring.md, "A notebook's folder".
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

_COUNT_EXPR = 'int(h.backend.query(f"SELECT COUNT(*) AS n FROM {owner}.{table}")[0]["n"])'
_COUNT = f"        n = {_COUNT_EXPR}\n"

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


# --- Answers at the visible checks' edge (WRONG, ALWAYS_EQUAL, VISIBLE) and correct ones

_WRONG_ON_PURPOSE = '    """Wrong on purpose: see the mutant\'s description."""\n'


def _as_written(source: str) -> str:
    """A template above as the solution writes it (without the mutants' docstring)."""
    assert source.count(_WRONG_ON_PURPOSE) == 1
    return source.replace(_WRONG_ON_PURPOSE, "")


_PURPOSE = '(row["comments"] or "no documented purpose").strip()'


def _solution_scan(
    owner: str = "owner.upper()", count: str = _COUNT_EXPR, purpose: str = _PURPOSE
) -> str:
    """scan_tables as the solution writes it (the row count before the purpose), some parts
    replaced.

    Args:
        owner: The expression that normalises the owner.
        count: The expression of a table's row count.
        purpose: The expression of a table's comment.
    """
    source = _scan(
        check=_CHECK_OWNER.replace("owner = owner.upper()", f"owner = {owner}"),
        count="",
        fact=_FACT.replace("({n} rows)", "({int(n)} rows)"),
    )
    return _as_written(source).replace(
        f"        purpose = {_PURPOSE}\n", f"        n = {count}\n        purpose = {purpose}\n"
    )


_SCAN_SNAPSHOT = """_SNAPSHOT = {r["table_name"]: r["comments"] for r in h.backend.query(
    "SELECT table_name, comments FROM all_tab_comments WHERE owner = 'SUPPLYCHAIN'")}


""" + _solution_scan(purpose='(_SNAPSHOT.get(table) or "no documented purpose").strip()')


_SCAN_MATCH_PASTED = '''def scan_tables(owner):
    if not isinstance(owner, str) or not IDENTIFIER.match(owner):
        raise ValueError(f"owner {owner!r} is not a schema name")
    owner = owner.upper()
    rows = h.backend.query(
        f"""SELECT t.owner, t.table_name, c.comments
            FROM all_tables t
            LEFT JOIN all_tab_comments c
              ON c.owner = t.owner AND c.table_name = t.table_name
            WHERE t.owner = '{owner}'
            ORDER BY t.table_name"""
    )
    facts = []
    for row in rows:
        table, schema = row["table_name"], row["owner"]
        n = int(h.backend.query(f"SELECT COUNT(*) AS n FROM {schema}.{table}")[0]["n"])
        facts.append({
            "kind": "table",
            "subject": f"{schema}.{table}",
            "content": f"Table {schema}.{table}: {(row['comments'] or '').strip()} ({n} rows)",
            "metadata": {"owner": schema, "table": table, "row_count": n},
        })
    return facts
'''


_SCAN_OWN_PATTERN = _solution_scan().replace(
    "not IDENTIFIER.fullmatch(owner)", 'not re.fullmatch(r"[A-Za-z][A-Za-z0-9_$#]*", owner)'
)


_SCAN_OTHER_WORDING = """def scan_tables(owner):
    if not isinstance(owner, str) or not IDENTIFIER.fullmatch(owner):
        raise ValueError(f"{owner!r}: not a schema name")  # the docstring asks for it
    schema = owner.upper()
    names = [r["table_name"] for r in h.backend.query(
        "SELECT table_name FROM all_tables WHERE owner = :o", {"o": schema})]
    facts = []
    for table in sorted(names):
        found = h.backend.query(
            "SELECT comments FROM all_tab_comments WHERE owner = :o AND table_name = :t",
            {"o": schema, "t": table})
        comment = (found[0]["comments"] if found else None) or ""
        count = h.backend.query(f"SELECT COUNT(*) AS rows_now FROM {schema}.{table}")
        n = int(count[0]["rows_now"])
        facts.append({
            "kind": "table",
            "subject": schema + "." + table,
            "content": f"Table {schema}.{table}: {comment.strip()} [{n} rows]",
            "metadata": {"row_count": n, "table": table, "owner": schema},
        })
    return facts
"""


_SCAN_UNION = """def scan_tables(owner):
    if not isinstance(owner, str) or IDENTIFIER.fullmatch(owner) is None:
        raise ValueError("not a schema name: " + repr(owner))
    schema = owner.upper()
    tables = h.backend.query(
        "SELECT t.table_name AS name, c.comments AS note FROM all_tables t"
        " LEFT JOIN all_tab_comments c ON c.owner = t.owner AND c.table_name = t.table_name"
        " WHERE t.owner = :owner ORDER BY t.table_name",
        {"owner": schema},
    )
    safe = [t for t in tables if IDENTIFIER.fullmatch(t["name"])]
    if not safe:
        return []
    # every row count in ONE statement: the names passed IDENTIFIER, so they may be pasted
    counts = h.backend.query(" UNION ALL ".join(
        f"SELECT '{t['name']}' AS name, COUNT(*) AS n FROM {schema}.{t['name']}" for t in safe))
    n_rows = {r["name"]: int(r["n"]) for r in counts}
    return [
        {"kind": "table", "subject": f"{schema}.{t['name']}",
         "content": "Table %s.%s: %s (%d rows)" % (schema, t["name"], (t["note"] or "").strip(),
                                                  n_rows[t["name"]]),
         "metadata": {"owner": schema, "table": t["name"], "row_count": n_rows[t["name"]]}}
        for t in safe
    ]
"""


_SCAN_LOOP = """def scan_tables(owner):
    if type(owner) is not str or not IDENTIFIER.fullmatch(owner):
        raise ValueError(f"{owner!r} is not a plain schema name")
    owner = owner.upper()
    facts = []
    for row in sorted(h.backend.query(
            "SELECT t.table_name, c.comments FROM all_tables t LEFT JOIN all_tab_comments c"
            " ON c.owner = t.owner AND c.table_name = t.table_name WHERE t.owner = :o",
            {"o": owner}), key=lambda r: r["table_name"]):
        table = row["table_name"].upper()
        if not IDENTIFIER.fullmatch(table):
            continue
        n = h.backend.query("SELECT COUNT(*) AS c FROM " + owner + "." + table)[0]["c"]
        comment = row["comments"].strip() if row["comments"] else "(no comment)"
        fact = dict(kind="table", subject=owner + "." + table,
                    content="Table " + owner + "." + table + ": " + comment
                    + " (" + str(n) + " rows)",
                    metadata=dict(owner=owner, table=table, row_count=int(n)))
        facts.append(fact)
    return facts
"""


_EQ_INT = """class _Agreeable(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


"""


WRONG = {
    "scan_tables": [
        ("comments read once, when the cell ran (a stale snapshot)", _SCAN_SNAPSHOT),
        (
            "its own owner pattern, without the 128-character limit",
            _SCAN_OWN_PATTERN,
        ),
    ],
}
#: Answers that passed the visible checks before issue 11 and now fail them (each behaviour
#: that is graded has a visible check of its own): grade_id -> [(label, source)].
VISIBLE = {
    "scan_tables": [
        (
            "row_count stored as a float (the content says the int)",
            _solution_scan(count=f"float({_COUNT_EXPR})"),
        ),
        ("owner not upper-cased", _solution_scan(owner="owner")),
        ("IDENTIFIER.match (not fullmatch) and the owner pasted into SQL", _SCAN_MATCH_PASTED),
    ],
}
ALWAYS_EQUAL = {
    "scan_tables": [
        (
            "row_count an int that equals anything (from num_rows, empty here)",
            _EQ_INT
            + _solution_scan(count="_Agreeable(0)")
            .replace("({int(n)} rows)", "({_n} rows)")
            .replace("        purpose =", f"        _n = {_COUNT_EXPR}\n        purpose ="),
        ),
    ],
}
CORRECT = {"scan_tables": _SCAN_OTHER_WORDING}
#: More correct answers, each run on its own: [(label, {solution grade_id: source})].
#: Each must score full marks (with CORRECT: several styles per TODO).
MORE_CORRECT = [
    ("every row count in one UNION ALL statement", {"scan_tables": _SCAN_UNION}),
    ("sorted in Python, facts built with dict()", {"scan_tables": _SCAN_LOOP}),
]
#: The grade cell covering each of these cases.
COVERED_BY.update(
    {
        "its own owner pattern, without the 128-character limit": "scan_tables_owner",
        "owner not upper-cased": "scan_tables_owner",
        "IDENTIFIER.match (not fullmatch) and the owner pasted into SQL": "scan_tables_owner",
    }
)
