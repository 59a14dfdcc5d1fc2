"""Tool retrieval quality, end to end: a 200-tool version of ``bench/bench_tool_retrieval.py``.

The generated catalogue (``bench/tool_catalog.py``, seeded) is loaded into a fresh embedded
harness with one ``h.tools.define_many`` call and every question is asked through
``h.tools.rank(..., mode=...)``. The floors sit well below the measured figures (README, "Tool
retrieval at scale": at 200 tools, seed 7, recall@5 vector 0.84, keyword 0.70, hybrid 0.83),
so the test fails when retrieval breaks, not when it wobbles. Speed is measured by the bench,
not here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import public_tool_sets  # noqa: E402
from bench_tool_retrieval import adapt, category_word, evaluate, load, open_harness, score  # noqa: E402
from tool_catalog import generate  # noqa: E402

FLOORS = {  # mode: (recall@1, recall@5, nDCG@10)
    "vector": (0.55, 0.70, 0.65),
    "keyword": (0.35, 0.55, 0.50),
    "hybrid": (0.55, 0.70, 0.65),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tools, queries = generate(seed=7, n_tools=200)
    h = open_harness(tmp_path_factory.mktemp("retrieval-eval"))
    try:
        load(h, tools)
        assert sorted(h.tools.names()) == sorted(t["function"]["name"] for t in tools)
        yield evaluate(h, queries)
    finally:
        h.close()


@pytest.mark.parametrize("mode", sorted(FLOORS))
def test_retrieval_stays_above_its_floor(results, mode):
    got = results[mode]
    floor = dict(zip(("recall@1", "recall@5", "ndcg@10"), FLOORS[mode]))
    assert all(got[m] >= f for m, f in floor.items()), f"{mode}: {got} below {floor}"


def test_hybrid_is_at_least_as_good_as_keyword_alone(results):
    assert results["hybrid"]["recall@5"] >= results["keyword"]["recall@5"]
    assert results["hybrid"]["ndcg@10"] >= results["keyword"]["ndcg@10"]


def test_the_catalogue_is_deterministic_and_spans_many_domains():
    tools, queries = generate(seed=7)
    assert (tools, queries) == generate(seed=7)
    assert len(tools) >= 1000 and len({t["category"] for t in tools}) >= 40
    names = [t["function"]["name"] for t in tools]
    assert len(set(names)) == len(names)
    assert {n for q in queries for n in q["tools"]} <= set(names)
    assert sum(len(q["tools"]) == 2 for q in queries) >= 100
    descriptions = {t["function"]["description"].lower() for t in tools}
    assert not any(q["query"].lower() in descriptions for q in queries)  # not copies


@pytest.mark.parametrize(
    "ranked, needed, expected",
    [
        (["a", "b", "c"], ["a"], (1.0, 1.0, 1.0)),
        (["b", "a"], ["a"], (0.0, 1.0, 1 / 1.5849625007211563)),
        (["a", "x", "y", "z", "w", "b"], ["a", "b"], (1.0, 0.0, None)),
        ([], ["a"], (0.0, 0.0, 0.0)),
    ],
)
def test_the_metrics(ranked, needed, expected):
    got = score(ranked, needed)
    for value, want in zip(got, expected):
        if want is not None:
            assert value == pytest.approx(want)


def test_public_names_and_categories_are_adapted_in_tools_and_questions_alike():
    entry = lambda name, **more: {"type": "function", "function": {"name": name}, **more}  # noqa: E731
    tools = [
        entry("math.factorial", category="Math & Science"),
        entry("math_factorial"),  # collides with the first one's new name
        entry("PDF&URLTool", category="1st party"),
        entry("ok_name", category=""),
        entry("ok_name"),  # a repeated name keeps its questions on the first
    ]
    queries = [{"query": "q", "tools": ["math.factorial", "PDF&URLTool", "ok_name"]}]
    adapted, asked, renamed = adapt(tools, queries)
    names = [t["function"]["name"] for t in adapted]
    assert names == ["math_factorial", "math_factorial_2", "PDF_URLTool", "ok_name", "ok_name_2"]
    assert [t.get("category") for t in adapted] == [
        "math_science",
        None,
        "c_1st_party",
        "general",
        None,
    ]
    assert asked[0]["tools"] == ["math_factorial", "PDF_URLTool", "ok_name"] and renamed == 3
    assert queries[0]["tools"][0] == "math.factorial"  # the caller's data is not changed
    assert category_word("Food") == "food" and category_word(None) == "general"


def test_bfcl_questions_are_pooled_over_one_registry(tmp_path):
    data = tmp_path / public_tool_sets.BFCL_DATA
    (data / "possible_answer").mkdir(parents=True)
    weather = {
        "name": "weather.get",
        "description": "Weather of a city.",
        "parameters": {"type": "dict", "properties": {"city": {"type": "str"}}},
    }
    factorial = {
        "name": "math.factorial",
        "description": "n!",
        "parameters": {"type": "dict", "properties": {"n": {"type": "int"}}},
    }
    for name in public_tool_sets.BFCL_SETS:
        questions = [
            {
                "id": f"{name}_0",
                "question": [[{"role": "user", "content": f"weather in Oslo, then 5! ({name})"}]],
                "function": [weather, factorial],
            }
        ]
        answers = [
            {"id": f"{name}_0", "ground_truth": [{"weather.get": {}}, {"math.factorial": {}}]}
        ]
        for path, records in (
            (f"BFCL_v4_{name}.json", questions),
            (f"possible_answer/BFCL_v4_{name}.json", answers),
        ):
            (data / path).write_text("\n".join(map(json.dumps, records)))
    tools, queries = public_tool_sets.bfcl(str(tmp_path))
    assert [t["function"]["name"] for t in tools] == ["weather.get", "math.factorial"]  # pooled
    assert tools[0]["function"]["parameters"] == {
        "type": "object",
        "properties": {"city": {"type": "string"}},
    }
    assert len(queries) == len(public_tool_sets.BFCL_SETS)
    assert queries[0] == {
        "query": "weather in Oslo, then 5! (simple_python)",
        "tools": ["math.factorial", "weather.get"],
    }
    with pytest.raises(SystemExit, match="give the path of a clone"):
        public_tool_sets.bfcl(str(tmp_path / "missing"))
