"""Other answers to the TODOs of 02_retrieval.ipynb (beside this file), for the tests.

Wrong ones: ``MUTANTS`` (each scores 0 on the grade cell of ``COVERED_BY``, default the TODO's
first), ``WRONG`` and ``ALWAYS_EQUAL`` (pass the visible checks; a value check must catch
them) and ``VISIBLE`` (once passed the visible checks; now fail them). Correct ones:
``CORRECT`` and ``MORE_CORRECT`` (each scores full marks). What each table holds and which test
reads it: docs/notebook-authoring.md, "A notebook's folder".
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


# --- Answers at the visible checks' edge (WRONG, ALWAYS_EQUAL, VISIBLE) and correct ones

_WRONG_ON_PURPOSE = '    """Wrong on purpose: see the mutant\'s description."""\n'


def _as_written(source: str) -> str:
    """A template above as the solution writes it (without the mutants' docstring)."""
    assert source.count(_WRONG_ON_PURPOSE) == 1
    return source.replace(_WRONG_ON_PURPOSE, "")


_WANTED = "{name.strip() for name in (kinds or []) if name and name.strip()}"


def _solution_retrieve(wanted: str = _WANTED, oversample: str = "4", split: str = ",") -> str:
    """retrieve_knowledge as the solution writes it, some parts replaced.

    Args:
        wanted: The expression of the set of wanted kinds.
        oversample: How many times k candidates to ask vector search for.
        split: The separator the kinds text is split on.
    """
    kinds = _KINDS.replace(_WANTED, wanted).replace('kinds.split(",")', f'kinds.split("{split}")')
    body = f"""    candidates = h.memory.search(query, k=k * {oversample}, mode="vector")
    kept = [m for m in candidates
            if m.kind != "tool_output" and (not wanted or m.kind in wanted)]
    return rerank(query, kept, k)
"""
    return _as_written(_retrieve(body, kinds))


_RETRIEVE_FILTERED_SEARCH = """def retrieve_knowledge(query, k=5, kinds=None):
    if isinstance(kinds, str):
        kinds = [part for part in kinds.split(",")]
    names = sorted({part.strip() for part in kinds or [] if part.strip()})
    if names:  # let the search filter the kinds first (the hidden tests accept this)
        found = h.memory.search(query, k=k * 4, mode="vector", kinds=names)
    else:
        found = h.memory.search(query, k=k * 4, mode="vector", exclude_kinds=["tool_output"])
    found = [m for m in found if m.kind != "tool_output"]
    return rerank(query, found, k)
"""


def _solution_hybrid(
    binds: str = "k, per_list, rrf_k", id_: str = 'int(r["id"])', head: str = ""
) -> str:
    """hybrid_rrf_search as the solution writes it, some parts replaced.

    Args:
        binds: The arguments of hybrid_binds after ``h, query``.
        id_: The expression of each row's id.
        head: Code put before the function (a helper class).
    """
    binds_line = f"    binds = hybrid_binds(h, query, {binds})\n"
    return head + _as_written(_hybrid(binds=binds_line)).replace(
        '"id": int(r["id"])', f'"id": {id_}'
    )


_HYBRID_OTHER_SQL = '''def hybrid_rrf_search(query, k=5, per_list=30, rrf_k=60):
    statement = f"""
WITH by_meaning AS ({VEC}),
     by_words AS ({TXT}),
     fused AS (
       SELECT COALESCE(a.id, b.id) AS memory_id,
              CASE WHEN a.r IS NULL THEN 999999 ELSE a.r END AS rank_v,
              CASE WHEN b.r IS NULL THEN 999999 ELSE b.r END AS rank_t
       FROM by_meaning a FULL OUTER JOIN by_words b ON a.id = b.id)
SELECT mem.id, mem.kind, mem.subject, mem.content, f.rank_v, f.rank_t,
       1.0 / (:rrf_k + f.rank_v) + 1.0 / (:rrf_k + f.rank_t) AS fused_score
FROM fused f JOIN memories mem ON mem.id = f.memory_id
ORDER BY fused_score DESC, mem.id
{TOP_K}"""
    binds = hybrid_binds(h, query, k=k, per_list=per_list, rrf_k=rrf_k)
    out = []
    for row in h.backend.query(statement, binds):
        out.append(dict(id=row["id"], kind=row["kind"], subject=row["subject"],
                        content=row["content"], r_vec=int(row["rank_v"]),
                        r_txt=int(row["rank_t"]), rrf_score=float(row["fused_score"])))
    return out
'''


