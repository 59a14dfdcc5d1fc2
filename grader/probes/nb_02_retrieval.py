"""Probes of 02_retrieval.

``retrieve_knowledge``: the hidden tests put a logged tool output among the nearest memories,
then check several k, kinds given as a list or as a comma-separated string (spaces ignored),
that tool outputs never come back (not even when asked for by kind), other queries with a kinds
filter, the order (nearest first) and odd query texts. The probes record each result as
[kind, subject] pairs (memory ids shift when a notebook cell adds memories), plus whether a
tool output came back, whether only the wanted kinds came back, at most k, and whether the
distances ascend. With a kinds filter only the first n pairs are compared, n being the number
of memories of those kinds among the k * 4 nearest: like the hidden tests, the probes accept a
longer result (a search that filtered the kinds first), never a different start.

``hybrid_rrf_search``: the hidden tests compare the function with the library's hybrid search
for many queries, k, per_list and rrf_k, the sentinel rank 999999 on both sides, an empty
query and hostile query texts. The probes record each row as plain data (subject, kind, ranks,
score and the exact types), plus whether the ids equal the library's in the same run (which
also settles ties).
"""

from dataclasses import replace

from grader.probes import Probe

_Q = "vessel capacity_teu in TEU"

# A logged tool output that is the best match of all (as in the hidden tests); the probe
# deletes it again in its ``finally``.
_NOISE = f"""
_q = {_Q!r}
_noise = h.memory.add(_q + " (run_sql output: name, capacity_teu rows)", kind="tool_output",
                      subject="call_probe_retrieve", thread_id="probe-retrieve")


def _hits(query, k, kinds=None):
    # The student's result as [kind, subject] rows. With a kinds filter the hidden tests
    # accept any result that starts with the nearest memories of those kinds among the k * 4
    # nearest (n of them) and holds only those kinds: so only the first n rows are recorded.
    found = retrieve_knowledge(query, k=k, kinds=kinds)
    if type(found) is not list:
        return {{"not a list": type(found).__name__}}
    names = kinds.split(",") if isinstance(kinds, str) else list(kinds or [])
    wanted = {{name.strip() for name in names if name.strip()}}
    expected = [m for m in h.memory.search(query, k=k * 4, mode="vector")
                if m.kind != "tool_output" and (not wanted or m.kind in wanted)][:k]
    memories = [m for m in found if type(m) is agent_harness.Memory]
    rows = [[m.kind, m.subject] if type(m) is agent_harness.Memory else plain(m) for m in found]
    scores = [m.score for m in memories if m.score is not None]
    return {{
        "first": rows[:len(expected)],
        "n": len(expected),
        "at most k": len(found) <= k,
        "only memories": len(memories) == len(found),
        "kinds": all(m.kind in wanted for m in memories) if wanted else True,
        "no tool output": all(m.kind != "tool_output" and m.id != _noise for m in memories),
        "nearest first": scores == sorted(scores),
    }}
"""


def _with_noise(body: str) -> str:
    """Probe code that runs ``body`` with the noise memory in place, then deletes it."""
    indented = "".join(f"    {line}\n" if line else "\n" for line in body.strip().splitlines())
    return _NOISE + "try:\n" + indented + "finally:\n    h.memory.delete(_noise)\n"


_HYBRID = """
def _rows(query, **kw):
    found = hybrid_rrf_search(query, **kw)
    if type(found) is not list:
        return {"not a list": type(found).__name__}
    rows = []
    for row in found:
        if type(row) is not dict:
            rows.append({"not a dict": type(row).__name__})
            continue
        rows.append([plain(row.get(key)) for key in ("subject", "kind", "r_vec", "r_txt")]
                    + [plain(row.get("rrf_score"))]
                    + [type(row.get(key)).__name__ for key in ("id", "r_vec", "r_txt")]
                    + [type(row.get("rrf_score")).__name__])
    library = h.memory.search(query, mode="hybrid", **kw)
    mine = [plain([row.get("id"), row.get("content")]) if type(row) is dict else None
            for row in found]
    return [rows, mine == [[m.id, m.content] for m in library]]
"""

