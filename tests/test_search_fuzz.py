"""Any query text is safe: memory.search and the search_knowledge tool never raise.

Adversarial text (quotes, FTS5 syntax, SQL, emoji, RTL, NUL, lone surrogates, 1 MB, ...) and
hypothesis-generated text go through every search mode, and every result must be well formed:
at most k hits, finite scores, the scope's own memories, hybrid ranks that are integers >= 1 and
an RRF score equal to ``1/(60 + r_vec) + 1/(60 + r_txt)``.
"""

from __future__ import annotations

import json
import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_harness.parts.memory import SEARCH_MODES

RRF_K = 60

SEED_MEMORIES = [
    ("note", None, "Vessel MSC Aurora was delayed 36 hours at Rotterdam by port congestion."),
    ("note", None, "Reefer containers need power; check plug-in status before departure."),
    ("note", None, "Hazmat class 3 cargo must not be stowed next to class 5.1 oxidisers."),
    ("note", None, "Customs holds in Singapore usually clear within two working days."),
    ("note", None, "The carrier Maersk reports ETA changes through the voyages feed."),
    ("note", None, "Transshipment at Algeciras adds about one day to Asia-Europe voyages."),
    ("note", None, "Capacity is measured in TEU: twenty-foot equivalent units."),
    ("note", None, "Weather routing around the Cape of Good Hope added 10 days."),
    ("note", None, "Quotes in notes: the \"blue\" container and the 'red' one."),
    ("note", None, "Emoji note: 🚢 ship, ⚓ anchor, 📦 package, delays ⏱️."),
    ("note", None, "السفينة وصلت إلى ميناء جدة متأخرة بيومين."),
    ("note", None, "船舶在上海港延误了三天。"),
    ("table", "SUPPLYCHAIN.VESSELS", "VESSELS: one row per ship with name, IMO and TEU."),
    ("table", "SUPPLYCHAIN.PORTS", "PORTS: UN/LOCODE, name, country and time zone."),
    ("table", "SUPPLYCHAIN.VOYAGES", "VOYAGES: a vessel's trip from one port to another."),
    ("table", "SUPPLYCHAIN.CONTAINERS", "CONTAINERS: boxes with ISO type, status and hold."),
    ("column", "SUPPLYCHAIN.VESSELS.CAPACITY_TEU", "CAPACITY_TEU: nominal capacity in TEU."),
    ("column", "SUPPLYCHAIN.VOYAGES.ETA", "ETA: estimated time of arrival, UTC."),
    ("column", "SUPPLYCHAIN.VOYAGES.ATA", "ATA: actual time of arrival; NULL while at sea."),
    ("column", "SUPPLYCHAIN.CONTAINERS.STATUS", "STATUS: EMPTY, LOADED, ON_HOLD or DELIVERED."),
    ("column", "SUPPLYCHAIN.CARGO_ITEMS.VALUE_USD", "VALUE_USD: declared cargo value in USD."),
    ("relationship", "VOYAGES.VESSEL_ID", "VOYAGES.VESSEL_ID references VESSELS.VESSEL_ID."),
    ("relationship", "CONTAINERS.VOYAGE_ID", "CONTAINERS.VOYAGE_ID references VOYAGES."),
    ("episode", None, "User asked which voyages were late; answered with ATA - ETA > 1 day."),
    ("episode", None, "Looked up the position of vessel Ever Given near Suez."),
    ("episode", None, "SQL with NEAR and AND OR NOT words: content:delay (test) -x +y *."),
    ("tool_output", None, "run_sql returned 120 rows of vessel positions for voyage 88."),
    ("tool_output", None, "search_knowledge returned three column facts about ETA."),
    ("preference", None, "Prefer answers in metric tonnes and UTC timestamps."),
    ("finding", None, "Delays cluster on Mondays at Felixstowe; likely crane shortages."),
]

_WORDS = (
    "vessel port delay container reefer hazmat customs voyage carrier eta ata teu berth crane "
    "congestion rotterdam singapore shanghai felixstowe suez cape weather tonnes manifest"
).split()


def _long_query(n_tokens: int) -> str:
    rng = random.Random(n_tokens)
    return " ".join(rng.choice(_WORDS) for _ in range(n_tokens))


