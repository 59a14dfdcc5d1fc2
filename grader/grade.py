"""``workshop grade``: grade a batch of submissions, in parallel, one sandbox per submission.

For every student the notebook that runs is rebuilt from the instructor's source: the released
version of every cell (hidden tests removed) with only the solution cells taken from the
submission, matched by ``grade_id``. Deleted, reordered, retyped or edited check cells change
nothing. The runner executes the notebooks in the submission's sandbox (see
:mod:`grader.sandbox`), then evaluates the probes (see :mod:`grader.probes`); the grader compares
their plain values with the reference values of the instructor's solution, in its own process.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import os
import queue
import re
import shutil
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path

import nbformat

from grader.collect import Submission, collect
from grader.probes import Probe, probes_for, same
from grader.release import ROOT, release_notebook
from grader.results import GradeRow, Status
from grader.sandbox import Limits, Sandbox

__all__ = [
    "run_notebooks",
    "cut_after",
    "GradingError",
    "Source",
    "Answers",
    "NotebookRun",
    "load_sources",
    "meta",
    "read_answers",
    "cells_to_run",
    "run_submission",
    "score_notebook",
    "prepare_template",
    "grade_batch",
]


def _hidden_markers():
    """The hidden-test delimiters, from nbgrader's ClearHiddenTests settings (one source)."""
    from nbgrader.preprocessors import ClearHiddenTests

    settings = ClearHiddenTests()
    return settings.begin_test_delimeter, settings.end_test_delimeter


HIDDEN = re.compile("{}(.*?){}".format(*map(re.escape, _hidden_markers())), re.S)


class GradingError(RuntimeError):
    """The batch cannot be graded (the message says why and what to do)."""


def meta(cell) -> dict:
    """A cell's nbgrader metadata ({} when it has none)."""
    found = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) else {}
    return found if isinstance(found, dict) else {}


_meta = meta


@dataclass
class Source:
    """One instructor notebook and what grading needs from it."""

    name: str
    notebook: nbformat.NotebookNode
    released: nbformat.NotebookNode
    grade_cells: list[tuple[str, float]]
    probes: dict[str, list[Probe]]
    hidden_lines: set[str]


def load_sources(folder: Path | None = None) -> list[Source]:
    """The instructor's notebooks (``solutions/`` by default), in order."""
    folder = Path(folder or ROOT / "solutions")
    paths = sorted(folder.glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        raise GradingError(f"no instructor notebooks (NN_name.ipynb) in {folder}")
    sources = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        grade_cells = [
            (_meta(c)["grade_id"], float(_meta(c).get("points", 0)))
            for c in nb.cells
            if c.cell_type == "code" and _meta(c).get("grade")
        ]
        hidden = {
            line.strip()
            for c in nb.cells
            for region in HIDDEN.findall(c.source)
            for line in region.splitlines()
            if len(line.strip()) > 3
        }
        sources.append(
            Source(path.stem, nb, release_notebook(nb), grade_cells, probes_for(path.stem), hidden)
        )
    return sources


@dataclass
class Answers:
    """What grading takes from one submitted notebook.

    Attributes:
        cells: The student's solution cells by grade_id ({} for a missing or broken file).
        dropped: Names the student defined only in cells that grading does not run (an extra
            cell, an edited pre-built cell): their TODO cells cannot see them.
        notes: What the student should know about how their notebook was read (dropped
            definitions, edited or deleted check cells), one sentence each.
    """

    cells: dict[str, str] = field(default_factory=dict)
    dropped: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)


def _text(cell) -> str | None:
    source = cell.get("source")
    if isinstance(source, list):
        source = "".join(str(s) for s in source)
    return source if isinstance(source, str) else None


#: Submissions are read in parallel threads, and CPython 3.11's AST construction keeps its
#: recursion depth in interpreter-wide state: two ``ast.parse`` at once can fail with
#: "SystemError: AST constructor recursion depth mismatch" (python/cpython#106905).
_AST_LOCK = threading.Lock()


