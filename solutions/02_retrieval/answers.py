"""Plausible wrong implementations of the TODOs in solutions/02_retrieval.ipynb.

Each entry replaces the whole source of the solution cell with that ``grade_id``; the TODO's
grade cell covering the broken behaviour (``COVERED_BY``, default: the TODO's first grade
cell) must then score 0 while the untouched solution passes.
"""

_RETRIEVE_HEAD = '''def retrieve_knowledge(query, k=5, kinds=None):
    """Wrong on purpose: see the mutant's description."""
'''

_KINDS = """    if isinstance(kinds, str):
        kinds = kinds.split(",")
    wanted = {name.strip() for name in (kinds or []) if name and name.strip()}
"""

_HYBRID_HEAD = '''def hybrid_rrf_search(query, k=5, per_list=30, rrf_k=60):
    """Wrong on purpose: see the mutant's description."""
'''

_HYBRID_SQL = '''    sql = f"""
WITH vec AS ({VEC}),
     txt AS ({TXT})
SELECT m.id, m.kind, m.subject, m.content,
       COALESCE(vec.r, 999999) AS r_vec,
       COALESCE(txt.r, 999999) AS r_txt,
       1.0 / (:rrf_k + COALESCE(vec.r, 999999))
         + 1.0 / (:rrf_k + COALESCE(txt.r, 999999)) AS rrf_score
FROM vec
FULL OUTER JOIN txt ON txt.id = vec.id
JOIN memories m ON m.id = COALESCE(vec.id, txt.id)
ORDER BY rrf_score DESC, m.id
{TOP_K}"""
'''

_BINDS = "    binds = hybrid_binds(h, query, k, per_list, rrf_k)\n"

_RUN = """    rows = h.backend.query(sql, binds)
    return [
        {"id": int(r["id"]), "kind": r["kind"], "subject": r["subject"],
         "content": r["content"], "r_vec": int(r["r_vec"]), "r_txt": int(r["r_txt"]),
         "rrf_score": float(r["rrf_score"])}
        for r in rows
    ]
"""


def _retrieve(body: str, kinds: str = _KINDS) -> str:
    return _RETRIEVE_HEAD + kinds + body


def _hybrid(old: str = "", new: str = "", binds: str = _BINDS) -> str:
    """The correct hybrid source with ``old`` replaced by ``new`` in its SQL."""
    sql = _HYBRID_SQL.replace(old, new) if old else _HYBRID_SQL
    if old and sql == _HYBRID_SQL:
        raise ValueError(f"mutant does not change the SQL: {old!r} not found")
    return _HYBRID_HEAD + sql + binds + _RUN


