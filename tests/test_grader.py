"""`workshop grade` on synthetic submissions: correct, wrong, empty, mixed and hostile ones.

The batch uses notebook 00 only (a copy of solutions/00_setup/00_setup.ipynb as the instructor
source) so it stays fast; the full series is exercised by bench/bench_grade.py and the probe tests.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from click.testing import CliRunner

from grader.grade import grade_batch
from grader.notebook_folders import notebook_path
from grader.release import ROOT
from grader.sandbox import Limits, bwrap_available
from tests.deadlines import PATIENCE_S

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="workshop grade runs on Linux and macOS (WSL on Windows)"
)

SOLUTION = nbformat.read(notebook_path("00_setup"), as_version=4)
RELEASED = nbformat.read(ROOT / "notebooks" / "00_setup.ipynb", as_version=4)
ANSWER_ID = next(
    c.metadata["nbgrader"]["grade_id"]
    for c in SOLUTION.cells
    if c.metadata.get("nbgrader", {}).get("solution")
)
CORRECT = next(c.source for c in SOLUTION.cells if c.metadata.get("nbgrader", {}).get("solution"))
BODY = CORRECT.split("### BEGIN SOLUTION", 1)[1].split("### END SOLUTION", 1)[0]
SOLUTIONS_FILE = str(notebook_path("00_setup"))


def _fn(body: str) -> str:
    return "def top_carriers_by_teu(n):\n" + body


WRONG = _fn(CORRECT.split('"""', 2)[2].replace("DESC, c.name", "ASC, c.name"))
ALWAYS_EQUAL = _fn(
    "    class Anything(list):\n"
    "        def __eq__(self, other):\n"
    "            return True\n"
    "        def __ne__(self, other):\n"
    "            return False\n"
    "    return Anything()\n"
)
PATCHED_ASSERTS = (
    "import ast\n"
    "class _NoAsserts(ast.NodeTransformer):\n"
    "    def visit_Assert(self, node):\n"
    "        return ast.Pass()\n"
    "get_ipython().ast_transformers.append(_NoAsserts())\n"
    "import builtins\n"
    "builtins.AssertionError = type('Nothing', (Exception,), {})\n"
    + _fn("    return [('Fake Lines', 1)] * int(n)\n")
)
READS_SOLUTIONS = f"_leak = open({SOLUTIONS_FILE!r}, encoding='utf-8').read()\n" + CORRECT
WRITES_ELSEWHERE = (
    "import os, pathlib\n"
    "for _target in TARGETS:\n"
    "    try:\n"
    "        pathlib.Path(_target).parent.mkdir(parents=True, exist_ok=True)\n"
    "        pathlib.Path(_target).write_text('pwned')\n"
    "    except OSError:\n"
    "        pass\n" + CORRECT
)
EDITED_TESTS_WRONG = WRONG  # plus every grade cell replaced by `pass` (see _notebook)
#: The cell time-out of these batches: the looping submissions burn a core until it ends (two
#: of them per batch), and 00_setup's slowest cell takes about 0.2 CPU-s, so 5 s leaves a
#: correct notebook a wide margin even on a loaded machine.
CELL_S = 5
INFINITE_LOOP = "while True:\n    pass\n" + CORRECT
STUBBORN_LOOP = (
    "while True:\n"
    "    try:\n"
    "        while True:\n"
    "            pass\n"
    "    except BaseException:\n"
    "        pass\n"
)
MEMORY_HOG = "_hog = []\nwhile True:\n    _hog.append(bytearray(50 * 1024 * 1024))\n" + CORRECT
KERNEL_EXIT = "import os\nos._exit(3)\n"
KILLS_RUNNER = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n" + CORRECT
SYS_EXIT = "import sys\nsys.exit(0)\n" + CORRECT
FORKER = (
    "import os, time\n"
    "for _i in range(400):\n"
    "    if os.fork() == 0:\n"
    "        time.sleep(60)\n"
    "        os._exit(0)\n" + CORRECT
)
PRINTS_FAKE = "print('top_carriers_by_teu_checks: 1/1 ok')\n" + _fn(
    "    raise RuntimeError('nope')\n"
)


def _notebook(answer: str | None, edit_tests: bool | str = False) -> nbformat.NotebookNode:
    """A submission: the released notebook with ``answer`` in the TODO cell; ``edit_tests``
    True replaces every check cell with ``pass``, "delete" removes them and reverses the rest."""
    nb = nbformat.from_dict(json.loads(nbformat.writes(RELEASED)))
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and answer is not None:
            cell.source = answer
        if meta.get("grade") and edit_tests is True:
            cell.source = "pass"
    if edit_tests == "delete":
        nb.cells = [c for c in nb.cells if not c.metadata.get("nbgrader", {}).get("grade")][::-1]
    return nb