def _defined(source: str) -> set[str]:
    """Top-level names a cell defines (def, class, assignment, import); {} if it does not parse."""
    try:
        with _AST_LOCK:
            tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def read_answers(submission_path: Path | None, source: Source | None = None) -> Answers:
    """The student's solution cells, and what grading drops from the notebook (with notes).

    Args:
        submission_path: The submitted notebook (None: not submitted).
        source: The instructor notebook; without it only the solution cells are read.
    """
    answers = Answers()
    if submission_path is None:
        return answers
    try:
        nb = nbformat.read(submission_path, as_version=4)
    except Exception:  # unreadable JSON, wrong format: every answer is missing
        return answers
    cells = [c for c in nb.get("cells", []) if isinstance(c, dict)]
    for cell in cells:
        info, text = meta(cell), _text(cell)
        if info.get("solution") and isinstance(info.get("grade_id"), str) and text is not None:
            answers.cells.setdefault(info["grade_id"], text)
    if source is None:
        return answers
    released = [c for c in source.released.cells if c.cell_type == "code"]
    kept = {c.source.strip() for c in released if not meta(c).get("solution")}
    checks = {meta(c)["grade_id"]: c.source for c in released if meta(c).get("grade")}
    runs = set().union(*(_defined(c.source) for c in released if not meta(c).get("solution")))
    runs |= set().union(*map(_defined, answers.cells.values()))
    dropped_names: set[str] = set()
    seen_checks = set()
    for cell in cells:
        info, text = meta(cell), _text(cell)
        if cell.get("cell_type") != "code" or text is None or info.get("solution"):
            continue
        grade_id = info.get("grade_id")
        if info.get("grade") and grade_id in checks:
            seen_checks.add(grade_id)
            if text.strip() != checks[grade_id].strip():
                answers.notes.append(
                    f"the check cell {grade_id} was edited in your notebook; grading ran the "
                    "original check"
                )
            continue
        if text.strip() not in kept:
            dropped_names |= _defined(text) - runs
    for grade_id in checks:
        if grade_id not in seen_checks:
            answers.notes.append(
                f"the check cell {grade_id} is missing from your notebook; grading ran the "
                "original check"
            )
    if dropped_names:
        answers.dropped = dropped_names
        answers.notes.append(
            "your notebook defines " + ", ".join(sorted(dropped_names)) + " outside the TODO "
            "cells; grading runs only the TODO cells of your notebook (every other cell is the "
            "instructor's), so these names do not exist there: keep all your code in the TODO "
            "cell that uses it"
        )
    return answers


def cells_to_run(
    source: Source, answers: dict[str, str] | None, hidden_tests: bool = False
) -> list[dict]:
    """The code cells to execute: the released notebook with the answers swapped in.

    Args:
        source: The instructor notebook.
        answers: The student's solution cells by grade_id; None = the instructor's solutions
            (the reference run).
        hidden_tests: Run the grade cells as the instructor wrote them, hidden tests included
            (stock nbgrader's way); by default they run as released, without them.
    """
    cells = []
    for released, original in zip(source.released.cells, source.notebook.cells):
        if released.cell_type != "code":
            continue
        meta = _meta(original)
        text = original.source if hidden_tests and meta.get("grade") else released.source
        if meta.get("solution"):
            grade_id = meta.get("grade_id")
            text = original.source if answers is None else answers.get(grade_id, released.source)
        cells.append(
            {"source": text, "grade_id": meta.get("grade_id") if meta.get("grade") else None}
        )
    return cells


def cut_after(source: Source, grade_id: str, keep_probes: bool = True) -> Source:
    """The notebook up to and including the cell ``grade_id``: later cells cannot change the
    scores of these cells, so a run that only needs them can skip the rest. Its grade cells
    and (with ``keep_probes``) its probes are those of the kept cells: the probes keep their
    positions, so their values compare with a whole run's."""
    ids = [_meta(c).get("grade_id") for c in source.notebook.cells]
    end = ids.index(grade_id) + 1
    notebook, released = copy.deepcopy(source.notebook), copy.deepcopy(source.released)
    notebook.cells, released.cells = notebook.cells[:end], released.cells[:end]
    kept = set(ids[:end])
    return replace(
        source,
        notebook=notebook,
        released=released,
        grade_cells=[(g, p) for g, p in source.grade_cells if g in kept],
        probes={g: v for g, v in source.probes.items() if g in kept} if keep_probes else {},
    )


