"""Plausible wrong implementations of the TODO in solutions/00_setup.ipynb.

Each entry replaces the whole source of the solution cell with that ``grade_id``; the TODO's
grade cell must then fail (score 0) while the untouched solution passes.
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