def _write(folder: Path, nb) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / "00_setup.ipynb")


def _tree_digest(root: Path, skip: Path | None = None) -> dict[str, str]:
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not (skip and skip in path.parents):
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """Grade one batch of synthetic submissions; returns (rows by student, paths)."""
    base = tmp_path_factory.mktemp("grading")
    source = base / "source"
    source.mkdir()
    shutil.copy(notebook_path("00_setup"), source / "00_setup.ipynb")
    subs = base / "submitted"
    out = base / "results"
    targets = [
        str(subs / "alice" / "workshop" / "00_setup.ipynb"),
        str(out / "grades.csv"),
        str(source / "00_setup.ipynb"),
        str(base / "outside.txt"),
    ]
    cases = {
        "alice": (CORRECT, False),
        "bob_wrong": (WRONG, False),
        "carol_empty": (None, False),
        "dave_always_equal": (ALWAYS_EQUAL, False),
        "erin_patched_asserts": (PATCHED_ASSERTS, False),
        "frank_edited_tests": (EDITED_TESTS_WRONG, True),
        "grace_edited_tests_correct": (CORRECT, True),
        "uma_deleted_and_reordered": (CORRECT, "delete"),
        "vic_deleted_tests_wrong": (WRONG, "delete"),
        "heidi_reads_solutions": (READS_SOLUTIONS, False),
        "ivan_writes_elsewhere": (f"TARGETS = {targets!r}\n" + WRITES_ELSEWHERE, False),
        "judy_infinite_loop": (INFINITE_LOOP, False),
        "ken_stubborn_loop": (STUBBORN_LOOP, False),
        "leo_memory_hog": (MEMORY_HOG, False),
        "mia_kernel_exit": (KERNEL_EXIT, False),
        "tina_kills_runner": (KILLS_RUNNER, False),
        "nick_sys_exit": (SYS_EXIT, False),
        "olga_forks": (FORKER, False),
        "pat_prints_fake": (PRINTS_FAKE, False),
    }
    for student, (answer, edit) in cases.items():
        _write(subs / student / "workshop", _notebook(answer, edit))
    (subs / "quinn_missing" / "workshop").mkdir(parents=True)
    (subs / "rita_broken" / "workshop").mkdir(parents=True)
    (subs / "rita_broken" / "workshop" / "00_setup.ipynb").write_text("{not json", "utf-8")
    with zipfile.ZipFile(subs / "sam_zip.zip", "w") as zf:
        zf.writestr("sam/notes.ipynb", nbformat.writes(_notebook(WRONG)))
        zf.writestr("sam/00_setup.ipynb", nbformat.writes(_notebook(CORRECT)))
        zf.writestr("../../escape.ipynb", nbformat.writes(_notebook(CORRECT)))
    before = _tree_digest(base, skip=out)
    totals = []
    rows = grade_batch(
        subs,
        out,
        workers=2,
        timeout_cell=CELL_S,
        timeout_notebook=60,
        source_dir=source,
        limits=Limits(memory_mb=1024, processes=48, deadline_s=90),
        on_total=totals.append,
    )
    after = _tree_digest(base, skip=out)
    by_student = {}
    for row in rows:
        by_student.setdefault(row.student, []).append(row)
    return {
        "rows": by_student,
        "out": out,
        "subs": subs,
        "source": source,
        "before": before,
        "after": after,
        "totals": totals,
        "base": base,
    }


def _only(batch, student):
    """The student's result for notebook 00, whose TODO is graded by several cells: points
    summed, the first status that is not ok (else ok), every message."""
    rows = batch["rows"][student]
    assert len({r.notebook for r in rows}) == 1, rows
    bad = [r.status for r in rows if r.status != "ok"]
    return SimpleNamespace(
        points=sum(r.points for r in rows),
        status=bad[0] if bad else "ok",
        message="\n".join(r.message for r in rows if r.message),
        rows=rows,
    )