@dataclass
class NotebookRun:
    """What happened when one notebook ran."""

    status: Status = Status.CRASHED  # ok, timeout or crashed
    reason: str = ""
    errors: dict[int, list[str]] = field(default_factory=dict)
    #: cells stopped by a limit: index -> "timeout" or "memory"
    limit_hits: dict[int, str] = field(default_factory=dict)
    executed: set[int] = field(default_factory=set)
    probe_values: list = field(default_factory=list)


class _Runner:
    """Talks to one sandboxed runner process (lines in, events out)."""

    def __init__(self, sandbox: Sandbox):
        self.sandbox = sandbox
        self.events: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self.sandbox.process.stdout:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if isinstance(event, dict):
                    self.events.put(event)
        except (OSError, ValueError):
            pass
        self.events.put(None)

    def send(self, command: dict) -> bool:
        try:
            self.sandbox.process.stdin.write(json.dumps(command) + "\n")
            self.sandbox.process.stdin.flush()
            return True
        except (OSError, ValueError):
            return False

    def next(self, timeout: float) -> dict | None:
        try:
            return self.events.get(timeout=max(0.1, timeout))
        except queue.Empty:
            return {"event": "stalled"}


def _run_one(runner: _Runner, source: Source, cells: list[dict], limits: dict) -> NotebookRun:
    run = NotebookRun()
    if not runner.send({"op": "run", "notebook": source.name, "cells": cells, **limits}):
        run.reason = runner.sandbox.killed_because or "the sandbox stopped"
        return run
    probes = [p for grade_id, _ in source.grade_cells for p in source.probes.get(grade_id, [])]
    wait = limits["timeout_notebook"] + 30
    while True:
        event = runner.next(wait)
        if event is None or event.get("event") == "stalled":
            run.status = Status.CRASHED
            run.reason = runner.sandbox.killed_because or "the kernel stopped answering"
            if "longer than" in run.reason:
                run.status = Status.TIMEOUT
            return run
        kind = event.get("event")
        index = event.get("index")
        if kind == "cell_end" and isinstance(index, int) and 0 <= index < len(cells):
            run.executed.add(index)
            error = event.get("error")
            if isinstance(error, list) and len(error) == 2:
                run.errors[index] = [str(error[0])[:200], str(error[1])[:2000]]
                if event.get("timed_out"):
                    run.limit_hits[index] = "timeout"
                elif run.errors[index][0] == "MemoryError":
                    run.limit_hits[index] = "memory"
        elif kind == "cells_done":
            runner.send({"op": "probes", "probes": [{"code": p.code} for p in probes]})
        elif kind == "probe_end" and isinstance(index, int):
            run.probe_values.append((index, event.get("value")))
        elif kind == "notebook_done":
            reported = event.get("status")
            run.status = Status(reported) if reported in ("ok", "timeout") else Status.CRASHED
            run.reason = str(event.get("reason", ""))[:300]
            if run.status == Status.CRASHED and runner.sandbox.killed_because:
                run.reason = runner.sandbox.killed_because
            return run


