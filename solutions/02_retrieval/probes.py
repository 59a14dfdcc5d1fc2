"""Probes of 02_retrieval.

``retrieve_knowledge``: three grade cells. ``_checks`` (the k nearest, nearest first, cut to k),
``_tool_outputs`` (a logged tool output that is the nearest memory of all never comes back,
not even when asked for by kind; with it in the way, still the k nearest others) and
``_kinds`` (a list or a comma-separated string, spaces ignored; None or empty means every kind).
The probes record each result as [kind, subject] pairs (memory ids shift when a notebook cell
adds memories), plus whether a tool output came back, whether only the wanted kinds came back,
at most k, and whether the distances ascend. With a kinds filter only the first n pairs are
compared, n being the number of memories of those kinds among the k * 4 nearest: like the
checks, the probes accept a longer result (a search that filtered the kinds first), never a
different start.

``hybrid_rrf_search``: four grade cells. ``_checks`` (the fused ranks and scores of many query
texts), ``_parameters`` (per_list and rrf_k), ``_ties`` (equal scores in id order) and ``_k``.
Outside ``_ties`` the probes record each row as its score, its types and whether it agrees
with the library's row for the same memory id (ranks, kind, subject, content): equal scores
may come in any order there, so a tie-break bug costs the ``_ties`` cell only. ``_ties`` runs
on memories of its own, in a memory scope of its own, whose ranks are swapped pairwise.
"""

from dataclasses import replace

from grader.value_checks import Probe

_Q = "vessel capacity_teu in TEU"

_HITS = f"""
_q = {_Q!r}
_noise = None


def _hits(query, k, kinds=None):
    # The student's result as [kind, subject] rows. With a kinds filter the checks accept any
    # result that starts with the nearest memories of those kinds among the k * 4 nearest
    # (n of them) and holds only those kinds: so only the first n rows are recorded.
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


def _no_tool_output(query, k, kinds=None):
    # Only whether a tool output (or the probe's own) came back: the kinds have their own cell.
    found = retrieve_knowledge(query, k=k, kinds=kinds)
    if type(found) is not list:
        return {{"not a list": type(found).__name__}}
    return all(type(m) is agent_harness.Memory and m.kind != "tool_output" and m.id != _noise
               for m in found)
"""


def _with_noise(body: str) -> str:
    """Probe code that runs ``body`` with a logged tool output that is the best match of all
    (as in the checks) in place, then deletes it."""
    indented = "".join(f"    {line}\n" if line else "\n" for line in body.strip().splitlines())
    return (
        _HITS
        + '_noise = h.memory.add(_q + " (run_sql output: name, capacity_teu rows)",\n'
        + '                      kind="tool_output", subject="call_probe_retrieve",\n'
        + '                      thread_id="probe-retrieve")\n'
        + "try:\n"
        + indented
        + "finally:\n    h.memory.delete(_noise)\n"
    )


_HYBRID = """
def _rows(query, **kw):
    # Each row as [score, types, agrees with the library's row for its id]: equal scores may
    # come in any order here (the tie-break has its own cell).
    found = hybrid_rrf_search(query, **kw)
    if type(found) is not list:
        return {"not a list": type(found).__name__}
    per_list, rrf_k = kw.get("per_list", 30), kw.get("rrf_k", 60)
    library = h.memory.search(query, k=2 * per_list, mode="hybrid", per_list=per_list,
                              rrf_k=rrf_k)
    by_id = {m.id: m for m in library}
    rows = []
    for row in found:
        if type(row) is not dict:
            rows.append({"not a dict": type(row).__name__})
            continue
        m = by_id.get(row.get("id")) if type(row.get("id")) is int else None
        mine = [plain(row.get(key)) for key in ("r_vec", "r_txt", "kind", "subject", "content")]
        rows.append([
            plain(row.get("rrf_score")),
            [type(row.get(key)).__name__ for key in ("id", "r_vec", "r_txt", "rrf_score")],
            m is not None and mine == [m.r_vec, m.r_txt, m.kind, m.subject, m.content],
        ])
    return rows
"""

_TIES = """
import uuid as _uuid

from agent_harness.backends import Scope as _Scope
from agent_harness.parts.memory import MemoryStore as _MemoryStore


def _tied(query, texts, calls):
    # Memories of the probe's own (in this order, in a scope of their own), then the names of
    # the rows the student's function returns for each call; h is restored afterwards.
    saved = h.scope, h.memory
    h.scope = _Scope("workshop-probes", f"nb02-ties-{_uuid.uuid4().hex[:8]}")
    h.memory = _MemoryStore(h.backend, h.scope, h.embed)
    ids = {}
    try:
        ids = {h.memory.add(text, kind="note"): name for name, text in texts}
        value = []
        for kw in calls:
            found = hybrid_rrf_search(query, **kw)
            value.append([ids.get(r.get("id"), "?") if type(r) is dict else "?"
                          for r in found] if type(found) is list else None)
        return value
    finally:
        try:
            for memory_id in ids:
                h.memory.delete(memory_id)
        finally:
            h.scope, h.memory = saved
"""