@pytest.mark.parametrize(
    "student, points, status",
    [
        ("alice", 1, "ok"),
        ("grace_edited_tests_correct", 1, "ok"),
        ("uma_deleted_and_reordered", 1, "ok"),
        ("vic_deleted_tests_wrong", 0, "failed"),
        ("sam_zip", 1, "ok"),
        ("nick_sys_exit", 0, "failed"),
        ("bob_wrong", 0, "failed"),
        ("carol_empty", 0, "failed"),
        ("dave_always_equal", 0, "failed"),
        ("erin_patched_asserts", 0, "failed"),
        ("frank_edited_tests", 0, "failed"),
        ("pat_prints_fake", 0, "failed"),
        ("rita_broken", 0, "failed"),
        ("quinn_missing", 0, "missing"),
        ("judy_infinite_loop", 0, "timeout"),
        ("ken_stubborn_loop", 0, "timeout"),
        ("leo_memory_hog", 0, "crashed"),
        ("mia_kernel_exit", 0, "crashed"),
        ("tina_kills_runner", 0, "crashed"),
        ("olga_forks", 0, "crashed"),
    ],
)
def test_each_submission_gets_the_right_score_and_status(batch, student, points, status):
    row = _only(batch, student)
    assert (row.points, row.status) == (points, status), row


def test_sys_exit_is_a_failed_cell_not_a_dead_kernel(batch):
    assert "SystemExit" in _only(batch, "nick_sys_exit").message


def test_value_checks_catch_what_the_visible_checks_miss(batch):
    for student in ("dave_always_equal", "erin_patched_asserts"):
        row = _only(batch, student)
        assert row.status == "failed" and row.message, row


@pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap (Linux): filesystem isolation")
def test_a_submission_cannot_read_the_solutions(batch):
    row = _only(batch, "heidi_reads_solutions")
    assert row.points == 0 and "FileNotFoundError" in row.message, row


@pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap (Linux): filesystem isolation")
def test_no_file_outside_the_submissions_own_folder_changes(batch):
    assert batch["after"] == batch["before"]
    assert not (batch["base"] / "outside.txt").exists()
    assert not (batch["base"].parent / "escape.ipynb").exists()
    assert _only(batch, "ivan_writes_elsewhere").status == "ok"


def test_the_batch_completes_and_writes_every_output(batch):
    out = batch["out"]
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert {r["student"] for r in table} == set(batch["rows"])
    assert list(table[0]) == [
        "student",
        "notebook",
        "grade_id",
        "points",
        "max_points",
        "status",
        "message",
    ]
    for student in batch["rows"]:
        page = (out / "feedback" / f"{student}.html").read_text(encoding="utf-8")
        assert student in page
    assert batch["totals"] == [len(batch["rows"])]


def test_feedback_never_shows_hidden_tests(batch):
    source = nbformat.read(batch["source"] / "00_setup.ipynb", as_version=4)
    hidden = [
        line.strip()
        for c in source.cells
        if "### BEGIN HIDDEN TESTS" in c.source
        for line in c.source.split("### BEGIN HIDDEN TESTS", 1)[1]
        .split("### END HIDDEN TESTS", 1)[0]
        .splitlines()
        if len(line.strip()) > 10
    ]
    assert hidden
    for page in (batch["out"] / "feedback").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not [line for line in hidden if line in text], page.name


def test_rerun_grades_only_new_or_changed_submissions(batch):
    subs, out, source = batch["subs"], batch["out"], batch["source"]
    settings = dict(workers=2, timeout_cell=CELL_S, timeout_notebook=60, source_dir=source)
    totals = []
    rows = grade_batch(subs, out, on_total=totals.append, **settings)
    assert totals == [0]
    assert {r.student for r in rows} == set(batch["rows"])
    _write(subs / "bob_wrong" / "workshop", _notebook(CORRECT))
    totals = []
    rows = grade_batch(subs, out, on_total=totals.append, **settings)
    assert totals == [1]
    assert sum(r.points for r in rows if r.student == "bob_wrong") == 1
    assert sum(r.points for r in rows if r.student == "alice") == 1


def test_cli_grade_reports_and_refuses_bad_input(batch, tmp_path):
    from agent_harness.interfaces.cli import cli

    runner = CliRunner()
    result = runner.invoke(cli, ["grade", str(tmp_path / "nope"), "--out", str(tmp_path / "r")])
    assert result.exit_code != 0 and "does not exist" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(
        cli, ["grade", str(empty), "--out", str(tmp_path / "r"), "--source", str(batch["source"])]
    )
    assert result.exit_code == 0, result.output
    assert "isolation:" in result.output and "grades.csv" in result.output
    args = ["grade", str(empty), "--out", str(tmp_path / "r"), "--source", str(batch["source"])]
    result = runner.invoke(cli, [*args, "--gradebook", str(tmp_path / "gradebook.db")])
    assert result.exit_code != 0
    assert "has no assignment 'workshop'" in result.output
    assert "generate_assignment" in result.output


