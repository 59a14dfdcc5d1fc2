"""Submissions that attack the grading machinery itself (issue 18, items 11-13; issue 22 item 1):
forged runner events on every descriptor, reading the hidden probes from inside the sandbox,
tampering with the check machinery from an added cell, limits set by the runner itself, probe
modules that fail to import and grade cells without a value check.

Most cases run a tiny notebook (no database) through the real grading path (sandboxed
runner, probes, scoring), so each costs one sandbox start.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from grader.answers import AddedCell, Answers
from grader.execute import run_notebooks
from grader.notebook_folders import notebook_path
from grader.release import ROOT, release_notebook
from grader.sandbox import Limits, Sandbox, bwrap_available
from grader.scoring import score_notebook
from grader.sources import GradingError, Source
from grader.value_checks import Probe

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="workshop grade runs on Linux and macOS (WSL on Windows)"
)
NEEDS_BWRAP = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap (Linux)")

SETUP = (
    "import json\n\n"
    "def check_equal(got, expected):\n"
    "    assert json.dumps(got) == json.dumps(expected), (got, expected)\n"
)
TODO = "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION\n"
CHECK = "check_equal(double(2), 4)\ncheck_equal(double(3), 6)\n"
PROBES = {
    "double_checks": [
        Probe("twenty-one", "value = outcome(double, 21)", "double(21) should be 42"),
        Probe("minus one", "value = outcome(double, -1)", "double(-1) should be -2"),
    ]
}
RIGHT = "def double(x):\n    return x + x\n"
WRONG = "def double(x):\n    return x + 2\n"  # right on 2 only
TAMPERED = "def double(x):\n    return {2: 4, 3: 6}.get(x, 0)\n"  # right on the visible inputs


def _tiny_source() -> Source:
    nb = nbformat.v4.new_notebook()
    todo = nbformat.v4.new_code_cell(TODO)
    todo.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": "double"}
    check = nbformat.v4.new_code_cell(CHECK)
    check.metadata["nbgrader"] = {
        "grade": True,
        "solution": False,
        "grade_id": "double_checks",
        "points": 1.0,
    }
    nb.cells = [nbformat.v4.new_code_cell(SETUP), todo, check]
    grade_cells = [("double_checks", 1.0)]
    return Source("99_tiny", nb, release_notebook(nb), grade_cells, PROBES, set())


SOURCE = _tiny_source()


def _run(tmp_path: Path, jobs: list, use_bwrap=None):
    template = tmp_path / "template"
    template.mkdir(exist_ok=True)
    job = tmp_path / f"job-{len(list(tmp_path.iterdir()))}"
    job.mkdir()
    return run_notebooks(
        [(SOURCE, answers) for answers in jobs], job, template, Limits(), 20, 120, use_bwrap
    )


def _answers(todo: str, added: list[tuple[int, str]] = ()) -> Answers:
    """The tiny notebook's answer, with added cells after released cell ``after``."""
    return Answers(
        cells={"double": todo},
        added=[AddedCell(after, text, n + 4) for n, (after, text) in enumerate(added)],
    )


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    (run,) = _run(tmp_path_factory.mktemp("reference"), [None])
    assert run.status == "ok" and len(run.probe_values) == 2, run
    return run.probe_values


def _score(run, reference):
    (row,) = score_notebook("s", SOURCE, run, reference)
    return row


# --- 18.11: forged events on every descriptor ----------------------------------------------------
def _forger(values, through_proc: bool) -> str:
    """Code that writes forged runner events (passed cells, probe values, the end) to every
    descriptor 0..1023 and, in the sandbox (its own PID namespace), through /proc/<pid>/fd of
    every process it can see. Never without the sandbox: /proc would then be the machine's."""
    events = [{"event": "cell_end", "index": i, "error": None} for i in range(10)]
    events += [{"event": "probe_end", "index": i, "value": v} for i, v in values]
    events += [{"event": e} for e in ("cells_done", "probes_done", "ready")]
    events += [{"event": "notebook_done", "status": "ok", "reason": ""}]
    events += [{"error": None}, {"value": values[0][1]}, {"nonce": None, "error": None}]
    data = "".join(json.dumps(e) + "\n" for e in events)
    return textwrap.dedent(
        f"""
        def _forge():
            import os, stat
            data = {data!r}.encode()
            for fd in range(1024):
                try:
                    if stat.S_ISREG(os.fstat(fd).st_mode):
                        continue  # its own files (the database): not a channel
                    os.write(fd, data)
                except OSError:
                    pass
            for pid in os.listdir("/proc") if {through_proc!r} else []:
                try:
                    fds = os.listdir(f"/proc/{{pid}}/fd")
                except OSError:
                    continue
                for fd in fds:
                    try:
                        path = f"/proc/{{pid}}/fd/{{fd}}"
                        if stat.S_ISREG(os.stat(path).st_mode):
                            continue
                        out = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                    except OSError:
                        continue
                    try:
                        os.write(out, data)
                    except OSError:
                        pass
                    os.close(out)
        """
    )


