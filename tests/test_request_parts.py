"""Multi-part requests: split only where the request says so; interleave the rankings."""

from __future__ import annotations

import pytest

from agent_harness.tools.request_parts import MAX_PARTS, interleave, request_parts


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        (
            "Find the median of 3,4,5 and then tell me the mode of these points.",
            ["Find the median of 3,4,5", "tell me the mode of these points"],
        ),
        (
            "First, calculate the factorial of 7. Then, I'm looking to buy a Yamaha flute."
            " Lastly, show the weather in Oslo.",
            [
                "calculate the factorial of 7",
                "I'm looking to buy a Yamaha flute",
                "show the weather in Oslo",
            ],
        ),
        (
            "List the delayed voyages. Also convert 40 knots to km/h",
            ["List the delayed voyages", "convert 40 knots to km/h"],
        ),
    ],
)
def test_a_request_that_says_it_has_parts_is_split_at_its_words(text, parts):
    assert request_parts(text) == parts


@pytest.mark.parametrize(
    "text",
    [
        "Get the average temperature in Austin for the next 3 days in Celsius.",
        "Which ports are in the Netherlands? I need their codes.",  # no marker word
        "Show the first port",  # a marker but one part of three words or more
        "weather in Paris",
        "",
        "also " * 20_000,
    ],
)
def test_one_part_requests_are_not_split(text):
    assert request_parts(text) == []


def test_odd_text_gives_parts_of_itself():
    text = "then ' OR 1=1 -- ; DROP TABLE tools; \u202e then \U0001f6a2 ship \U0001f6a2 now \x00"
    parts = request_parts(text)
    assert parts and all(p in text for p in parts)  # only ever pieces of the text, as data
    assert request_parts(None) == [] and request_parts(12345) == []


def test_at_most_max_parts_are_ranked():
    text = " Then ".join(f"show the port number {i}" for i in range(MAX_PARTS + 5))
    parts = request_parts(text)
    assert len(parts) == MAX_PARTS and parts[0] == "show the port number 0"


def _rows(*names):
    return [{"name": n, "score": 1.0 - i / 10} for i, n in enumerate(names)]


def test_interleave_takes_each_lists_next_tool_in_turn_once():
    whole, first, second = _rows("a", "b", "c"), _rows("x", "a", "y"), _rows("z")
    out = interleave([whole, first, second])
    assert [r["name"] for r in out] == ["a", "x", "z", "b", "c", "y"]
    assert [r["part"] for r in out] == [0, 1, 2, 0, 0, 1]
    assert out[1]["score"] == whole[0]["score"]  # each row keeps its own list's values
    assert [r["name"] for r in interleave([whole, first, second], k=2)] == ["a", "x"]
    assert interleave([]) == [] and interleave([[], []]) == []


def test_hybrid_ranking_offers_each_parts_best_tool_near_the_top(fresh_harness):
    h = fresh_harness
    text = (
        "Show me the vessels currently delayed near Rotterdam and how long each delay is."
        " Then convert 40 knots to km per hour."
    )
    parts = request_parts(text)
    ranked = h.tools.rank(text, k=5, mode="hybrid")
    assert len(ranked) == 5 and ranked[0]["part"] == 0
    top = [r["name"] for r in ranked]
    for i, part in enumerate(parts, start=1):
        best = h.tools.rank(part, k=1, mode="hybrid")[0]["name"]
        assert best in top[: 1 + len(parts)], (part, best, top)
        assert any(r["part"] in (0, i) and r["name"] == best for r in ranked)
    for mode in ("vector", "keyword"):  # one statement: no parts
        assert all("part" not in r for r in h.tools.rank(text, k=5, mode=mode))
    one_part = h.tools.rank("vessels delayed near Rotterdam", k=5, mode="hybrid")
    assert all("part" not in r for r in one_part)