_RETRIEVE_LOOP = """def retrieve_knowledge(query, k=5, kinds=None):
    import re

    if isinstance(kinds, str):
        wanted = {name for name in re.split(r"\\s*,\\s*", kinds.strip()) if name}
    else:
        wanted = {str(name).strip() for name in kinds or [] if str(name).strip()}
    kept = []
    for memory in h.memory.search(query, k=4 * k, mode="vector"):
        if memory.kind == "tool_output":
            continue  # logged outputs are data, never knowledge
        if wanted and memory.kind not in wanted:
            continue
        kept.append(memory)
    return rerank(query, kept, k)
"""


_RETRIEVE_FUNCTIONAL = """def retrieve_knowledge(query, k=5, kinds=None):
    names = kinds.split(",") if isinstance(kinds, str) else (kinds or [])
    wanted = frozenset(filter(None, map(str.strip, names)))
    pool = h.memory.search(query, k=k * 4, mode="vector", exclude_kinds="tool_output")
    pool = list(filter(lambda m: m.kind != "tool_output" and (not wanted or m.kind in wanted),
                       pool))
    pool.sort(key=lambda m: m.score)
    return rerank(query, pool, k)
"""


_HYBRID_UNION = '''def hybrid_rrf_search(query, k=5, per_list=30, rrf_k=60):
    # UNION ALL + GROUP BY instead of a FULL OUTER JOIN: each list gives its rank, the other
    # side the sentinel; MIN keeps the real rank.
    sql = f"""
WITH vec AS ({VEC}),
     txt AS ({TXT}),
     both_lists AS (
       SELECT id, r AS r_vec, 999999 AS r_txt FROM vec
       UNION ALL
       SELECT id, 999999 AS r_vec, r AS r_txt FROM txt),
     fused AS (
       SELECT id, MIN(r_vec) AS r_vec, MIN(r_txt) AS r_txt FROM both_lists GROUP BY id)
SELECT m.id, m.kind, m.subject, m.content, f.r_vec, f.r_txt,
       1.0 / (:rrf_k + f.r_vec) + 1.0 / (:rrf_k + f.r_txt) AS rrf_score
FROM fused f
JOIN memories m ON m.id = f.id
ORDER BY rrf_score DESC, m.id ASC
{TOP_K}"""
    found = []
    for row in h.backend.query(sql, hybrid_binds(h, query, k, per_list, rrf_k)):
        found.append({
            "id": int(row["id"]), "kind": row["kind"], "subject": row["subject"],
            "content": row["content"], "r_vec": int(row["r_vec"]), "r_txt": int(row["r_txt"]),
            "rrf_score": float(row["rrf_score"]),
        })
    return found
'''


_HYBRID_TXT_FIRST = """def hybrid_rrf_search(query, k=5, per_list=30, rrf_k=60):
    binds = hybrid_binds(h, query, k=k, per_list=per_list, rrf_k=rrf_k)
    statement = (
        f"WITH vec AS ({VEC}), txt AS ({TXT}) "
        "SELECT x.*, 1.0 / (:rrf_k + x.r_vec) + 1.0 / (:rrf_k + x.r_txt) AS rrf_score FROM ("
        " SELECT mem.id, mem.kind, mem.subject, mem.content,"
        "  CASE WHEN vec.r IS NULL THEN 999999 ELSE vec.r END AS r_vec,"
        "  CASE WHEN txt.r IS NULL THEN 999999 ELSE txt.r END AS r_txt"
        " FROM txt FULL JOIN vec ON vec.id = txt.id"
        " JOIN memories mem ON mem.id = COALESCE(txt.id, vec.id)) x "
        f"ORDER BY 1.0 / (:rrf_k + x.r_vec) + 1.0 / (:rrf_k + x.r_txt) DESC, x.id {TOP_K}"
    )
    as_type = {"id": int, "r_vec": int, "r_txt": int, "rrf_score": float}
    return [
        {key: as_type.get(key, lambda v: v)(row[key])
         for key in ("id", "kind", "subject", "content", "r_vec", "r_txt", "rrf_score")}
        for row in h.backend.query(statement, binds)
    ]
"""


