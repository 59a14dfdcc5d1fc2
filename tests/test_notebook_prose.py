"""What the notebooks say about the library and the database is true (issue 22, item 10)."""

from __future__ import annotations

import json

import apsw

from agent_harness.parts.token_count import method
from grader.notebook_folders import notebook_path, notebook_paths


def _text(stem: str) -> str:
    nb = json.loads(notebook_path(stem).read_text(encoding="utf-8"))
    return "\n".join("".join(cell["source"]) for cell in nb["cells"])


def test_06_says_what_sqlites_percentile_disc_gives():
    """The SQLite shipped has percentile_disc; it is not nearest-rank (p95 of 1..4 is 3.0)."""
    db = apsw.Connection(":memory:")
    db.execute("CREATE TABLE t (x)")
    db.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(1, 5)])
    (p95,) = next(db.execute("SELECT percentile_disc(x, 0.95) FROM t"))
    assert p95 == 3.0
    text = _text("06_self_healing_registry")
    assert "has no percentile function" not in text
    assert f"The SQLite here ({'.'.join(apsw.sqlite_lib_version().split('.')[:2])})" in text
    assert "is 3.0 there, 4 by nearest rank" in text


def test_03_describes_the_toolbox_index_and_counts_tokens_with_tiktoken():
    text = _text("03_tools_and_skills")
    assert "name: description / args" not in text, "the toolbox embeds the description + name"
    assert "tiktoken` is not installed" not in text
    assert method() == "tiktoken cl100k_base"
    assert "schemas_tokens(sent)" in text and "approx_tokens" not in text


def test_07_states_that_the_library_makes_the_bind_check():
    """07's TODO asks for a ValueError; h.tools.define raises one too (DefinitionRefused)."""
    from agent_harness.tools.tools_as_data import DefinitionRefused

    assert issubclass(DefinitionRefused, ValueError)
    assert "`DefinitionRefused`, a `ValueError`" in _text("07_progressive_disclosure")


def test_every_notebook_says_where_run_all_stopped():
    """Issue 22, item 15: after Run All stops at a failing check the view sits at the bottom."""
    for path in notebook_paths():
        nb = json.loads(path.read_text(encoding="utf-8"))
        title = "".join(nb["cells"][0]["source"])
        assert "**If Run All stops**" in title and "scroll up" in title, path.name


def test_07s_parameter_table_shows_none_not_nan():
    """Issue 22, item 15: a NULL default_value showed as NaN in 07's tool_parameters table."""
    import pandas as pd

    text = _text("07_progressive_disclosure")
    assert 'ORDER BY ordinal"),\n        dtype=object))' in text
    rows = [{"default_value": None}, {"default_value": "5000"}]
    assert pd.DataFrame(rows, dtype=object)["default_value"].tolist() == [None, "5000"]


def test_no_notebook_points_at_files_a_student_distribution_lacks():
    """Issue 28, item 5: attendees get the released notebooks, not tests/ or bench/."""
    import re

    for path in notebook_paths():
        found = re.findall(r"\b(?:tests|bench)/\w+", _text(path.stem))
        assert not found, f"{path.name} points at {found}"


def test_08_says_09_comes_next_and_shows_the_event_table_as_stored():
    """Issue 28, item 5: 08 is not the last notebook; its event table showed 1.0 and NaN."""
    text = _text("08_glass_box")
    assert "This is the last notebook" not in text and "notebook 09" in text
    assert "pd.DataFrame(events, dtype=object)" in text