def run_notebooks(
    jobs: list[tuple[Source, dict[str, str] | None]],
    job_dir: Path,
    template: Path,
    limits: Limits,
    timeout_cell: float,
    timeout_notebook: float,
    use_bwrap: bool | None = None,
    hidden_tests: bool = False,
) -> list[NotebookRun]:
    """Run notebooks one after the other in ONE sandbox (a notebook may come several times,
    with different answers), each in a fresh child with a fresh copy of the database. A sandbox
    that dies (killed by a limit, or by the submission) is replaced for the notebooks still to
    run: one notebook's crash does not cost the others.

    Args:
        jobs: ``(notebook, answers)`` pairs; answers by grade_id, None = the reference.
        hidden_tests: Keep the hidden tests in the grade cells (how stock nbgrader scores);
            ``workshop grade`` never does: its hidden checks are the value probes.

    Returns:
        One :class:`NotebookRun` per job, in order.
    """
    runs: list[NotebookRun] = []
    per_notebook = {"timeout_cell": timeout_cell, "timeout_notebook": timeout_notebook}
    todo = list(jobs)
    while todo:
        with Sandbox(job_dir, template, limits, use_bwrap) as sandbox:
            runner = _Runner(sandbox)
            ready = runner.next(120)
            if not ready or ready.get("event") != "ready":
                runs += [NotebookRun(reason="the grading runner did not start") for _ in todo]
                return runs
            while todo:
                source, answers = todo.pop(0)
                cells = cells_to_run(source, answers, hidden_tests)
                runs.append(_run_one(runner, source, cells, per_notebook))
                if sandbox.process.poll() is not None or sandbox.killed_because:
                    break
    return runs


def run_submission(
    sources: list[Source],
    answers: dict[str, dict[str, str] | None],
    job_dir: Path,
    template: Path,
    limits: Limits,
    timeout_cell: float,
    timeout_notebook: float,
    use_bwrap: bool | None = None,
) -> dict[str, NotebookRun]:
    """Run a submission's notebooks in one sandbox; notebooks it lacks are not run.

    Args:
        answers: Per notebook name, the solution cells by grade_id (None = the reference).
    """
    jobs = [(source, answers[source.name]) for source in sources if source.name in answers]
    runs = run_notebooks(jobs, job_dir, template, limits, timeout_cell, timeout_notebook, use_bwrap)
    return {source.name: run for (source, _), run in zip(jobs, runs)}


def score_notebook(
    student: str,
    source: Source,
    run: NotebookRun | None,
    reference: list,
    dropped: set[str] | frozenset = frozenset(),
) -> list[GradeRow]:
    """Score each grade cell: its visible checks ran clean AND its probes equal the reference.

    The message lists EVERY failing check of the cell (the visible check's error, then each
    value check that differed, with the instructor's description of its input and of what was
    expected), one per line.

    Args:
        dropped: Names the student defined only in cells grading does not run; a NameError
            for one of them says so.
    """
    if run is None:
        return [
            GradeRow(student, source.name, gid, 0.0, pts, Status.MISSING, "notebook not submitted")
            for gid, pts in source.grade_cells
        ]
    cells = cells_to_run(source, {})
    position = {c["grade_id"]: i for i, c in enumerate(cells) if c["grade_id"]}
    values = dict(run.probe_values)
    expected = dict(reference)
    rows, probe_index, previous = [], 0, -1
    for grade_id, points in source.grade_cells:
        index = position[grade_id]
        probes = source.probes.get(grade_id, [])
        first_probe = probe_index
        probe_index += len(probes)
        status, message = _verdict(run, index, previous)
        failures = [_explain_name_error(message, dropped)] if status != Status.OK else []
        if status in (Status.OK, Status.FAILED):
            for offset, probe in enumerate(probes):
                value = values.get(first_probe + offset, _MISSING)
                if value is _MISSING:
                    if status == Status.OK:
                        status = Status.stopped(run.status)
                    reason = run.reason or "the run stopped"
                    failures.append(f"value checks did not finish: {reason}")
                    break
                if not same(value, expected.get(first_probe + offset)):
                    status = Status.FAILED if status == Status.OK else status
                    failures.append(f"value check '{probe.name}': {probe.message}")
        earned = points if status == Status.OK else 0.0
        message = "\n".join(f"- {f}" for f in failures) if len(failures) > 1 else "".join(failures)
        rows.append(GradeRow(student, source.name, grade_id, earned, points, status, message))
        previous = index
    return rows