def _forging(todo: str, values, through_proc: bool) -> Answers:
    forger = _forger(values, through_proc)
    body = todo.replace("def double(x):\n", "def double(x):\n    _forge()\n")
    return _answers(forger + body, [(0, forger + "_forge()\n")])


@pytest.mark.parametrize("use_bwrap", [None, False], ids=["sandbox", "no-bwrap"])
def test_forged_events_on_every_descriptor_change_nothing(tmp_path, reference, use_bwrap):
    """Item 18.11: a notebook (at cell time, inside the checks and inside the value checks)
    writes forged "cell passed", "probe" (with the REFERENCE values) and "done" events to
    every descriptor: the wrong answer still fails, the right one still passes, exactly as
    without the forging; the lines are counted as ignored."""
    if use_bwrap is None and not bwrap_available():
        pytest.skip("needs bubblewrap")
    proc = use_bwrap is None
    jobs = [_answers(RIGHT), _answers(WRONG), _forging(RIGHT, reference, proc)]
    jobs.append(_forging(WRONG, reference, proc))
    runs = _run(tmp_path, jobs, use_bwrap)
    plain_right, plain_wrong, forged_right, forged_wrong = (_score(r, reference) for r in runs)
    assert (plain_right.points, plain_wrong.points) == (1.0, 0.0)
    assert forged_right == plain_right, forged_right
    assert forged_wrong == plain_wrong, forged_wrong
    assert runs[2].status == runs[3].status == "ok"
    assert runs[2].ignored_lines > 0 and runs[3].ignored_lines > 0  # the forging did run


def test_the_student_process_holds_only_its_own_pipes(tmp_path, reference):
    """Item 18.11: every inherited descriptor is replaced; the runner cannot be traced."""
    probe = textwrap.dedent(
        """
        import os, stat
        OPEN = {}
        for fd in range(1024):
            try:
                mode = os.fstat(fd).st_mode
            except OSError:
                continue
            OPEN[fd] = "pipe" if stat.S_ISFIFO(mode) else "char" if stat.S_ISCHR(mode) else "other"
        PIPES = sorted(fd for fd, kind in OPEN.items() if kind == "pipe")
        """
    )
    check = "assert len(PIPES) == 2 and set(OPEN) >= {0, 1, 2}, OPEN\n"
    (run,) = _run(tmp_path, [_answers(RIGHT, [(0, probe), (2, check)])])
    assert run.errors == {}, run.errors


# --- 22.1: an added cell cannot pass a check for the student ----------------------------------
NOOP = "lambda got, expected: None"
#: Each makes the check cell pass for WRONG when it runs unguarded (see the TODO-cell case).
TAMPERS = {
    "rebinds the check's helper": f"check_equal = {NOOP}\n",
    "patches the helper's code": f"check_equal.__code__ = ({NOOP}).__code__\n",
    "edits a module the check uses": "json.dumps = lambda *a, **k: 'same'\n",
    "monkeypatches the shell": (
        "_real = get_ipython().run_cell\nget_ipython().run_cell = lambda *a, **k: _real('pass')\n"
    ),
    "rewrites the check's source": (
        "get_ipython().input_transformers_cleanup.append(lambda lines: ['pass\\n'])\n"
    ),
    "removes the check's calls (AST)": (
        "import ast\n"
        "class _Drop(ast.NodeTransformer):\n"
        "    def visit_Expr(self, node):\n"
        "        return ast.Pass()\n"
        "get_ipython().ast_transformers.append(_Drop())\n"
    ),
    "re-binds the helper before every cell": (
        f"get_ipython().events.register('pre_run_cell', lambda info: get_ipython().user_ns"
        f".update(check_equal={NOOP}))\n"
    ),
    "traces the helper and edits its locals": (
        "import sys\n"
        "def _tracer(frame, event, arg):\n"
        "    if frame.f_code.co_name == 'check_equal':\n"
        "        frame.f_locals['expected'] = frame.f_locals['got']\n"
        "    return _tracer\n"
        "sys.settrace(_tracer)\n"
    ),
}


