"""The skills describe only what the harness does (issue 18, item 16): the model believes a
playbook, so a playbook that promises a feature the harness lacks (rows filtered or values
masked by identity) makes it explain away real data as "hidden from you". Checked against the
harness itself: every SQL example runs on the schema, every tool named is registered, and no
skill claims an access-control feature the harness does not have."""

from __future__ import annotations

import json
import re

import pytest

from agent_harness.parts.skills import PROJECT_SKILLS, parse_skill

FILES = sorted(PROJECT_SKILLS.glob("*.md"))

#: Features a skill might promise, the words that promise them, and whether the harness has
#: them. Nothing filters rows or masks columns per identity: every agent reads the same rows
#: (access levels decide which TOOLS an agent may run, not which rows it sees). Give a feature
#: True here when the harness gains it, with a test that it works.
FEATURES = {
    "rows filtered per identity (row policy, VPD)": (
        r"row[- ]level|row polic|\bVPD\b|filtered by your identity|identity may hide|"
        r"not visible to you|hidden from you",
        False,
    ),
    "values masked per identity (redaction)": (r"\bmask(ed|ing|s)?\b|\bredact", False),
}


@pytest.fixture(scope="module")
def h(embedded_harness):
    """The skills' claims are checked once, on the embedded backend."""
    return embedded_harness


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_no_skill_promises_a_feature_the_harness_lacks(path):
    text = path.read_text(encoding="utf-8")
    for feature, (words, present) in FEATURES.items():
        found = re.search(words, text, re.I)
        assert present or not found, (
            f"{path.name} promises {feature} ({found.group(0)!r}), which the harness does not"
            " do: describe only what it does"
        )


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_sql_example_runs_on_the_schema(h, path):
    blocks = re.findall(r"```sql\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    for block in blocks:
        binds = sorted(set(re.findall(r"(?<![:\w]):([A-Za-z_]\w*)", block)))
        out = json.loads(
            h.tools.call("run_sql", {"sql": block, "binds": {b: "x" for b in binds}, "max_rows": 1})
        )
        assert "error" not in out, f"{path.name}: {out.get('error')}\n{block}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_tool_a_skill_names_is_registered(h, path):
    skill = parse_skill(path.read_text(encoding="utf-8"), path.stem)
    missing = [g.tool for g in skill.tools if g.tool not in h.tools.names()]
    assert not missing, f"{path.name} unlocks tools that do not exist: {missing}"