_MISSING = object()
_NAME_ERROR = re.compile(r"NameError: name '(\w+)' is not defined")


def _explain_name_error(message: str, dropped) -> str:
    found = _NAME_ERROR.search(message or "")
    if found and found.group(1) in dropped:
        return (
            f"{message} ({found.group(1)} is defined in a cell of your notebook that grading "
            "does not run: keep all your code in the TODO cell)"
        )
    return message


def _verdict(run: NotebookRun, index: int, previous: int) -> tuple[Status, str]:
    """Status and message of the grade cell at ``index`` from the run alone (before probes)."""
    if index not in run.executed and index not in run.errors:
        return Status.stopped(run.status), run.reason or "the run stopped before this cell"
    if index not in run.errors:
        return Status.OK, ""
    ename, evalue = run.errors[index]
    hits = [(i, why) for i, why in sorted(run.limit_hits.items()) if i <= index]
    if hits:
        cell, why = hits[-1]
        if why == "timeout":
            return Status.TIMEOUT, (
                f"code cell {cell + 1} exceeded the time limit and was interrupted; "
                f"then this check failed: {ename}: {evalue}"
            )
        return Status.CRASHED, (
            f"code cell {cell + 1} ran out of memory; then this check failed: {ename}: {evalue}"
        )
    message = f"visible check: {ename}: {evalue}"
    earlier = [i for i in run.errors if previous < i < index]
    if earlier:
        first = run.errors[earlier[0]]
        message += f" (an earlier cell, code cell {earlier[0] + 1}, raised {first[0]}: {first[1]})"
    return Status.FAILED, message


# --- the batch --------------------------------------------------------------------------------
def _digest(sources: list[Source]) -> str:
    digest = hashlib.sha256()
    for source in sources:
        digest.update(nbformat.writes(source.notebook).encode())
        digest.update(repr(source.probes).encode())
    import agent_harness

    for path in sorted(Path(agent_harness.__file__).parent.rglob("*.py")):
        digest.update(path.read_bytes())  # the library the reference ran against
    return digest.hexdigest()[:16]


def _reference(sources, out: Path, template: Path, limits: Limits, settings: dict) -> dict:
    """The probe values of the instructor's solutions (cached in RESULTS/.reference.json)."""
    cache = out / ".reference.json"
    key = _digest(sources)
    if cache.exists():
        try:
            saved = json.loads(cache.read_text(encoding="utf-8"))
            if saved.get("key") == key:
                return {
                    name: [tuple(v) for v in values] for name, values in saved["values"].items()
                }
        except (ValueError, KeyError):
            pass
    with tempfile.TemporaryDirectory(prefix="reference-", dir=out) as job:
        runs = run_submission(
            sources, {s.name: None for s in sources}, Path(job), template, limits, **settings
        )
    problems = []
    for source in sources:
        run = runs[source.name]
        rows = score_notebook("reference", source, run, run.probe_values)
        problems += [
            f"{r.notebook}/{r.grade_id}: {r.status} {r.message}"
            for r in rows
            if r.status != Status.OK
        ]
        missing = sum(len(source.probes.get(g, [])) for g, _ in source.grade_cells) - len(
            run.probe_values
        )
        if missing:
            problems.append(f"{source.name}: {missing} probe(s) gave no value")
    if problems:
        raise GradingError(
            "the instructor's solutions do not pass their own checks here, so nothing can be "
            "graded; fix the environment or the solutions first:\n  " + "\n  ".join(problems[:10])
        )
    values = {name: run.probe_values for name, run in runs.items()}
    cache.write_text(json.dumps({"key": key, "values": values}), encoding="utf-8")
    return values


def prepare_template(folder: Path) -> Path:
    """A prepared embedded database folder to copy for every run (built once)."""
    import agent_harness

    folder = Path(folder)
    harness = agent_harness.connect(backend="embedded", data_dir=folder)
    harness.close()
    return folder