@pytest.mark.parametrize("label", list(TAMPERS))
def test_an_added_cell_that_tampers_with_a_check_cannot_pass_it(tmp_path, reference, label):
    """Item 22.1: WRONG (right on double(2) only) plus an added cell right before the check
    that makes the check pass when it runs unguarded, as the same code in the TODO cell shows:
    from an added cell the change is undone and reported, the visible check fails and the
    value checks fail; from the TODO cell (which the guard does not watch) only the value
    checks stop it: 0 points either way."""
    tamper = TAMPERS[label]
    in_todo, added = _run(tmp_path, [_answers(tamper + WRONG), _answers(WRONG, [(1, tamper)])])
    unguarded, guarded = _score(in_todo, reference), _score(added, reference)
    assert "visible check:" not in unguarded.message, (label, "the tamper is not effective")
    assert unguarded.points == 0 and "value check" in unguarded.message, unguarded
    assert guarded.points == 0 and "visible check:" in guarded.message, (label, guarded)
    assert added.undone, f"{label}: nothing was reported as undone"


def test_an_added_cell_keeps_its_own_names_and_a_helper_cell_counts(tmp_path, reference):
    """Item 22.1: an added helper above the TODO and an exploration cell after it: the TODO
    uses the helper, both run in place, full marks, nothing undone."""
    helper = "FACTOR = 2\n"
    todo = "def double(x):\n    return FACTOR * x\n"
    explore = "print(double(5))\nseen = [double(i) for i in range(3)]\n"
    (run,) = _run(tmp_path, [_answers(todo, [(0, helper), (1, explore), (2, "print(seen)\n")])])
    row = _score(run, reference)
    assert (row.points, row.status) == (1.0, "ok"), row
    assert run.undone == {}, run.undone
    assert [c["kind"] for c in run.cells] == [
        "instructor",
        "added",
        "solution",
        "added",
        "check",
        "added",
    ]


# --- 18.12: the probes cannot be read inside the sandbox --------------------------------------
def _leak_probe(extra_paths: list[str]) -> str:
    return textwrap.dedent(
        f"""
        import importlib.util, os, sys
        LEAKED = []
        try:
            import grader.notebook_folders as _folders

            _folders.answers("00_setup")
            LEAKED.append("grader.notebook_folders.answers")
        except Exception:
            pass
        candidates = {extra_paths!r}
        for entry in list(sys.path) + [os.path.dirname(os.__file__)]:
            for up in (entry, os.path.dirname(entry), os.path.dirname(os.path.dirname(entry))):
                candidates.append(os.path.join(up, "grader", "probes", "nb_00_setup.py"))
                candidates.append(os.path.join(up, "solutions", "00_setup", "probes.py"))
                candidates.append(os.path.join(up, "solutions", "00_setup", "00_setup.ipynb"))
        for path in candidates:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read(50):
                        LEAKED.append(path)
            except OSError:
                pass
        """
    )


@NEEDS_BWRAP
def test_probes_are_not_readable_from_the_source_tree_install(tmp_path, reference):
    """Item 18.12, editable/source-tree case: the project's grader/ and solutions/ are not
    mounted, whatever path or import a submission tries."""
    paths = [str(notebook_path("00_setup").parent / "probes.py"), str(ROOT / "solutions")]
    added = [(0, _leak_probe(paths)), (2, "assert LEAKED == [], LEAKED\n")]
    (run,) = _run(tmp_path, [_answers(RIGHT, added)])
    assert run.errors == {}, run.errors