PROBES = {
    "retrieve_knowledge_checks": [
        Probe(
            "sizes",
            _HITS
            + "value = [_hits(_q, k) for k in (1, 2, 3, 5, 8, 12)]\n"
            + "value.append(plain([[m.kind, m.subject] for m in retrieve_knowledge(_q)]))",
            f"for the query {_Q!r} with other values of k (1 up to 12, and the default k) "
            "expected the k nearest memories by vector search, nearest first",
        ),
        Probe(
            "other queries",
            _HITS + "value = [_hits(query, 4) for query in ('how are voyages linked to vessels',\n"
            "         'ship', 'cargo value in dollars', 'where is the ship right now')]",
            "for other questions (about voyages, ships, cargo value; k=4, no kinds) expected "
            "the 4 nearest memories by vector search, nearest first",
        ),
        Probe(
            "odd queries",
            _HITS + 'value = [_hits(query, 2) for query in ("", "   ",\n'
            '         "\\"\'; DROP TABLE memories; --", "容量 TEU ☃", "x" * 3000)]\n'
            "value.append(h.memory.count() > 0)",
            "for odd query texts (empty, blank, quotes and SQL, unicode, very long; k=2) "
            "expected the 2 nearest memories, like for any other text",
        ),
    ],
    "retrieve_knowledge_tool_outputs": [
        Probe(
            "sizes with a tool output",
            _with_noise("value = [_hits(_q, k) for k in (1, 2, 3, 5, 8, 12)]"),
            f"with a logged tool output that is the nearest memory of all to {_Q!r}, for other "
            "values of k (1 up to 12) expected the k nearest OTHER memories, nearest first: "
            "oversample k * 4, drop the tool outputs, then cut to k",
        ),
        Probe(
            "tool outputs never",
            _with_noise(
                "value = [_no_tool_output(_q, k, kinds) for k, kinds in (\n"
                '    (5, "tool_output"), (5, ["tool_output"]), (5, ["tool_output", "column"]),\n'
                '    (4, "column,tool_output"), (3, " tool_output "), (8, None))]\n'
                'value.append(_no_tool_output("capacity_teu rows of run_sql", 3))'
            ),
            "with a logged tool output among the nearest memories, a memory of kind "
            "tool_output came back for some kinds (tool_output alone, or with other kinds, as "
            "a list or as text) or another query: tool outputs never come back",
        ),
    ],
    "retrieve_knowledge_kinds": [
        Probe(
            "kinds as text",
            _HITS
            + 'value = [_hits(_q, 6, kinds) for kinds in (["table", "column"], "table,column",\n'
            '         "table, column", " table ,column ", "column, table",\n'
            '         "relationship", " relationship", ["relationship"], "table")]',
            "for other kinds filters (one or two kinds, as a list or as comma-separated text "
            "with spaces around the names) expected only those kinds, the nearest first; a "
            "list and a string naming the same kinds must give the same memories",
        ),
        Probe(
            "no kinds",
            _HITS + 'value = [_hits(_q, 4, kinds) for kinds in (None, "", [])]',
            "kinds None, '' and [] must each mean every kind (except tool_output): expected "
            "the 4 nearest memories of any kind",
        ),
        Probe(
            "other queries",
            _HITS + "value = [_hits(query, 4, kinds) for query, kinds in (\n"
            '    ("how are voyages linked to vessels", "relationship"),\n'
            '    ("what does a carrier\'s SCAC code mean", ["column"]),\n'
            '    ("where is the ship right now", "table, relationship"),\n'
            '    ("cargo value in dollars", ["column", "table"]))]',
            "for other questions with a kinds filter (k=4) expected the nearest memories of "
            "those kinds among the k * 4 nearest, nearest first",
        ),
    ],
    "hybrid_rrf_search_checks": [
        Probe(
            "queries",
            _HYBRID
            + "value = [_rows(q, k=5) for q in ('MAEU', '9831593', 'where is the ship right now',\n"
            "         'how fast can the ship go', 'cargo value in dollars', 'reefer temperature',\n"
            "         PROBE, 'container slots on a ship')]",
            "for other queries (codes, numbers, questions; k=5) expected the library's hybrid "
            "rows: for each memory its ranks r_vec/r_txt (999999 when a list missed it), "
            "rrf_score, kind, subject and content, the 5 best scores best first, with the "
            "types int/int/float",
        ),
        Probe(
            "empty query",
            _HYBRID + "value = [_rows('', k=4), _rows('   ', k=3)]",
            "for an empty and a blank query expected rows ranked by meaning alone: every "
            "r_txt 999999, the library's scores",
        ),
        Probe(
            "odd queries",
            _HYBRID + "value = [outcome(_rows, q, k=3) for q in (\n"
            "         '\"unbalanced quote', 'TEU AND (capacity OR',\n"
            "         'NEAR(teu capacity)', 'teu* -tons', \"'; DROP TABLE memories; --\",\n"
            "         '容量 ТЕУ ☃ 🚢', 'capacity:teu', 'x' * 5000, 'TEU OR', '^teu')]\n"
            "value.append(h.memory.count() > 0)",
            "for query texts with quotes, full-text operators, SQL, unicode or 5000 characters "
            "expected the library's rows and no error: pass the query through hybrid_binds, "
            "never into the SQL text",
        ),
    ],
    "hybrid_rrf_search_parameters": [
        Probe(
            "per_list",
            _HYBRID + "value = [_rows('where is the ship right now', k=k, per_list=p)\n"
            "         for p, k in ((5, 10), (3, 6), (50, 8), (1, 4), (10, 8))]",
            "for other values of per_list (1 up to 50, with k up to 10) expected the library's "
            "rows: each list contributes per_list candidates (ranks 1..per_list, else 999999)",
        ),
        Probe(
            "rrf_k",
            _HYBRID + "value = [_rows(PROBE, k=5, rrf_k=r) for r in (1, 10, 1000)]\n"
            "value.append(_rows('MAEU', k=4, rrf_k=3))",
            "for other values of rrf_k (1 up to 1000) expected the scores "
            "1 / (rrf_k + r_vec) + 1 / (rrf_k + r_txt) of the library",
        ),
    ],
    "hybrid_rrf_search_ties": [
        Probe(
            "equal scores",
            _TIES
            + """value = _tied("cold cargo boxes", [  # ids: P2 < Q1 < Q2 < P1
    ("P2", "cold cold: chilled goods waiting on the quay"),
    ("Q1", "cold cold cold cold: flu remedies at home"),
    ("Q2", "cold cold cold: ski resort snow report"),
    ("P1", "cold: reefer units keeping freight frozen"),
], [{"k": 4}, {"k": 1}, {"k": 3}, {"k": 2, "rrf_k": 5}])
""",
            "for four other memories whose ranks are swapped pairwise ((1, 4) and (4, 1) tie, "
            "so do (2, 3) and (3, 2)), for several k (one cut inside a tie) expected the rows "
            "best first and equal scores in id order",
        ),
    ],
    "hybrid_rrf_search_k": [
        Probe(
            "k",
            _HYBRID + "value = [_rows(PROBE, k=k) for k in (1, 2, 7, 30)]\n"
            "value.append(_rows('where is the ship right now', k=12))\n"
            "value.append(_rows(PROBE))",
            "for other values of k (1 up to 30, and the default) expected the k best rows of "
            "the library (the default k is 5)",
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
_ROWS = "each with id, kind, subject, content, r_vec (int), r_txt (int) and rrf_score (float)."
_BEST_SCORES = "At most k dicts, best first (highest rrf_score"
_RELIES = {
    ("retrieve_knowledge_checks", "sizes"): (_OVERSAMPLE, _NEAREST),
    ("retrieve_knowledge_checks", "other queries"): (_NEAREST,),
    ("retrieve_knowledge_checks", "odd queries"): (_ANY_TEXT,),
    ("retrieve_knowledge_tool_outputs", "sizes with a tool output"): (_OVERSAMPLE, _NEVER),
    ("retrieve_knowledge_tool_outputs", "tool outputs never"): (_NEVER,),
    ("retrieve_knowledge_kinds", "kinds as text"): (_KINDS_TEXT,),
    ("retrieve_knowledge_kinds", "no kinds"): (_NO_KINDS,),
    ("retrieve_knowledge_kinds", "other queries"): (_OVERSAMPLE, _KINDS_TEXT),
    ("hybrid_rrf_search_checks", "queries"): (
        "The RRF constant in 1 / (rrf_k + rank).",
        _BEST_SCORES,
        _ROWS,
        _MISSING,
    ),
    ("hybrid_rrf_search_checks", "empty query"): (_ODD, _MISSING),
    ("hybrid_rrf_search_checks", "odd queries"): (_ODD,),
    ("hybrid_rrf_search_parameters", "per_list"): (
        "How many candidates each ranked list (VEC, TXT) contributes.",
        _MISSING,
    ),
    ("hybrid_rrf_search_parameters", "rrf_k"): ("The RRF constant in 1 / (rrf_k + rank).",),
    ("hybrid_rrf_search_ties", "equal scores"): (_BEST_FIRST,),
    ("hybrid_rrf_search_k", "k"): ("How many results at most.", _BEST_SCORES),
}
PROBES = {
    grade_id: [replace(p, relies_on=_RELIES[grade_id, p.name]) for p in probes]
    for grade_id, probes in PROBES.items()
}