@dataclass
class Batch:
    """The state of one ``workshop grade`` run, passed through :data:`STEPS` in order."""

    submissions: Path
    out: Path
    workers: int | None = None
    force: bool = False
    limits: Limits | None = None
    source_dir: Path | None = None
    settings: dict = field(default_factory=dict)
    progress: Callable[[int], object] | None = None
    on_total: Callable[[int], object] | None = None
    sources: list[Source] = field(default_factory=list)
    found: list[Submission] = field(default_factory=list)
    todo: list[Submission] = field(default_factory=list)
    ledger: dict = field(default_factory=dict)
    rows_by_student: dict[str, list[GradeRow]] = field(default_factory=dict)
    notes: dict[str, list[str]] = field(default_factory=dict)
    template: Path | None = None
    reference: dict = field(default_factory=dict)
    pool: ThreadPoolExecutor | None = None
    reference_future: Future | None = None

    def rows(self) -> list[GradeRow]:
        """Every row graded so far (this run and earlier ones), by student."""
        return [r for s in sorted(self.rows_by_student) for r in self.rows_by_student[s]]


def load_instructor_notebooks(batch: Batch) -> None:
    """1. The instructor's notebooks, their released versions and their probes."""
    batch.out.mkdir(parents=True, exist_ok=True)
    batch.sources = load_sources(batch.source_dir)


def collect_submissions(batch: Batch) -> None:
    """2. Every submission, matched to the workshop's notebooks (problems.txt: what was odd)."""
    names = [s.name for s in batch.sources]
    batch.found = collect(batch.submissions, names, batch.out / "unpacked")
    _write_problems(batch)


def skip_graded(batch: Batch) -> None:
    """3. Keep the rows of submissions graded before and unchanged; the rest is to do."""
    from grader.report import read_grades_csv

    path = batch.out / ".graded.json"
    batch.ledger = json.loads(path.read_text()) if path.exists() and not batch.force else {}
    previous = [] if batch.force else read_grades_csv(batch.out / "grades.csv")
    batch.todo = [s for s in batch.found if batch.ledger.get(s.student) != s.fingerprint()]
    if batch.on_total:
        batch.on_total(len(batch.todo))
    redo = {s.student for s in batch.todo}
    for row in previous:
        if row.student not in redo:
            batch.rows_by_student.setdefault(row.student, []).append(row)


def prepare_database(batch: Batch) -> None:
    """4. The prepared embedded database every run copies (built once per results folder)."""
    batch.template = batch.out / ".template"
    if not (batch.template / "harness.db").exists():
        shutil.rmtree(batch.template, ignore_errors=True)
        prepare_template(batch.template)
    batch.limits = batch.limits or Limits(
        deadline_s=batch.settings["timeout_notebook"] * len(batch.sources) + 60
    )


def reference_values(batch: Batch) -> None:
    """5. The probe values of the instructor's solutions (the batch stops if they fail).

    They are computed in the first of the batch's parallel sandboxes while the others already
    run submissions; a submission is scored once they are known.
    """
    workers = max(1, batch.workers or os.cpu_count() or 1)
    batch.pool = ThreadPoolExecutor(max_workers=workers)
    batch.reference_future = batch.pool.submit(
        _reference, batch.sources, batch.out, batch.template, batch.limits, batch.settings
    )


def grade_submissions(batch: Batch) -> None:
    """6. Run, score and report each submission, in parallel sandboxes."""
    lock = threading.Lock()
    with batch.pool as pool:
        futures = {pool.submit(_grade_one, batch, s): s for s in batch.todo}
        try:
            batch.reference = batch.reference_future.result()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        for future in as_completed(futures):
            submission = futures[future]
            try:
                rows, notes = future.result()
            except Exception as e:  # a grader bug must not stop the batch
                rows, notes = _crashed_rows(batch, submission, e), []
            with lock:
                _record(batch, submission, rows, notes)
            if batch.progress:
                batch.progress(1)


#: What ``workshop grade`` does, in order (like nbgrader's converter preprocessors).
STEPS = (
    load_instructor_notebooks,
    collect_submissions,
    skip_graded,
    prepare_database,
    reference_values,
    grade_submissions,
)