_EQ_INT = """class _Agreeable(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


"""


WRONG = {
    "retrieve_knowledge": [
        ("oversamples k * 3 instead of k * 4", _solution_retrieve(oversample="3")),
        (
            "kinds text split on ', ' exactly (no other spacing)",
            _solution_retrieve(wanted="{name for name in kinds or [] if name}", split=", "),
        ),
    ],
    "hybrid_rrf_search": [
        ("per_list capped at 30", _solution_hybrid(binds="k, min(per_list, 30), rrf_k")),
        ("at most 20 rows, whatever k", _solution_hybrid(binds="min(k, 20), per_list, rrf_k")),
    ],
}
#: Answers that passed the visible checks before issue 11 and now fail them (each behaviour
#: that is graded has a visible check of its own): grade_id -> [(label, source)].
VISIBLE = {
    "retrieve_knowledge": [
        ("kinds text split on commas, spaces kept", _solution_retrieve(wanted="set(kinds or [])")),
        ("oversamples k * 2 instead of k * 4", _solution_retrieve(oversample="2")),
    ],
    "hybrid_rrf_search": [
        ("ignores per_list (always 30)", _solution_hybrid(binds="k, 30, rrf_k")),
        ("ignores rrf_k (always 60)", _solution_hybrid(binds="k, per_list, 60")),
        ("at most 10 rows, whatever k", _solution_hybrid(binds="min(k, 10), per_list, rrf_k")),
        # issue 22, item 11: SQLite runs it, Oracle does not; the portability check names it
        (
            "IFNULL instead of COALESCE (runs on SQLite only)",
            _solution_hybrid().replace("COALESCE(", "IFNULL("),
        ),
    ],
}
ALWAYS_EQUAL = {
    "hybrid_rrf_search": [
        (
            "ids: the right ints, as a subclass that equals anything",
            _solution_hybrid(id_='_Agreeable(r["id"])', head=_EQ_INT),
        ),
    ],
}
CORRECT = {
    "retrieve_knowledge": _RETRIEVE_FILTERED_SEARCH,
    "hybrid_rrf_search": _HYBRID_OTHER_SQL,
}
#: More correct answers, each run on its own: [(label, {solution grade_id: source})].
#: Each must score full marks (with CORRECT: several styles per TODO).
MORE_CORRECT = [
    (
        "a loop, re.split for the kinds text; UNION ALL + GROUP BY instead of a FULL JOIN",
        {"retrieve_knowledge": _RETRIEVE_LOOP, "hybrid_rrf_search": _HYBRID_UNION},
    ),
    (
        "filter() and an explicit sort; txt FULL JOIN vec, CASE, ORDER BY the expression",
        {"retrieve_knowledge": _RETRIEVE_FUNCTIONAL, "hybrid_rrf_search": _HYBRID_TXT_FIRST},
    ),
]
#: The grade cell covering each of these cases.
COVERED_BY.update(
    {
        "kinds text split on commas, spaces kept": "retrieve_knowledge_kinds",
        "oversamples k * 2 instead of k * 4": "retrieve_knowledge_kinds",
        "oversamples k * 3 instead of k * 4": "retrieve_knowledge_kinds",
        "kinds text split on ', ' exactly (no other spacing)": "retrieve_knowledge_kinds",
        "ignores per_list (always 30)": "hybrid_rrf_search_parameters",
        "ignores rrf_k (always 60)": "hybrid_rrf_search_parameters",
        "per_list capped at 30": "hybrid_rrf_search_parameters",
        "at most 10 rows, whatever k": "hybrid_rrf_search_k",
        "at most 20 rows, whatever k": "hybrid_rrf_search_k",
    }
)