@NEEDS_BWRAP
def test_probes_are_not_readable_from_a_non_editable_install(tmp_path, reference, monkeypatch):
    """Item 18.12, non-editable case: the sandbox mounts site-packages, and the grader folder in
    it is covered inside the sandbox (the wheel ships no probes since they live in solutions/;
    a probe file put inside the installed package, as older wheels had, stays unreadable)."""
    import grader.sandbox as sandbox_module

    site = tmp_path / "site-packages"
    shutil.copytree(ROOT / "grader", site / "grader")  # the wheel's layout
    real = sandbox_module._python_paths
    monkeypatch.setattr(sandbox_module, "_python_paths", lambda: [*real(), str(site)])
    probe_file = site / "grader" / "probes" / "nb_00_setup.py"
    probe_file.parent.mkdir(exist_ok=True)
    shutil.copy(notebook_path("00_setup").parent / "probes.py", probe_file)
    added = [(0, _leak_probe([str(probe_file)])), (2, "assert LEAKED == [], LEAKED\n")]
    (run,) = _run(tmp_path, [_answers(RIGHT, added)])
    assert run.errors == {}, run.errors
    assert probe_file.exists()  # outside the sandbox nothing changed


# --- 18.13: limits set by the runner, probes that fail loudly ----------------------------------
def test_the_runner_sets_its_limits_and_no_preexec_fn_is_used(tmp_path, reference, monkeypatch):
    """Item 18.13: no ``preexec_fn`` (fork/exec deadlock risk in a threaded grader); the
    notebook's process still runs under the limits."""
    import grader.sandbox as sandbox_module

    seen = []
    real_popen = subprocess.Popen

    def spy(*args, **kwargs):
        seen.append(kwargs)
        return real_popen(*args, **kwargs)

    monkeypatch.setattr(sandbox_module.subprocess, "Popen", spy)
    limits = Limits()
    check = (
        "import resource\n"
        f"assert resource.getrlimit(resource.RLIMIT_DATA)[0] == {limits.memory_mb << 20}\n"
        f"assert resource.getrlimit(resource.RLIMIT_FSIZE)[0] == {limits.file_size_mb << 20}\n"
        f"assert resource.getrlimit(resource.RLIMIT_CPU)[0] == {limits.cpu_seconds}\n"
        "assert resource.getrlimit(resource.RLIMIT_CORE)[0] == 0\n"
    )
    (run,) = _run(tmp_path, [_answers(RIGHT, [(2, check)])])
    assert run.errors == {}, run.errors
    assert seen and all(kwargs.get("preexec_fn") is None for kwargs in seen), seen


def test_a_probe_module_that_does_not_import_stops_grading(tmp_path, monkeypatch):
    """Item 18.13: an import error inside a probe file is an error naming it, not 'no
    probes' (which silently dropped every value check of the notebook)."""
    from grader.sources import load_source

    folder = tmp_path / "solutions" / "00_setup"
    folder.mkdir(parents=True)
    shutil.copy(notebook_path("00_setup"), folder)
    (folder / "probes.py").write_text("import not_a_module_xyz\n")
    with pytest.raises(GradingError, match="00_setup/probes.py does not import.*not_a_module_xyz"):
        load_source(folder / "00_setup.ipynb")


def test_a_grade_cell_without_a_probe_is_refused(tmp_path):
    """Item 18.13: grading refuses a grade cell that has no value check, naming it."""
    from grader.sources import load_sources

    nb = nbformat.read(notebook_path("00_setup"), as_version=4)
    extra = nbformat.v4.new_code_cell("assert True")
    extra.metadata["nbgrader"] = {"grade": True, "grade_id": "no_probe_here", "points": 1.0}
    nb.cells.append(extra)
    (tmp_path / "src").mkdir()
    nbformat.write(nb, tmp_path / "src" / "00_setup.ipynb")
    with pytest.raises(GradingError, match="without a value check: no_probe_here"):
        load_sources(tmp_path / "src")


def test_sandbox_command_runs_python_in_the_same_sandbox(tmp_path):
    sandbox = Sandbox(tmp_path, tmp_path, Limits(), use_bwrap=False)
    assert sandbox.command(["-c", "pass"])[1:] == ["-c", "pass"]
