"""The notebook helpers: a failing check shows the check cell's line and the message once.

Tracebacks are formatted by IPython's own machinery (what Jupyter shows in the notebook).
"""

from __future__ import annotations

import json
import re

import pytest

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def shown_traceback():
    """Run a cell in an IPython shell and return the traceback it would show."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shown: list[str] = []
    shell._showtraceback = lambda etype, value, stb: shown.extend(stb)  # ipykernel's hook

    def run(*cells: str) -> str:
        """Run the cells one after the other; the traceback the last one shows."""
        for source in cells:
            shown.clear()
            shell.run_cell(source)
        return ANSI.sub("", "\n".join(shown))

    yield run
    InteractiveShell.clear_instance()


TODO = """
from agent_harness.workshop import call_todo

def top_carriers_by_teu(n):
    # YOUR CODE HERE
    raise NotImplementedError()
"""


def test_an_unfinished_todo_shows_the_check_line_and_the_message_once(shown_traceback):
    text = shown_traceback(TODO, "_top3 = call_todo(top_carriers_by_teu, 3)\n")
    assert "_top3 = call_todo(top_carriers_by_teu, 3)" in text
    assert text.count("top_carriers_by_teu is not implemented yet") == 1, text
    assert "AssertionError" in text
    assert "agent_harness/workshop.py" not in text and "workshop.py" not in text, text
    assert text.count("NotImplementedError") == 1, text  # in the message, not as a frame
    assert len(text.strip().splitlines()) <= 10, text


def test_an_error_inside_the_attendees_function_still_shows_their_line(shown_traceback):
    source = (
        "from agent_harness.workshop import call_todo\n"
        "def scan_tables(owner):\n"
        "    return owner / 0\n"
        "call_todo(scan_tables, 7)\n"
    )
    text = shown_traceback(source)
    assert "ZeroDivisionError" in text and "return owner / 0" in text
    assert "workshop.py" not in text, text


def test_a_finished_todo_returns_its_value():
    from agent_harness.workshop import call_todo

    assert call_todo(lambda a, b=1: a + b, 2, b=3) == 5
    with pytest.raises(AssertionError, match="not implemented yet"):
        call_todo(lambda: (_ for _ in ()).throw(NotImplementedError()))


# --- tidying up after a check cell (issue 22, item 7) -------------------------------------------


def test_clean_up_runs_after_the_cell_passed_or_failed_last_registered_first(shown_traceback):
    from agent_harness import workshop

    setup = (
        "from agent_harness.workshop import after_this_cell\n"
        "log = []\n"
        "after_this_cell(log.append, 'first')\n"
        "after_this_cell(log.append, 'second')\n"
    )
    text = shown_traceback(setup + "assert 1 == 2, 'the check failed'\nlog.append('never')\n")
    from IPython import get_ipython

    log = get_ipython().user_ns["log"]
    assert log == ["second", "first"] and "the check failed" in text
    assert workshop._PENDING == []
    assert workshop._run_pending not in get_ipython().events.callbacks["post_execute"]
    shown_traceback("after_this_cell(log.append, 'third')\n")
    assert log == ["second", "first", "third"]


def test_the_arrow_stays_on_the_failed_check(shown_traceback):
    """Without a ``finally`` in the cell, the failed assert is the last line the cell ran."""
    text = shown_traceback(
        "from agent_harness.workshop import after_this_cell\n"
        "def _tidy():\n"
        "    pass\n"
        "after_this_cell(_tidy)\n"
        "assert 2 + 2 == 5, 'arithmetic'\n"
        "x = 1\n"
    )
    arrows = [line for line in text.splitlines() if line.lstrip().startswith("---->")]
    assert arrows and "assert 2 + 2 == 5" in arrows[-1], text


def test_replace_for_this_cell_puts_the_method_back(shown_traceback):
    from IPython import get_ipython

    shown_traceback(
        "from agent_harness.workshop import replace_for_this_cell\n"
        "class Backend:\n"
        "    def query(self, sql):\n"
        "        return 'real ' + sql\n"
        "b = Backend()\n"
        "real = replace_for_this_cell(b, 'query', lambda sql: 'spy ' + real(sql))\n"
        "during = b.query('x')\n"
        "raise RuntimeError('the check failed')\n"
    )
    ns = get_ipython().user_ns
    assert ns["during"] == "spy real x"
    assert ns["b"].query("x") == "real x" and "query" not in vars(ns["b"])


def test_outside_ipython_clean_up_waits_for_exit(monkeypatch):
    from agent_harness import workshop

    registered = []
    monkeypatch.setattr(workshop, "_ipython", lambda: None)
    monkeypatch.setattr(workshop.atexit, "register", lambda fn, *a, **k: registered.append(a))
    workshop.after_this_cell(print, "bye")
    assert registered == [("bye",)]


# --- the portability check (issue 22, item 11) --------------------------------------------------


@pytest.mark.parametrize(
    "sql, named",
    [
        ("SELECT a FROM t ORDER BY a LIMIT :k", "LIMIT"),
        (
            "WITH RECURSIVE w (s, p) AS (SELECT name, CAST(name AS VARCHAR(4000)) FROM x"
            " UNION ALL SELECT d.b, w.p || d.b FROM w JOIN d ON d.a = w.s) SELECT s FROM w",
            "RECURSIVE",
        ),
        (
            "WITH w (s, p) AS (SELECT name, '|' || name || '|' FROM x"
            " UNION ALL SELECT d.b, w.p || d.b || '|' FROM w JOIN d ON d.a = w.s) SELECT s FROM w",
            "not CAST",
        ),
        ("SELECT INSTR(p, :x) > 0 AS looped FROM t", "CASE WHEN"),
        ("SELECT IFNULL(a, 0) FROM t", "COALESCE"),
        ("SELECT GROUP_CONCAT(a) FROM t", "LISTAGG"),
        ("SELECT FROM WHERE", "cannot read it"),
    ],
)
def test_oracle_problems_names_the_construct(sql, named):
    from agent_harness.parts.portable_sql import oracle_problems

    problems = oracle_problems(sql)
    assert any(named in p for p in problems), problems


def test_portable_statements_pass():
    from agent_harness.parts.portable_sql import assert_portable, oracle_problems

    portable = (
        "WITH walk (skill, path) AS (SELECT name, CAST('|' || name || '|' AS VARCHAR(4000))"
        " FROM skillbox WHERE name = :skill UNION ALL SELECT d.depends_on,"
        " w.path || d.depends_on || '|' FROM walk w JOIN skill_dependencies d"
        " ON d.skill_name = w.skill WHERE d.required = 1"
        " AND INSTR(w.path, '|' || d.depends_on || '|') = 0)"
        " SELECT skill, CASE WHEN INSTR(path, '|x|') > 0 THEN 1 ELSE 0 END AS seen FROM walk"
    )
    assert oracle_problems(portable) == []
    assert_portable(portable)
    with pytest.raises(AssertionError, match="runs on SQLite but not on Oracle"):
        assert_portable("SELECT a FROM t LIMIT 3", "tool_stats's statement")


def test_show_json_breaks_lines_between_words_only(capsys):
    """Issue 22, item 15: a tool's one-line JSON answer wrapped mid-word in the output area."""
    from agent_harness.workshop import show_json

    answer = json.dumps(
        {
            "error": "argument 'ocean_region': 'ARCTIC' is not one of PACIFIC, ATLANTIC, INDIAN; "
            "unknown argument 'berths' (did you mean min_berths?)",
            "rows": list(range(40)),
        }
    )
    show_json(answer, width=60)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 1 and all(len(line) <= 60 for line in lines), lines
    assert " ".join(line.strip() for line in lines) == json.dumps(json.loads(answer))
    show_json('{"rows": [1, 2', width=60)  # cut text is printed as it is
    assert capsys.readouterr().out == '{"rows": [1, 2\n'


