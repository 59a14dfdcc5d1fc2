"""Other answers to the TODOs of 00_setup.ipynb (beside this file), for the tests.

Wrong ones: ``MUTANTS`` (each scores 0 on the grade cell of ``COVERED_BY``, default the TODO's
first), ``WRONG`` and ``ALWAYS_EQUAL`` (pass the visible checks; a value check must catch
them) and ``VISIBLE`` (once passed the visible checks; now fail them). Correct ones:
``CORRECT`` and ``MORE_CORRECT`` (each scores full marks). What each table holds and which test
reads it: docs/notebook-authoring.md, "A notebook's folder".
"""

_HEAD = '''def top_carriers_by_teu(n):
    """Wrong on purpose: see the mutant's description."""
'''


def _query(select: str, order: str = "total_teu DESC, c.name", max_rows: str = "n") -> str:
    """A top_carriers_by_teu body with one part of the correct query changed."""
    return (
        _HEAD
        + f'''    result = h.backend.readonly_query(
        """SELECT {select}
           FROM supplychain.carriers c
           JOIN supplychain.vessels v ON v.carrier_id = c.carrier_id
           GROUP BY c.carrier_id, c.name
           ORDER BY {order}""",
        max_rows={max_rows},
    )
    return [(name, int(total)) for name, total in result.rows]
'''
    )


MUTANTS = {
    "top_carriers_by_teu": [
        (
            "sums deadweight_tons (weight) instead of capacity_teu",
            _query("c.name, SUM(v.deadweight_tons) AS total_teu"),
        ),
        (
            "smallest total first (ascending order)",
            _query("c.name, SUM(v.capacity_teu) AS total_teu", order="total_teu, c.name"),
        ),
        (
            "ignores n: returns every carrier",
            _query("c.name, SUM(v.capacity_teu) AS total_teu", max_rows="1000"),
        ),
        (
            "off by one: returns n + 1 carriers",
            _query("c.name, SUM(v.capacity_teu) AS total_teu", max_rows="n + 1"),
        ),
        (
            "the largest single ship per carrier (MAX) instead of the fleet total (SUM)",
            _query("c.name, MAX(v.capacity_teu) AS total_teu"),
        ),
        (
            "counts the vessels instead of summing their TEU",
            _query("c.name, COUNT(*) AS total_teu"),
        ),
        (
            "returns the carrier id instead of its name",
            _HEAD
            + '''    result = h.backend.readonly_query(
        """SELECT v.carrier_id, SUM(v.capacity_teu) AS total_teu
           FROM supplychain.vessels v
           GROUP BY v.carrier_id
           ORDER BY total_teu DESC""",
        max_rows=n,
    )
    return [(carrier_id, int(total)) for carrier_id, total in result.rows]
''',
        ),
        (
            "top n ships, not top n carriers (no GROUP BY)",
            _HEAD
            + '''    result = h.backend.readonly_query(
        """SELECT c.name, v.capacity_teu
           FROM supplychain.carriers c
           JOIN supplychain.vessels v ON v.carrier_id = c.carrier_id
           ORDER BY v.capacity_teu DESC""",
        max_rows=n,
    )
    return [(name, int(total)) for name, total in result.rows]
''',
        ),
        (
            "carriers without vessels listed with 0 (LEFT JOIN)",
            _HEAD
            + '''    result = h.backend.readonly_query(
        """SELECT c.name, COALESCE(SUM(v.capacity_teu), 0) AS total_teu
           FROM supplychain.carriers c
           LEFT JOIN supplychain.vessels v ON v.carrier_id = c.carrier_id
           GROUP BY c.carrier_id, c.name
           ORDER BY total_teu DESC, c.name""",
        max_rows=n,
    )
    return [(name, int(total)) for name, total in result.rows]
''',
        ),
        (
            "no tie-break: equal totals in whatever order the database gives",
            _query("c.name, SUM(v.capacity_teu) AS total_teu", order="total_teu DESC"),
        ),
    ],
}

#: The grade cell covering each mutant's broken behaviour (default: the TODO's first one).
COVERED_BY = {
    "no tie-break: equal totals in whatever order the database gives": "top_carriers_by_teu_ties",
}


# --- Answers at the visible checks' edge (WRONG, ALWAYS_EQUAL, VISIBLE) and correct ones

_TOP_SQL = '''    result = h.backend.readonly_query(
        """SELECT c.name, SUM(v.capacity_teu) AS total_teu
           FROM supplychain.carriers c
           JOIN supplychain.vessels v ON v.carrier_id = c.carrier_id
           GROUP BY c.carrier_id, c.name
           ORDER BY total_teu DESC, c.name""",
        max_rows={max_rows},
    )
    return [(name, int(total)) for name, total in result.rows]
'''


def _top(max_rows: str) -> str:
    """top_carriers_by_teu with the correct query, keeping ``max_rows`` rows."""
    return "def top_carriers_by_teu(n):\n" + _TOP_SQL.format(max_rows=max_rows)


_TOP_IN_PYTHON = """def top_carriers_by_teu(n):
    names = dict(h.backend.readonly_query(
        "SELECT carrier_id, name FROM supplychain.carriers", max_rows=1000).rows)
    totals = {}
    for carrier_id, teu in h.backend.readonly_query(
            "SELECT carrier_id, capacity_teu FROM supplychain.vessels", max_rows=1000).rows:
        totals[names[carrier_id]] = totals.get(names[carrier_id], 0) + teu
    ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]
"""


_TOP_CORRELATED = '''def top_carriers_by_teu(n):
    rows = h.backend.readonly_query(
        """SELECT c.name AS carrier,
                  (SELECT SUM(v.capacity_teu) FROM supplychain.vessels v
                   WHERE v.carrier_id = c.carrier_id) AS teu
           FROM supplychain.carriers c
           WHERE EXISTS (SELECT 1 FROM supplychain.vessels v WHERE v.carrier_id = c.carrier_id)
           ORDER BY teu DESC, carrier""",
        {},
        max_rows=n,
    ).rows
    found = []
    for carrier, teu in rows:
        found.append((str(carrier), int(teu)))
    return found
'''


WRONG = {
    "top_carriers_by_teu": [
        ("at least 3 carriers, whatever n (max_rows=max(n, 3))", _top("max(int(n), 3)")),
    ],
}
#: Answers that passed the visible checks before issue 11 and now fail them (each behaviour
#: that is graded has a visible check of its own): grade_id -> [(label, source)].
VISIBLE = {
    "top_carriers_by_teu": [
        ("always the top 3, whatever n", _top("3")),
        ("at most 10 carriers (n capped)", _top("min(int(n), 10)")),
    ],
}
CORRECT = {"top_carriers_by_teu": _TOP_IN_PYTHON}
#: More correct answers, each run on its own: [(label, {solution grade_id: source})].
#: Each must score full marks (with CORRECT: several styles per TODO).
MORE_CORRECT = [
    ("the query with the largest first", {"top_carriers_by_teu": _top("n")}),
    ("a correlated subquery per carrier", {"top_carriers_by_teu": _TOP_CORRELATED}),
]
