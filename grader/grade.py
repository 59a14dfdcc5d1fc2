"""``workshop grade``: grade a batch of submissions, in parallel, one sandbox per submission.

The one grading path, as ordered named steps (:data:`STEPS`, like nbgrader's converters):

1. :mod:`grader.sources`: the instructor's notebooks, released versions and value checks;
2. :mod:`grader.collect`: the submissions, whatever their layout;
3. :mod:`grader.answers` and :mod:`grader.assembly`: for every student the notebook that runs
   is rebuilt from the instructor's source: the released version of every cell (hidden tests
   removed) with the submission's TODO cells swapped in by ``grade_id`` and the cells the
   attendee added run in their place. Deleted, reordered, retyped or edited check cells
   change nothing;
4. :mod:`grader.execute`: the runner executes the notebooks in the submission's sandbox
   (:mod:`grader.sandbox`), then evaluates the probes (:mod:`grader.value_checks`);
5. :mod:`grader.scoring`: the probes' plain values are compared with the reference values of
   the instructor's solution, in the grader's process;
6. :mod:`grader.report`: grades.csv, feedback pages, problems.txt.

``workshop check`` (:mod:`grader.check`) runs steps 1, 3, 4 and the visible half of 5 on one
notebook, with the same functions.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from grader.answers import Answers, read_answers
from grader.caches import harness_dir, prepare_bytecode, prepare_embeddings, shared_template
from grader.collect import Submission, collect
from grader.execute import NotebookRun, prepare_template, run_notebooks, run_submission
from grader.results import GradeRow, Status
from grader.sandbox import Limits
from grader.scoring import score_notebook, undone_notes
from grader.sources import GradingError, Source, cut_after, load_sources, meta

__all__ = [
    "STEPS",
    "Batch",
    "GradingError",
    "NotebookRun",
    "Source",
    "cut_after",
    "grade_batch",
    "load_sources",
    "meta",
    "prepare_template",
    "read_answers",
    "run_notebooks",
    "run_submission",
    "score_notebook",
]


def _digest(sources: list[Source]) -> str:
    digest = hashlib.sha256()
    for source in sources:
        digest.update(nbformat.writes(source.notebook).encode())
        digest.update(repr(source.probes).encode())
    for path in sorted(harness_dir().rglob("*.py")):
        digest.update(path.read_bytes())  # the library the reference ran against
    return digest.hexdigest()[:16]


def _reference(batch: Batch) -> dict:
    """The probe values of the instructor's solutions (cached in RESULTS/.reference.json)."""
    sources, out, template = batch.sources, batch.out, batch.template
    limits, settings = batch.limits, batch.settings
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
    batch.count_cpu(runs.values())
    problems = []
    for source in sources:
        run = runs[source.name]
        rows = score_notebook("reference", source, run, run.probe_values)
        problems += [
            f"{r.notebook}/{r.grade_id}: {r.status} {r.message}"
            for r in rows
            if r.status != Status.OK
        ]
        missing = source.probe_count() - len(run.probe_values)
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
    started: tuple[float, float] = (0.0, 0.0)  # wall clock, this process's CPU
    sandbox_cpu_s: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def count_cpu(self, runs) -> None:
        """Add the CPU seconds the sandboxes of these runs used."""
        with self._lock:
            self.sandbox_cpu_s += sum(run.cpu_s for run in runs if run is not None)

    def rows(self) -> list[GradeRow]:
        """Every row graded so far (this run and earlier ones), by student."""
        return [r for s in sorted(self.rows_by_student) for r in self.rows_by_student[s]]


def load_instructor_notebooks(batch: Batch) -> None:
    """1. The instructor's notebooks, their released versions and their probes (a grade cell
    without a value check, or a probe module that does not import, stops the batch here)."""
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


def prepare_caches(batch: Batch) -> None:
    """4. The prepared embedded database every run copies, the bytecode of what the sandboxed
    runner imports and the untouched notebooks' embeddings (built once per library version,
    see :mod:`grader.caches`)."""
    batch.template = shared_template()
    prepare_bytecode()
    prepare_embeddings(batch.sources, batch.template)
    batch.limits = batch.limits or Limits.for_grading(
        timeout_notebook=batch.settings["timeout_notebook"]
    )


def reference_values(batch: Batch) -> None:
    """5. The probe values of the instructor's solutions (the batch stops if they fail).

    They are computed in the first of the batch's parallel sandboxes while the others already
    run submissions; a submission is scored once they are known.
    """
    # One more sandbox than CPUs: notebooks also wait (tool time-outs, the offline model's
    # socket), and a third sandbox on two cores fills those gaps.
    workers = max(1, batch.workers or (os.cpu_count() or 1) + 1)
    batch.pool = ThreadPoolExecutor(max_workers=workers)
    batch.reference_future = batch.pool.submit(_reference, batch)


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


def write_statistics(batch: Batch) -> None:
    """7. How long it took and the CPU it used (RESULTS/.stats.json; bench/bench_grade.py)."""
    wall, cpu = batch.started
    stats = {
        "submissions": len(batch.todo),
        "wall_s": round(time.perf_counter() - wall, 3),
        "sandbox_cpu_s": round(batch.sandbox_cpu_s, 3),
        "grader_cpu_s": round(time.process_time() - cpu, 3),
    }
    (batch.out / ".stats.json").write_text(json.dumps(stats, indent=1), encoding="utf-8")


#: What ``workshop grade`` does, in order (like nbgrader's converter preprocessors).
STEPS = (
    load_instructor_notebooks,
    collect_submissions,
    skip_graded,
    prepare_caches,
    reference_values,
    grade_submissions,
    write_statistics,
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
    batch.started = (time.perf_counter(), time.process_time())
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
            batch.sources, dict(answers), job, batch.template, batch.limits, **batch.settings
        )
    finally:
        shutil.rmtree(job, ignore_errors=True)
    batch.count_cpu(runs.values())
    reference = batch.reference_future.result()  # computed alongside (reference_values)
    rows, notes = [], []
    for source in batch.sources:
        found = answers.get(source.name, Answers())
        run = runs.get(source.name)
        rows += score_notebook(
            submission.student, source, run, reference[source.name], found.dropped
        )
        notes += [f"{source.name}: {note}" for note in found.notes + undone_notes(run)]
        if run is not None and run.ignored_lines:
            notes.append(
                f"{source.name}: the notebook wrote {run.ignored_lines} line(s) into the "
                "grading runner's channel; they were ignored"
            )
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
    edited or deleted check cells, edited pre-built cells, undone changes of added cells."""
    lines = [f"{s.student}: {problem}" for s in batch.found for problem in s.problems]
    lines += [f"{name}: {note}" for name in sorted(batch.notes) for note in batch.notes[name]]
    path = batch.out / "problems.txt"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