PROBES = {
    "retrieve_knowledge_checks": [
        Probe(
            "sizes",
            _with_noise(
                "value = [_hits(_q, k) for k in (1, 2, 3, 5, 8, 12)]\n"
                "value.append(plain([[m.kind, m.subject] for m in retrieve_knowledge(_q)]))"
            ),
            "with a logged tool output among the nearest memories, retrieve_knowledge(query, k) "
            "does not return the k nearest other memories (nearest first) for some k: "
            "oversample k * 4, drop tool outputs, then cut to k",
        ),
        Probe(
            "tool outputs never",
            _with_noise(
                'value = [_hits(_q, 5, "tool_output"), _hits(_q, 5, ["tool_output"]),\n'
                '         _hits(_q, 5, ["tool_output", "column"]),\n'
                '         _hits(_q, 5, "column,tool_output")]'
            ),
            "a memory of kind tool_output came back, or the other kinds asked for are wrong: "
            "tool outputs never come back, even when asked for by kind",
        ),
        Probe(
            "kinds as text",
            _with_noise(
                'value = [_hits(_q, 6, kinds) for kinds in (["table", "column"], "table,column",\n'
                '         "table, column", " table ,column ", "column, table",\n'
                '         "relationship", " relationship", ["relationship"], "table")]'
            ),
            "kinds does not filter right: a list and a comma-separated string (spaces around "
            "the names ignored) must mean the same kinds, and only those kinds come back",
        ),
        Probe(
            "no kinds",
            _with_noise('value = [_hits(_q, 4, kinds) for kinds in (None, "", [])]'),
            "kinds None or empty must mean every kind except tool_output",
        ),
        Probe(
            "other queries",
            _with_noise(
                "value = [_hits(query, 4, kinds) for query, kinds in (\n"
                '    ("how are voyages linked to vessels", "relationship"),\n'
                '    ("what does a carrier\'s SCAC code mean", ["column"]),\n'
                '    ("ship", None),\n'
                '    ("where is the ship right now", "table, relationship"),\n'
                '    ("cargo value in dollars", ["column", "table"]))]'
            ),
            "for other questions and kinds, retrieve_knowledge does not return the nearest "
            "memories of those kinds, nearest first",
        ),
        Probe(
            "odd queries",
            _with_noise(
                'value = [_hits(query, 2) for query in ("", "   ",\n'
                '         "\\"\'; DROP TABLE memories; --", "容量 TEU ☃", "x" * 3000)]\n'
                "value.append(h.memory.count() > 0)"
            ),
            "retrieve_knowledge must handle any query text (empty, quotes, unicode, very long) "
            "and still return the nearest memories",
        ),
    ],
    "hybrid_rrf_search_checks": [
        Probe(
            "queries",
            _HYBRID
            + "value = [_rows(q, k=5) for q in ('MAEU', '9831593', 'where is the ship right now',\n"
            "         'how fast can the ship go', 'cargo value in dollars', 'reefer temperature',\n"
            "         PROBE, 'container slots on a ship')]",
            "for some queries your rows differ from the library's hybrid search (which memories, "
            "their ranks r_vec/r_txt, rrf_score or the order)",
        ),
        Probe(
            "k",
            _HYBRID + "value = [_rows(PROBE, k=k) for k in (1, 3, 12, 30)]\n"
            "value.append(_rows('MAEU'))",
            "hybrid_rrf_search(query, k) does not return the k best rows for some k (or its "
            "default k is not 5)",
        ),
        Probe(
            "per_list",
            _HYBRID + "value = [_rows('where is the ship right now', k=k, per_list=p)\n"
            "         for p, k in ((5, 10), (3, 6), (50, 8), (1, 4), (10, 25))]",
            "per_list is not honoured: each ranked list must contribute per_list candidates "
            "(hybrid_binds(h, query, k, per_list, rrf_k)) and a memory missing from one list has "
            "rank 999999 there",
        ),
        Probe(
            "rrf_k",
            _HYBRID + "value = [_rows(PROBE, k=5, rrf_k=r) for r in (1, 10, 1000)]\n"
            "value.append(_rows('MAEU', k=4, rrf_k=3))",
            "rrf_k is not honoured: the score is 1 / (rrf_k + r_vec) + 1 / (rrf_k + r_txt)",
        ),
        Probe(
            "empty query",
            _HYBRID + "value = [_rows('', k=4), _rows('   ', k=3)]",
            "an empty query matches no words: every row must have r_txt = 999999, ranked by "
            "meaning alone",
        ),
        Probe(
            "odd queries",
            _HYBRID + "value = [outcome(_rows, q, k=3) for q in (\n"
            "         '\"unbalanced quote', 'TEU AND (capacity OR',\n"
            "         'NEAR(teu capacity)', 'teu* -tons', \"'; DROP TABLE memories; --\",\n"
            "         '容量 ТЕУ ☃ 🚢', 'capacity:teu', 'x' * 5000, 'TEU OR', '^teu')]\n"
            "value.append(h.memory.count() > 0)",
            "some query texts (quotes, operators, unicode, very long) fail or give other rows "
            "than the library: pass the query through hybrid_binds, never into the SQL text",
        ),
    ],
}