MUTANTS = {
    "retrieve_knowledge": [
        (
            "does not drop tool_output memories",
            _retrieve(
                """    candidates = h.memory.search(query, k=k * 4, mode="vector")
    kept = [m for m in candidates if not wanted or m.kind in wanted]
    return rerank(query, kept, k)
"""
            ),
        ),
        (
            "treats a comma-separated kinds string as one kind name",
            _retrieve(
                """    candidates = h.memory.search(query, k=k * 4, mode="vector")
    kept = [m for m in candidates
            if m.kind != "tool_output" and (not wanted or m.kind in wanted)]
    return rerank(query, kept, k)
""",
                kinds="""    if isinstance(kinds, str):
        kinds = [kinds]
    wanted = set(kinds or [])
""",
            ),
        ),
        (
            "splits the kinds string on commas but keeps the spaces",
            _retrieve(
                """    candidates = h.memory.search(query, k=k * 4, mode="vector")
    kept = [m for m in candidates
            if m.kind != "tool_output" and (not wanted or m.kind in wanted)]
    return rerank(query, kept, k)
""",
                kinds="""    if isinstance(kinds, str):
        kinds = kinds.split(",")
    wanted = set(kinds or [])
""",
            ),
        ),
        (
            "returns all k * 4 candidates (never cuts to k)",
            _retrieve(
                """    candidates = h.memory.search(query, k=k * 4, mode="vector")
    return [m for m in candidates
            if m.kind != "tool_output" and (not wanted or m.kind in wanted)]
"""
            ),
        ),
        (
            "no oversampling: searches k, then filters (comes back short)",
            _retrieve(
                """    candidates = h.memory.search(query, k=k, mode="vector")
    kept = [m for m in candidates
            if m.kind != "tool_output" and (not wanted or m.kind in wanted)]
    return rerank(query, kept, k)
"""
            ),
        ),
        (
            "ignores the kinds filter",
            _retrieve(
                """    candidates = h.memory.search(query, k=k * 4, mode="vector")
    kept = [m for m in candidates if m.kind != "tool_output"]
    return rerank(query, kept, k)
"""
            ),
        ),
        (
            "farthest first (sorted by distance, descending)",
            _retrieve(
                """    candidates = h.memory.search(query, k=k * 4, mode="vector")
    kept = [m for m in candidates
            if m.kind != "tool_output" and (not wanted or m.kind in wanted)]
    kept.sort(key=lambda m: m.score, reverse=True)
    return rerank(query, kept, k)
"""
            ),
        ),
        (
            "lets tool outputs through when they are asked for by kind",
            _retrieve(
                """    candidates = h.memory.search(query, k=k * 4, mode="vector")
    if wanted:
        kept = [m for m in candidates if m.kind in wanted]
    else:
        kept = [m for m in candidates if m.kind != "tool_output"]
    return rerank(query, kept, k)
"""
            ),
        ),
    ],
    "hybrid_rrf_search": [
        (
            "LEFT JOIN instead of FULL OUTER JOIN (loses keyword-only hits)",
            _hybrid("FULL OUTER JOIN", "LEFT JOIN"),
        ),
        (
            "inner JOIN instead of FULL OUTER JOIN (only hits found by both lists)",
            _hybrid("FULL OUTER JOIN", "JOIN"),
        ),
        (
            "wrong formula: 1 / (rrf_k * rank)",
            _hybrid(":rrf_k + COALESCE", ":rrf_k * COALESCE"),
        ),
        (
            "integer division: 1 / (rrf_k + rank) is 0 in SQLite",
            _hybrid("1.0 / (", "1 / ("),
        ),
        (
            "worst first: ORDER BY rrf_score ascending",
            _hybrid("ORDER BY rrf_score DESC, m.id", "ORDER BY rrf_score, m.id"),
        ),
        (
            "no tie-break: equal scores come back in any order",
            _hybrid("ORDER BY rrf_score DESC, m.id", "ORDER BY rrf_score DESC"),
        ),
        (
            "multiplies the two reciprocal ranks instead of adding them",
            _hybrid("+ 1.0 / (:rrf_k + COALESCE(txt.r", "* 1.0 / (:rrf_k + COALESCE(txt.r"),
        ),
        (
            "sentinel 0 instead of 999999 for a missing rank",
            _hybrid("999999", "0"),
        ),
        (
            "no sentinel: a missing rank stays NULL (score NULL, r_vec None)",
            _hybrid(
                """       COALESCE(vec.r, 999999) AS r_vec,
       COALESCE(txt.r, 999999) AS r_txt,
       1.0 / (:rrf_k + COALESCE(vec.r, 999999))
         + 1.0 / (:rrf_k + COALESCE(txt.r, 999999)) AS rrf_score""",
                """       vec.r AS r_vec,
       txt.r AS r_txt,
       1.0 / (:rrf_k + vec.r) + 1.0 / (:rrf_k + txt.r) AS rrf_score""",
            ),
        ),
        (
            "writes LIMIT :k instead of TOP_K (runs on SQLite only)",
            _hybrid("{TOP_K}", "LIMIT :k"),
        ),
        (
            "binds the raw query text as :q (quotes and operators break full-text search)",
            _hybrid(binds=_BINDS + '    binds["q"] = query\n'),
        ),
        (
            "ignores per_list and rrf_k (hybrid_binds with their defaults)",
            _hybrid(binds="    binds = hybrid_binds(h, query, k)\n"),
        ),
        (
            "no SQL of its own: wraps h.memory.search(mode='hybrid')",
            _HYBRID_HEAD
            + """    hits = h.memory.search(
        query, k=k, mode="hybrid", per_list=per_list, rrf_k=rrf_k
    )
    return [
        {"id": m.id, "kind": m.kind, "subject": m.subject, "content": m.content,
         "r_vec": m.r_vec, "r_txt": m.r_txt, "rrf_score": m.rrf_score}
        for m in hits
    ]
""",
        ),
    ],
}

#: The grade cell covering each mutant's broken behaviour (default: the TODO's first one).
COVERED_BY = {
    "does not drop tool_output memories": "retrieve_knowledge_tool_outputs",
    "no oversampling: searches k, then filters (comes back short)": (
        "retrieve_knowledge_tool_outputs"
    ),
    "lets tool outputs through when they are asked for by kind": (
        "retrieve_knowledge_tool_outputs"
    ),
    "treats a comma-separated kinds string as one kind name": "retrieve_knowledge_kinds",
    "splits the kinds string on commas but keeps the spaces": "retrieve_knowledge_kinds",
    "ignores the kinds filter": "retrieve_knowledge_kinds",
    "no tie-break: equal scores come back in any order": "hybrid_rrf_search_ties",
    "ignores per_list and rrf_k (hybrid_binds with their defaults)": (
        "hybrid_rrf_search_parameters"
    ),
}