def test_unused_id_is_the_same_on_every_fresh_run_and_skips_ids_in_use(harness, monkeypatch):
    """05's checks store outputs under ids from ``unused_id``: the same ids in every fresh run
    (so the stored texts' vectors are cached from run to run), two in a row differ, and an id
    a memory of the scope holds as its subject (left by an earlier run) is never given."""
    import itertools

    from agent_harness import workshop

    prefix = "test_unused_id_check"
    monkeypatch.setattr(workshop, "_GIVEN", itertools.count(1))
    first = [workshop.unused_id(harness, prefix) for _ in range(3)]
    assert first == [f"{prefix}_1", f"{prefix}_2", f"{prefix}_3"]
    monkeypatch.setattr(workshop, "_GIVEN", itertools.count(1))  # a fresh process
    assert [workshop.unused_id(harness, prefix) for _ in range(3)] == first
    left = [harness.memory.add("left behind", kind="note", subject=f"{prefix}_{n}") for n in (1, 2)]
    try:
        monkeypatch.setattr(workshop, "_GIVEN", itertools.count(1))
        assert workshop.unused_id(harness, prefix) == f"{prefix}_3"
        assert workshop.unused_id(harness, prefix) == f"{prefix}_4"
    finally:
        for memory_id in left:
            harness.memory.delete(memory_id)


def test_unused_id_trusts_only_a_memory_whose_subject_is_the_id():
    """A backend that answers every query with the same rows (the Oracle stand-in's canned
    rows) does not make ``unused_id`` look for ever: a row counts only when its subject is the
    id asked about."""
    from types import SimpleNamespace

    from agent_harness.workshop import unused_id

    canned = [SimpleNamespace(subject="SOMETHING ELSE")]
    harness = SimpleNamespace(memory=SimpleNamespace(list=lambda **kwargs: canned))
    assert unused_id(harness, "canned").startswith("canned_")