# The sentences of the TODOs each probe enforces (tests/test_grading_fairness.py).
_OVERSAMPLE = (
    "Oversamples the k * 4 nearest memories by vector search, drops every memory of kind "
    '"tool_output", keeps only the wanted kinds, then reranks (rerank) and keeps k.'
)
_NEVER = 'Never a memory of kind "tool_output".'
_NEAREST = "nearest first (ascending .score, the cosine distance)"
_KINDS_TEXT = (
    'or a comma-separated string such as "table, column" (spaces around names are ignored)'
)
_NO_KINDS = "None or empty means every kind except tool_output."
_ANY_TEXT = "What the agent is looking for (any text)."
_BEST_FIRST = "best first (highest rrf_score, then lowest id)"
_MISSING = "A memory missing from one list has rank 999999 there."
_ODD = 'Any text (quotes, operators, unicode and "" are all fine'
_RELIES = {
    ("retrieve_knowledge_checks", "sizes"): (_OVERSAMPLE, _NEAREST),
    ("retrieve_knowledge_checks", "tool outputs never"): (_NEVER,),
    ("retrieve_knowledge_checks", "kinds as text"): (_KINDS_TEXT,),
    ("retrieve_knowledge_checks", "no kinds"): (_NO_KINDS,),
    ("retrieve_knowledge_checks", "other queries"): (_OVERSAMPLE, _NEAREST),
    ("retrieve_knowledge_checks", "odd queries"): (_ANY_TEXT,),
    ("hybrid_rrf_search_checks", "queries"): (_BEST_FIRST, _MISSING),
    ("hybrid_rrf_search_checks", "k"): ("How many results at most.", _BEST_FIRST),
    ("hybrid_rrf_search_checks", "per_list"): (
        "How many candidates each ranked list (VEC, TXT) contributes.",
        _MISSING,
    ),
    ("hybrid_rrf_search_checks", "rrf_k"): ("The RRF constant in 1 / (rrf_k + rank).",),
    ("hybrid_rrf_search_checks", "empty query"): (_ODD, _MISSING),
    ("hybrid_rrf_search_checks", "odd queries"): (_ODD,),
}
PROBES = {
    grade_id: [replace(p, relies_on=_RELIES[grade_id, p.name]) for p in probes]
    for grade_id, probes in PROBES.items()
}