def grade_batch(
    submissions: Path,
    out: Path,
    workers: int | None = None,
    timeout_cell: float = 60.0,
    timeout_notebook: float = 300.0,
    force: bool = False,
    limits: Limits | None = None,
    source_dir: Path | None = None,
    use_bwrap: bool | None = None,
    progress: Callable[[int], object] | None = None,
    on_total: Callable[[int], object] | None = None,
) -> list[GradeRow]:
    """Grade every submission under ``submissions`` into ``out``; returns all rows.

    Writes ``out/grades.csv``, ``out/feedback/<student>.html``, ``out/problems.txt`` and
    remembers what it graded (``out/.graded.json``) so a second run grades only new or
    changed submissions. The work is :data:`STEPS`, in order.
    """
    settings = {
        "timeout_cell": timeout_cell,
        "timeout_notebook": timeout_notebook,
        "use_bwrap": use_bwrap,
    }
    batch = Batch(
        Path(submissions),
        Path(out).resolve(),
        workers,
        force,
        limits,
        source_dir,
        settings,
        progress,
        on_total,
    )
    for step in STEPS:
        step(batch)
        if step is skip_graded and not batch.todo:
            break
    return batch.rows()


def _grade_one(batch: Batch, submission: Submission) -> tuple[list[GradeRow], list[str]]:
    sources = {s.name: s for s in batch.sources}
    answers = {
        name: read_answers(path, sources.get(name)) for name, path in submission.notebooks.items()
    }
    job = Path(tempfile.mkdtemp(prefix=f"job-{submission.student}-", dir=batch.out))
    try:
        runs = run_submission(
            batch.sources,
            {name: a.cells for name, a in answers.items()},
            job,
            batch.template,
            batch.limits,
            **batch.settings,
        )
    finally:
        shutil.rmtree(job, ignore_errors=True)
    reference = batch.reference_future.result()  # computed alongside (reference_values)
    rows, notes = [], []
    for source in batch.sources:
        found = answers.get(source.name, Answers())
        rows += score_notebook(
            submission.student,
            source,
            runs.get(source.name),
            reference[source.name],
            found.dropped,
        )
        notes += [f"{source.name}: {note}" for note in found.notes]
    return rows, notes


def _crashed_rows(batch: Batch, submission: Submission, error: Exception) -> list[GradeRow]:
    return [
        GradeRow(
            submission.student, src.name, gid, 0.0, pts, Status.CRASHED, f"grader error: {error}"
        )
        for src in batch.sources
        for gid, pts in src.grade_cells
    ]


def _record(batch: Batch, submission: Submission, rows: list[GradeRow], notes: list[str]):
    """Write what one submission earned: grades.csv, its feedback page, problems, the ledger."""
    from grader.report import feedback_filename, write_feedback, write_grades_csv

    hidden = set().union(*(s.hidden_lines for s in batch.sources))
    batch.rows_by_student[submission.student] = rows
    batch.notes[submission.student] = notes
    write_grades_csv(batch.rows(), batch.out / "grades.csv")
    write_feedback(
        rows,
        batch.out / "feedback" / feedback_filename(submission.student),
        title=f"Workshop feedback: {submission.student}",
        hidden_lines=hidden,
        notes=notes,
    )
    _write_problems(batch)
    batch.ledger[submission.student] = submission.fingerprint()
    path = batch.out / ".graded.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(batch.ledger, indent=1), encoding="utf-8")
    os.replace(tmp, path)


def _write_problems(batch: Batch) -> None:
    """What collecting and reading found odd, one line per problem: unmatched files, bad zips,
    edited or deleted check cells, code outside the TODO cells."""
    lines = [f"{s.student}: {problem}" for s in batch.found for problem in s.problems]
    lines += [f"{name}: {note}" for name in sorted(batch.notes) for note in batch.notes[name]]
    path = batch.out / "problems.txt"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