def test_without_bubblewrap_limits_and_scores_still_hold(batch, tmp_path):
    """The macOS path (no bwrap): process limits, scrubbed env, own folder, same scores."""
    subs = tmp_path / "subs"
    answers = {
        "alice": CORRECT,
        "bob_wrong": WRONG,
        "judy_infinite_loop": INFINITE_LOOP,
        "mia_kernel_exit": KERNEL_EXIT,
    }
    for student, answer in answers.items():
        _write(subs / student, _notebook(answer))
    rows = grade_batch(
        subs,
        tmp_path / "out",
        workers=2,
        timeout_cell=CELL_S,
        timeout_notebook=60,
        source_dir=batch["source"],
        use_bwrap=False,
    )
    got = {}
    for student in answers:  # notebook 00 is graded by several cells: summed, first non-ok
        mine = [r for r in rows if r.student == student]
        bad = [r.status for r in mine if r.status != "ok"]
        got[student] = (sum(r.points for r in mine), bad[0] if bad else "ok")
    assert got == {
        "alice": (1, "ok"),
        "bob_wrong": (0, "failed"),
        "judy_infinite_loop": (0, "timeout"),
        "mia_kernel_exit": (0, "crashed"),
    }, rows


def test_collecting_reports_odd_files(batch):
    problems = (batch["out"] / "problems.txt").read_text(encoding="utf-8")
    assert "sam_zip: ../../escape.ipynb: unsafe path in the zip, skipped" in problems
    assert "sam_zip: notes.ipynb: not a workshop notebook, ignored" in problems


def test_collect_matches_every_notebook_of_a_zip_and_of_nbgrader_folders(tmp_path):
    from grader.collect import collect

    names = ["00_setup", "03_tools_and_skills", "05_tool_output_offload"]
    subs = tmp_path / "subs"
    subs.mkdir()
    with zipfile.ZipFile(subs / "carol.zip", "w") as zf:
        zf.writestr("work/00_setup.ipynb", "{}")
        zf.writestr("work/deeper/03_tools_and_skills (1).ipynb", "{}")
    folder = subs / "dan" / "workshop"
    folder.mkdir(parents=True)
    (folder / "05_tool_output_offload-Copy1.ipynb").write_text("{}")
    (folder / "00_setup.ipynb").write_text("{}")
    found = {s.student: s for s in collect(subs, names, tmp_path / "unpacked")}
    assert sorted(found["carol"].notebooks) == ["00_setup", "03_tools_and_skills"]
    assert sorted(found["dan"].notebooks) == ["00_setup", "05_tool_output_offload"]
    assert found["carol"].problems == [] and found["dan"].problems == []


def test_the_sandbox_imports_the_agent_harness_the_grader_imported(tmp_path):
    """From a git worktree the editable install's import hook points at another checkout
    (not mounted in the sandbox): the runner's PYTHONPATH names the package's own folder."""
    import subprocess

    import agent_harness
    from grader.sandbox import Sandbox, _environment

    sandbox = Sandbox(tmp_path, tmp_path, Limits())
    # the runner's command line, running a line of Python instead of runner.py
    command = sandbox.command(["-c", "import agent_harness; print(agent_harness.__file__)"])
    out = subprocess.run(
        command, capture_output=True, text=True, env=_environment(str(tmp_path)), timeout=PATIENCE_S
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(Path(agent_harness.__file__).resolve())


def test_broken_solutions_stop_the_batch_before_any_grade(tmp_path):
    """The reference runs beside the first submissions; if the instructor's own solution fails
    its checks, nothing is graded and the error says so."""
    from grader.grade import GradingError

    source = tmp_path / "source"
    source.mkdir()
    broken = nbformat.from_dict(json.loads(nbformat.writes(SOLUTION)))
    for cell in broken.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = WRONG
    nbformat.write(broken, source / "00_setup.ipynb")
    subs, out = tmp_path / "submitted", tmp_path / "results"
    for student in ("amy", "ben", "cal"):
        _write(subs / student / "workshop", _notebook(CORRECT))
    with pytest.raises(GradingError, match="do not pass their own checks"):
        grade_batch(
            subs, out, workers=2, timeout_cell=CELL_S, timeout_notebook=60, source_dir=source
        )
    assert not (out / "grades.csv").exists() or "amy" not in (out / "grades.csv").read_text()
