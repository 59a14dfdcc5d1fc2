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

Each step takes what the run knows so far (:class:`Grading`, fixed options
:class:`GradeOptions`) and returns what it adds. ``workshop check`` (:mod:`grader.check`)
finds its one notebook's source itself and runs :data:`CHECK_STEPS`, a subset of the same
steps (4 and 6: caches, then the run and the visible half of scoring: no reference values).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from grader.answers import Answers, read_answers
from grader.cache_paths import use_check_embeddings
from grader.caches import prepare_bytecode, prepare_embeddings, shared_template
from grader.collect import Submission, collect
from grader.execute import NotebookRun, prepare_template, run_notebooks, run_submission
from grader.files import atomic_write_text
from grader.reference import reference_values_of, sandbox_cpu
from grader.results import GradeRow, Status
from grader.sandbox import SANDBOXES_PER_CPU, Limits
from grader.scoring import CellResult, judge_cells, score_notebook, undone_notes
from grader.sources import GradingError, Source, cut_after, load_sources, meta

__all__ = [
    "CHECK_STEPS",
    "STEPS",
    "GradeOptions",
    "Graded",
    "Grading",
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


@dataclass(frozen=True)
class GradeOptions:
    """What one run is asked; fixed for the whole run.

    Attributes:
        timeout_cell: Seconds per cell.
        timeout_notebook: Seconds per notebook.
        use_bwrap: The bubblewrap sandbox (None: when available).
        limits: The sandbox's limits (None: :meth:`Limits.for_grading` with ``timeout_notebook``).
        workers: Parallel sandboxes (None: :data:`SANDBOXES_PER_CPU` per CPU).
        force: Regrade everything, not only new or changed submissions.
        source_dir: The instructor notebooks (None: solutions/).
        check: A self-check (``workshop check``): visible checks only, nothing written.
        progress, on_total: Called with 1 after each graded submission; with how many to grade.
    """

    timeout_cell: float = 60.0
    timeout_notebook: float = 300.0
    use_bwrap: bool | None = None
    limits: Limits | None = None
    workers: int | None = None
    force: bool = False
    source_dir: Path | None = None
    check: bool = False
    progress: Callable[[int], object] | None = None
    on_total: Callable[[int], object] | None = None

    def sandbox_limits(self) -> Limits:
        """The limits every sandbox of the run gets."""
        return self.limits or Limits.for_grading(timeout_notebook=self.timeout_notebook)


@dataclass(frozen=True)
class Graded:
    """What one submission's run gave.

    Attributes:
        submission: The submission.
        runs: Each notebook's run, by name (a notebook it lacks has none).
        rows: Its grades.csv rows (grading; [] for a check).
        cells: Each run notebook's grade cells, visible part judged (a check; {} for grading).
        notes: By notebook, how it was read and what grading undid, one sentence each.
    """

    submission: Submission
    runs: Mapping[str, NotebookRun]
    rows: tuple[GradeRow, ...] = ()
    cells: Mapping[str, list[CellResult]] = field(default_factory=dict)
    notes: Mapping[str, list[str]] = field(default_factory=dict)

    def problem_lines(self) -> list[str]:
        """Its lines of problems.txt, each notebook's in turn (without the student's name)."""
        lines = []
        for name, found in self.notes.items():
            lines += [f"{name}: {note}" for note in found]
            run = self.runs.get(name)
            if run is not None and run.ignored_lines:
                lines.append(
                    f"{name}: the notebook wrote {run.ignored_lines} line(s) into the "
                    "grading runner's channel; they were ignored"
                )
        return lines


@dataclass(frozen=True)
class Grading:
    """What one run knows, passed through :data:`STEPS`: each step returns a new one.

    ``submissions`` and ``out`` are None for a check (its one submission is given in ``todo``;
    it writes nothing). ``earlier``: the rows of unchanged submissions graded before, by
    student; ``ledger``: what each student's graded submission was (``.graded.json``);
    ``pool``: the parallel sandboxes' threads; ``reference``: the instructor's probe values
    and the CPU they took, being computed (None: visible checks only); ``graded``: what each
    submission gave, in the order they finished.
    """

    options: GradeOptions
    submissions: Path | None = None
    out: Path | None = None
    started: tuple[float, float] = (0.0, 0.0)
    sources: tuple[Source, ...] = ()
    found: tuple[Submission, ...] = ()
    todo: tuple[Submission, ...] = ()
    ledger: Mapping[str, str] = field(default_factory=dict)
    earlier: Mapping[str, tuple[GradeRow, ...]] = field(default_factory=dict)
    template: Path | None = None
    pool: ThreadPoolExecutor | None = None
    reference: Future | None = None
    graded: tuple[Graded, ...] = ()

    def rows(self) -> list[GradeRow]:
        """Every row graded so far (this run and earlier ones), by student."""
        return _rows({**self.earlier, **{g.submission.student: g.rows for g in self.graded}})


def _rows(by_student: Mapping[str, tuple[GradeRow, ...] | list[GradeRow]]) -> list[GradeRow]:
    return [r for s in sorted(by_student) for r in by_student[s]]


def load_instructor_notebooks(state: Grading) -> Grading:
    """1. The instructor's notebooks, their released versions and their probes (a grade cell
    without a value check, or a probe module that does not import, stops the batch here)."""
    state.out.mkdir(parents=True, exist_ok=True)
    return dataclasses.replace(state, sources=tuple(load_sources(state.options.source_dir)))


def collect_submissions(state: Grading) -> Grading:
    """2. Every submission, matched to the workshop's notebooks (problems.txt: what was odd)."""
    names = [s.name for s in state.sources]
    found = tuple(collect(state.submissions, names, state.out / "unpacked"))
    _write_problems(state.out, found, {})
    return dataclasses.replace(state, found=found)


def skip_graded(state: Grading) -> Grading:
    """3. Keep the rows of submissions graded before and unchanged; the rest is to do."""
    from grader.report import read_grades_csv

    force, path = state.options.force, state.out / ".graded.json"
    ledger = json.loads(path.read_text()) if path.exists() and not force else {}
    previous = [] if force else read_grades_csv(state.out / "grades.csv")
    todo = tuple(s for s in state.found if ledger.get(s.student) != s.fingerprint())
    if state.options.on_total:
        state.options.on_total(len(todo))
    redo, earlier = {s.student for s in todo}, {}
    for row in previous:
        if row.student not in redo:
            earlier.setdefault(row.student, []).append(row)
    earlier = {student: tuple(rows) for student, rows in earlier.items()}
    return dataclasses.replace(state, todo=todo, ledger=ledger, earlier=earlier)


def prepare_caches(state: Grading) -> Grading:
    """4. The prepared embedded database every run copies, the bytecode of what the sandboxed
    runner imports and the untouched notebooks' embeddings (built once per library version,
    see :mod:`grader.caches`); a check preloads what its last run of the notebook embedded."""
    template = state.template or shared_template()
    prepare_bytecode()
    if state.options.check:
        for source in state.sources:
            use_check_embeddings(source.name)
    else:
        prepare_embeddings(list(state.sources), template)
    return dataclasses.replace(state, template=template)


def reference_values(state: Grading) -> Grading:
    """5. The probe values of the instructor's solutions (the batch stops if they fail).

    They are computed in the first of the batch's parallel sandboxes while the others already
    run submissions; a submission is scored once they are known.
    """
    workers = max(1, state.options.workers or SANDBOXES_PER_CPU * (os.cpu_count() or 1))
    pool = ThreadPoolExecutor(max_workers=workers)
    return dataclasses.replace(state, pool=pool, reference=pool.submit(reference_values_of, state))


def grade_submissions(state: Grading) -> Grading:
    """6. Run, score and report each submission, in parallel sandboxes (a check: its one
    notebook, visible checks only, nothing written)."""
    if state.options.check:
        return dataclasses.replace(state, graded=tuple(_grade_one(state, s) for s in state.todo))
    lock, graded = threading.Lock(), []
    by_student = {**state.earlier}
    problems: dict[str, list[str]] = {}
    ledger = dict(state.ledger)
    with state.pool as pool:
        futures = {pool.submit(_grade_one, state, s, i): s for i, s in enumerate(state.todo)}
        try:
            state.reference.result()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        for future in as_completed(futures):
            submission = futures[future]
            try:
                done = future.result()
            except Exception as e:  # a grader bug must not stop the batch
                done = Graded(submission, {}, tuple(_crashed_rows(state, submission, e)))
            with lock:
                graded.append(done)
                by_student[submission.student] = done.rows
                problems[submission.student] = done.problem_lines()
                ledger[submission.student] = submission.fingerprint()
                _record(state, done, _rows(by_student), problems, ledger)
            if state.options.progress:
                state.options.progress(1)
    return dataclasses.replace(state, graded=tuple(graded), ledger=ledger)


def write_statistics(state: Grading) -> Grading:
    """7. How long it took and the CPU it used (RESULTS/.stats.json; bench/bench_grade.py)."""
    wall, cpu = state.started
    runs = [run for done in state.graded for run in done.runs.values()]
    used = state.reference.result()[1] + sandbox_cpu(runs)
    stats = {
        "submissions": len(state.todo),
        "wall_s": round(time.perf_counter() - wall, 3),
        "sandbox_cpu_s": round(used, 3),
        "grader_cpu_s": round(time.process_time() - cpu, 3),
    }
    (state.out / ".stats.json").write_text(json.dumps(stats, indent=1), encoding="utf-8")
    return state


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

#: What ``workshop check`` runs of :data:`STEPS`, once it has its one notebook's source.
CHECK_STEPS = (prepare_caches, grade_submissions)


def run_steps(state: Grading, steps=STEPS) -> Grading:
    """Run ``steps`` in order on ``state`` (a batch with nothing to grade stops after step 3)."""
    for step in steps:
        state = step(state)
        if step is skip_graded and not state.todo:
            break
    return state


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
    options = GradeOptions(
        timeout_cell=timeout_cell,
        timeout_notebook=timeout_notebook,
        use_bwrap=use_bwrap,
        limits=limits,
        workers=workers,
        force=force,
        source_dir=source_dir,
        progress=progress,
        on_total=on_total,
    )
    started = (time.perf_counter(), time.process_time())
    state = Grading(options, Path(submissions), Path(out).resolve(), started)
    return run_steps(state).rows()


def _grade_one(state: Grading, submission: Submission, index: int = 0) -> Graded:
    """Read, run and judge one submission's notebooks in one sandbox, the ``index``-th of the
    batch starting three notebooks further than the one before: the sandboxes do not all
    sleep in 06's cool-down at once (which left both cores idle for 6 s, three times)."""
    options, check = state.options, state.options.check
    sources = {s.name: s for s in state.sources}
    answers = {
        name: read_answers(path, sources.get(name)) for name, path in submission.notebooks.items()
    }
    sent = [source for source in state.sources if source.name in answers]
    sent = sent[(3 * index) % max(1, len(sent)) :] + sent[: (3 * index) % max(1, len(sent))]
    jobs = [(_cells_to_run(source, check), answers[source.name]) for source in sent]
    job = Path(tempfile.mkdtemp(prefix=f"job-{submission.student}-", dir=state.out))
    try:
        ran = run_notebooks(
            jobs,
            job,
            state.template,
            options.sandbox_limits(),
            options.timeout_cell,
            options.timeout_notebook,
            options.use_bwrap,
            collect_embeddings=check,
        )
    finally:
        shutil.rmtree(job, ignore_errors=True)
    runs = {source.name: run for source, run in zip(sent, ran)}
    reference = None if state.reference is None else state.reference.result()[0]
    rows, cells, notes = [], {}, {}
    for source in state.sources:
        found = answers.get(source.name, Answers())
        run = runs.get(source.name)
        if reference is None:
            if run is not None:
                cells[source.name] = judge_cells(source, run, None, found.dropped)
        else:
            rows += score_notebook(
                submission.student, source, run, reference[source.name], found.dropped
            )
        notes[source.name] = found.notes + undone_notes(run)
    return Graded(submission, runs, tuple(rows), cells, notes)


def _cells_to_run(source: Source, check: bool) -> Source:
    """A check runs the cells up to the last check cell (those after it cannot change a
    verdict); grading runs them all (its value checks may read the last cells' state)."""
    if check and source.grade_cells:
        return cut_after(source, source.grade_cells[-1][0], keep_probes=False)
    return source


def _crashed_rows(state: Grading, submission: Submission, error: Exception) -> list[GradeRow]:
    return [
        GradeRow(
            submission.student, src.name, gid, 0.0, pts, Status.CRASHED, f"grader error: {error}"
        )
        for src in state.sources
        for gid, pts in src.grade_cells
    ]


def _record(state: Grading, done: Graded, rows: list[GradeRow], problems, ledger) -> None:
    """Write what one submission earned: grades.csv, its feedback page, problems, the ledger."""
    from grader.report import feedback_filename, write_feedback, write_grades_csv

    student = done.submission.student
    hidden = set().union(*(s.hidden_lines for s in state.sources))
    write_grades_csv(rows, state.out / "grades.csv")
    write_feedback(
        list(done.rows),
        state.out / "feedback" / feedback_filename(student),
        title=f"Workshop feedback: {student}",
        hidden_lines=hidden,
        notes=problems[student],
    )
    _write_problems(state.out, state.found, problems)
    atomic_write_text(state.out / ".graded.json", json.dumps(ledger, indent=1))


def _write_problems(out: Path, found, notes: Mapping[str, list[str]]) -> None:
    """What collecting and reading found odd, one line per problem: unmatched files, bad zips,
    edited or deleted check cells, edited pre-built cells, undone changes of added cells."""
    lines = [f"{s.student}: {problem}" for s in found for problem in s.problems]
    lines += [f"{name}: {note}" for name in sorted(notes) for note in notes[name]]
    path = out / "problems.txt"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
