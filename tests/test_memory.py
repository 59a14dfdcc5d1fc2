"""Memory store: add, list with filters, delete, three search modes, RRF, transactions."""

from __future__ import annotations

import pytest

from agent_harness.backends import SENTINEL_RANK

FACTS = [
    (
        "Vessel capacity is measured in TEU, twenty-foot equivalent units, never tons.",
        "column",
        "SUPPLYCHAIN.VESSELS.CAPACITY_TEU",
    ),
    (
        "Cargo unit values are stored in US cents, never dollars.",
        "column",
        "SUPPLYCHAIN.CARGO_ITEMS.UNIT_VALUE_CENTS",
    ),
    ("The user prefers distances in nautical miles.", "note", None),
    ("Rotterdam had heavy congestion in May; berths were full.", "note", "NLRTM"),
    ("Reefer containers must stay between -25 and +13 degrees Celsius.", "note", None),
    ("The quick brown fox jumps over the lazy dog.", "episode", None),
]


@pytest.fixture
def seeded(memory):
    ids = [
        memory.add(text, kind=kind, subject=subject, metadata={"source": "test", "n": i})
        for i, (text, kind, subject) in enumerate(FACTS)
    ]
    return memory, ids


def test_add_returns_increasing_ids_and_list_is_newest_first(seeded):
    memory, ids = seeded
    assert ids == sorted(ids) and len(set(ids)) == len(FACTS)
    listed = memory.list(limit=100)
    assert [m.id for m in listed] == sorted(ids, reverse=True)
    assert listed[-1].content == FACTS[0][0]
    assert listed[-1].metadata == {"source": "test", "n": 0}


def test_list_filters_by_column_metadata_and_lists(seeded):
    memory, ids = seeded
    assert {m.kind for m in memory.list(metadata_filter={"kind": "note"})} == {"note"}
    assert len(memory.list(metadata_filter={"kind": "note"})) == 3
    assert [m.id for m in memory.list(metadata_filter={"n": 1})] == [ids[1]]
    assert len(memory.list(metadata_filter={"n": [0, 1, 2]})) == 3
    assert len(memory.list(metadata_filter={"source": "test", "kind": "column"})) == 2
    assert memory.list(metadata_filter={"source": "nope"}) == []
    assert len(memory.list(limit=2)) == 2


@pytest.mark.parametrize("bad", ["a.b", "x'); DROP TABLE memories; --", "", "$.x"])
def test_list_rejects_unsafe_filter_keys(memory, bad):
    with pytest.raises(ValueError, match="filter key"):
        memory.list(metadata_filter={bad: 1})


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"content": ""}, "non-empty"),
        ({"content": "x", "kind": "Bad Kind"}, "kind"),
        ({"content": "x", "metadata": [1]}, "metadata must be a dict"),
        ({"content": "x", "metadata": {"a": object()}}, "JSON"),
    ],
)
def test_add_rejects_bad_input_with_a_clear_error(memory, kwargs, message):
    with pytest.raises(ValueError, match=message):
        memory.add(**kwargs)
    assert memory.count() == 0


def test_delete_removes_text_vector_and_keyword_entries(seeded):
    memory, ids = seeded
    assert memory.delete(ids[0]) is True
    assert memory.delete(ids[0]) is False
    for mode in ("vector", "keyword", "hybrid"):
        assert ids[0] not in [m.id for m in memory.search("TEU capacity tons", k=6, mode=mode)]


def test_scopes_are_isolated(seeded, harness):
    from agent_harness.backends import Scope
    from agent_harness.parts.memory import MemoryStore

    memory, ids = seeded
    other = MemoryStore(harness.backend, Scope("someone-else", "agent"), harness.embed)
    assert other.delete(ids[0]) is False
    assert all(m.id not in ids for m in other.search("TEU", k=5, mode="hybrid"))
    assert other.list(metadata_filter={"source": "test"}) == []


def test_vector_search_ranks_by_meaning(seeded):
    memory, ids = seeded
    hits = memory.search("how big is a ship in twenty-foot containers", k=3, mode="vector")
    assert hits[0].id == ids[0]
    distances = [h.score for h in hits]
    assert distances == sorted(distances) and 0 <= distances[0] < 1