ADVERSARIAL: list[tuple[str, str]] = [
    # quotes
    ("double-quote", '"'),
    ("single-quote", "'"),
    ("empty-phrase", '""'),
    ("unbalanced-double", 'vessel "delay'),
    ("unbalanced-single", "it's the vessel's delay"),
    ("triple-quotes", "'''\"\"\"'''"),
    ("backslashes", "\\\" \\' \\\\ \\n"),
    # FTS5 syntax
    ("fts-and-or-not", "vessel AND delay OR port NOT reefer"),
    ("fts-bare-operators", "AND OR NOT NEAR"),
    ("fts-trailing-operator", "vessel OR"),
    ("fts-near", "NEAR(vessel delay, 2)"),
    ("fts-prefix", "vess* del*"),
    ("fts-star-only", "*"),
    ("fts-caret", "^vessel ^"),
    ("fts-column-filter", "content:delay subject:VESSELS"),
    ("fts-column-set", "{content subject}:delay"),
    ("fts-table-column", "memory_fts:delay"),
    ("fts-parentheses", "((vessel) OR (port"),
    ("fts-close-parenthesis", ")))"),
    ("fts-minus-plus", "-delay +vessel - + -- ++"),
    ("fts-colons", "a:b:c ::"),
    # SQL injection text
    ("sql-drop", "'; DROP TABLE memories; --"),
    ("sql-or-true", '" OR 1=1 --'),
    ("sql-union", "x' UNION SELECT content FROM memories --"),
    ("sql-binds", ":q ?1 @x $x :user_id"),
    ("sql-like-wildcards", "% _ %_% [a-z]"),
    # unicode
    ("emoji", "🚢 delayed 🐢 ⏱️ 📦"),
    ("emoji-zwj-family", "👨\u200d👩\u200d👧\u200d👦 🏳️\u200d🌈"),
    ("rtl-arabic", "السفينة متأخرة في الميناء"),
    ("rtl-hebrew-override", "\u202eyaled lessev\u202c עיכוב"),
    ("combining-marks", "e\u0301" * 50 + " v\u0336e\u0337s\u0338s\u0335e\u0334l"),
    ("cjk", "船舶延误 上海港"),
    ("fullwidth", "ｖｅｓｓｅｌ　ｄｅｌａｙ"),
    # NUL, control characters, lone surrogates
    ("nul", "\x00"),
    ("nul-inside", "vessel\x00delay"),
    ("control-chars", "".join(chr(i) for i in range(32)) + "\x7f\x85\u2028\u2029"),
    ("lone-high-surrogate", "\ud800"),
    ("lone-low-surrogate-inside", "vessel \udfff delay"),
    ("surrogate-escapes", "\udc80\udcff port"),
    # empty and huge
    ("empty", ""),
    ("whitespace", " \t\n\r "),
    ("unicode-whitespace", "\u00a0\u2003\u3000\ufeff"),
    ("numbers", "123456789012345678901234567890 1e308 NaN -inf 0x7f"),
    ("100-kb", _long_query(100_000 // 7)[:100_000]),
    ("1-mb", ("vessel delay " * 90_000)[:1_000_000]),
    ("5000-tokens", _long_query(5000)),
]


def _check_memories(results, store, mode: str, k: int) -> None:
    assert isinstance(results, list)
    assert len(results) <= k
    ids = [m.id for m in results]
    assert len(ids) == len(set(ids)), f"duplicate ids {ids}"
    for m in results:
        assert (m.user_id, m.agent_id) == (store.scope.user_id, store.scope.agent_id)
        assert isinstance(m.score, float) and math.isfinite(m.score), m
    scores = [m.score for m in results]
    if mode == "vector":
        assert all(-1e-6 <= s <= 2 + 1e-6 for s in scores), scores  # cosine distance
        assert scores == sorted(scores), "vector results must be nearest first"
    elif mode == "keyword":
        assert all(a >= b - 1e-9 for a, b in zip(scores, scores[1:])), scores
    else:
        for m in results:
            for rank in (m.r_vec, m.r_txt):
                assert isinstance(rank, int) and not isinstance(rank, bool) and rank >= 1, m
            expected = 1 / (RRF_K + m.r_vec) + 1 / (RRF_K + m.r_txt)
            assert abs(m.rrf_score - expected) <= 1e-9, (m.rrf_score, expected)
            assert m.score == m.rrf_score
        rrf = [m.rrf_score for m in results]
        assert all(a >= b - 1e-12 for a, b in zip(rrf, rrf[1:])), rrf


def _query_bound(harness) -> int:
    """The longest query search_knowledge's schema accepts (its maxLength)."""
    return harness.tools.get("search_knowledge").parameters["properties"]["query"]["maxLength"]


def _check_tool_output(output, k: int, query: str, bound: int) -> None:
    assert isinstance(output, str)
    output.encode("utf-8")  # it goes to the model's API: strict UTF-8 must work
    hits = json.loads(output)
    if len(query) > bound:
        # Past the schema's bound the caller is told so before the tool runs (issue 27).
        assert isinstance(hits, dict), f"search_knowledge returned {hits!r:.300}"
        assert f"longer than {bound} characters" in hits["error"], hits
        return
    assert isinstance(hits, list), f"search_knowledge returned {hits!r:.300}"
    assert len(hits) <= k
    for hit in hits:
        assert set(hit) == {"id", "kind", "subject", "content", "score"}, hit
        assert hit["kind"] != "tool_output"  # left out unless asked for
        assert hit["score"] is None or math.isfinite(hit["score"])


@pytest.fixture
def seeded(memory):
    """The fresh ``memory`` scope with 30 varied memories."""
    for kind, subject, content in SEED_MEMORIES:
        memory.add(content, kind=kind, subject=subject)
    assert memory.count() == len(SEED_MEMORIES)
    return memory


def test_seeded_search_finds_things(seeded):
    # A sanity check that the fuzzing below searches a store that does match.
    for mode in SEARCH_MODES:
        hits = seeded.search("vessel delayed at Rotterdam", k=5, mode=mode)
        _check_memories(hits, seeded, mode, 5)
        assert hits, mode
        assert any("Rotterdam" in m.content for m in hits), (mode, [m.content for m in hits])
    hybrid = seeded.search("Rotterdam congestion", k=30, mode="hybrid")
    assert any(m.r_txt < 999999 and m.r_vec < 999999 for m in hybrid)


@pytest.mark.parametrize("query", [pytest.param(q, id=case_id) for case_id, q in ADVERSARIAL])
def test_adversarial_query_never_raises(seeded, harness, query):
    for mode in SEARCH_MODES:
        for k in (1, 7):
            _check_memories(seeded.search(query, k=k, mode=mode), seeded, mode, k)
        _check_memories(
            seeded.search(query, k=5, mode=mode, kinds=["note", "column"]), seeded, mode, 5
        )
        output = harness.tools.call("search_knowledge", {"query": query, "k": 5, "mode": mode})
        _check_tool_output(output, 5, query, _query_bound(harness))


def test_adversarial_query_as_json_arguments(harness):
    # The model sends arguments as JSON text; \ud800 escapes decode to lone surrogates.
    for case_id, query in ADVERSARIAL:
        arguments = json.dumps({"query": query, "k": 3, "mode": "hybrid"})
        try:
            output = harness.tools.call("search_knowledge", arguments)
            _check_tool_output(output, 3, query, _query_bound(harness))
        except AssertionError as e:
            raise AssertionError(f"case {case_id}: {e}") from e


def test_the_corpus_covers_enough_cases():
    assert len(ADVERSARIAL) >= 40
    assert len({case_id for case_id, _ in ADVERSARIAL}) == len(ADVERSARIAL)


_FTS_PIECES = st.sampled_from(
    [
        '"',
        "'",
        "(",
        ")",
        "*",
        "^",
        ":",
        "-",
        "+",
        "AND",
        "OR",
        "NOT",
        "NEAR",
        "NEAR(",
        "content:",
        "subject:",
        "{",
        "}",
        ";",
        "--",
        "/*",
        "\x00",
        "\ud800",
        *_WORDS,
    ]
)
QUERIES = st.one_of(
    st.text(max_size=300),
    st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=200),
    st.lists(_FTS_PIECES, max_size=40).map(" ".join),
    st.lists(_FTS_PIECES, max_size=40).map("".join),
)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(query=QUERIES, mode=st.sampled_from(SEARCH_MODES), k=st.integers(1, 20))
def test_random_query_never_raises(seeded, harness, query, mode, k):
    _check_memories(seeded.search(query, k=k, mode=mode), seeded, mode, k)
    output = harness.tools.call("search_knowledge", {"query": query, "k": k, "mode": mode})
    _check_tool_output(output, k, query, _query_bound(harness))