def test_keyword_search_matches_words_with_stemming_and_accents(seeded):
    memory, ids = seeded
    assert [h.id for h in memory.search("cents", k=3, mode="keyword")] == [ids[1]]
    if memory.backend.name == "embedded":  # FTS5 porter stemming; Oracle Text: no stemmer
        assert ids[3] in [h.id for h in memory.search("berth", k=3, mode="keyword")]
    memory.add("Café crème at the port of Le Havre", kind="note")
    assert memory.search("cafe creme", k=1, mode="keyword")[0].content.startswith("Café")
    assert memory.search("zzzz-nothing", k=3, mode="keyword") == []


def test_hybrid_returns_both_ranks_and_the_rrf_formula(seeded):
    memory, ids = seeded
    hits = memory.search("TEU 20-foot equivalent capacity unit for vessels", k=6, mode="hybrid")
    assert hits[0].id == ids[0] and hits[0].r_vec == 1 and hits[0].r_txt == 1
    for h in hits:
        assert isinstance(h.r_vec, int) and isinstance(h.r_txt, int)
        assert h.rrf_score == pytest.approx(1 / (60 + h.r_vec) + 1 / (60 + h.r_txt), abs=1e-12)
    scores = [h.rrf_score for h in hits]
    assert scores == sorted(scores, reverse=True)
    # memories without any query word appear only through the vector list: sentinel text rank
    assert any(h.r_txt == SENTINEL_RANK for h in hits)


def test_hybrid_rrf_k_and_per_list_change_the_result(seeded):
    memory, _ = seeded
    a = memory.search("capacity", k=3, mode="hybrid", rrf_k=1)
    assert a[0].rrf_score == pytest.approx(1 / (1 + a[0].r_vec) + 1 / (1 + a[0].r_txt))
    small = memory.search("capacity", k=6, mode="hybrid", per_list=1)
    assert all(h.r_vec in (1, SENTINEL_RANK) and h.r_txt in (1, SENTINEL_RANK) for h in small)


def test_kinds_filter_and_exclusion_in_every_mode(seeded):
    memory, _ = seeded
    for mode in ("vector", "keyword", "hybrid"):
        assert {
            h.kind for h in memory.search("TEU cents congestion", k=6, mode=mode, kinds=["note"])
        } <= {"note"}
        assert {
            h.kind for h in memory.search("TEU cents", k=6, mode=mode, kinds="column, note")
        } <= {"column", "note"}
        assert "note" not in {
            h.kind
            for h in memory.search("congestion nautical", k=6, mode=mode, exclude_kinds=["note"])
        }
    # the filter is applied before top-k: asking for 3 notes gives 3 notes
    assert len(memory.search("anything", k=3, mode="vector", kinds=["note"])) == 3


@pytest.mark.parametrize("k", [0, -1, 1001])
def test_search_rejects_bad_k(memory, k):
    with pytest.raises(ValueError, match="k must be"):
        memory.search("x", k=k)


def test_search_rejects_unknown_mode(memory):
    with pytest.raises(ValueError, match="mode"):
        memory.search("x", mode="semantic")


def test_update_changes_content_vector_and_keyword_index(seeded):
    memory, ids = seeded
    memory.update(ids[5], "Antwerp bunker prices rose sharply.", subject="BEANR")
    assert memory.search("antwerp bunker", k=1, mode="keyword")[0].id == ids[5]
    assert memory.search("fox lazy dog", k=3, mode="keyword") == []
    assert memory.get(ids[5]).kind == "episode"


def test_a_failed_write_leaves_no_half_record(memory, monkeypatch):
    backend = memory.backend
    before = memory.count()

    def broken(*args, **kwargs):
        raise RuntimeError("disk full (simulated) after the row was inserted")

    monkeypatch.setattr(backend.memories, "store_vector", broken)
    with pytest.raises(RuntimeError, match="simulated"):
        memory.add("this must not be half-stored", kind="note")
    monkeypatch.undo()
    assert memory.count() == before
    assert memory.search("half-stored", k=3, mode="keyword") == []


def test_thread_id_is_stored_and_filterable(memory):
    memory.add("turn one", kind="episode", thread_id="t-1")
    memory.add("turn two", kind="episode", thread_id="t-2")
    assert [m.content for m in memory.list(metadata_filter={"thread_id": "t-1"})] == ["turn one"]
