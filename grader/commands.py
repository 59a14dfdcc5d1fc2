"""The grader's commands on the ``workshop`` CLI: ``grade`` (instructors), ``check``
(attendees: the visible half of grading), ``export`` (grades to an LMS) and ``release`` (the
student notebooks from solutions/).

The CLI finds them through the ``workshop.commands`` entry points of pyproject.toml (as llm
finds its plugins), so agent_harness never imports the grader."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

__all__ = ["grade", "check", "export", "release", "COMMANDS"]


@click.command()
@click.argument("submissions", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Results folder: grades.csv, feedback/<student>.html (created if needed).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=None,
    help="Parallel sandboxes (default: two per CPU).",
)
@click.option(
    "--timeout-cell",
    type=click.FloatRange(1, 3600),
    default=60.0,
    show_default=True,
    help="Seconds per cell.",
)
@click.option(
    "--timeout-notebook",
    type=click.FloatRange(5, 36000),
    default=300.0,
    show_default=True,
    help="Seconds per notebook.",
)
@click.option(
    "--memory-mb",
    type=click.IntRange(256, 65536),
    default=2048,
    show_default=True,
    help="Memory per submission.",
)
@click.option(
    "--force", is_flag=True, help="Regrade everything, not only new or changed submissions."
)
@click.option(
    "--require-sandbox", is_flag=True, help="Refuse to grade without the bubblewrap sandbox."
)
@click.option(
    "--gradebook",
    default=None,
    help="Also write scores into this nbgrader gradebook (e.g. sqlite:///gradebook.db).",
)
@click.option(
    "--assignment", default="workshop", show_default=True, help="The gradebook's assignment name."
)
@click.option(
    "--source",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Instructor notebooks (default: solutions/).",
)
def grade(
    submissions: Path,
    out: Path,
    workers: int | None,
    timeout_cell: float,
    timeout_notebook: float,
    memory_mb: int,
    force: bool,
    require_sandbox: bool,
    gradebook: str | None,
    assignment: str,
    source: Path | None,
) -> None:
    """Grade SUBMISSIONS, one sandbox per student.

    SUBMISSIONS: nbgrader's submitted/, student folders or <student>.zip files. Each submission
    runs in its own sandbox with a fresh database; checks of values happen in this process.
    Re-running grades only new or changed submissions.
    """
    from tqdm import tqdm

    from grader.grade import GradingError, grade_batch, load_sources
    from grader.report import summary_table, write_gradebook
    from grader.sandbox import Limits, bwrap_available, isolation

    if os.name != "posix":
        raise click.ClickException(
            "workshop grade runs on Linux or macOS (it forks a sandboxed process per "
            "submission); on Windows run it inside WSL."
        )
    if require_sandbox and not bwrap_available():
        raise click.ClickException(
            "--require-sandbox: bubblewrap is not available here (Linux: apt-get install "
            "bubblewrap). Without it a submission could read the grader's files."
        )
    click.echo(f"isolation: {isolation()}")
    bar = tqdm(total=0, desc="grading", unit="submission", file=sys.stderr, dynamic_ncols=True)
    limits = Limits.for_grading(memory_mb, timeout_notebook)
    try:
        rows = grade_batch(
            submissions,
            out,
            workers=workers,
            timeout_cell=timeout_cell,
            timeout_notebook=timeout_notebook,
            force=force,
            limits=limits,
            source_dir=source,
            progress=bar.update,
            on_total=lambda n: (setattr(bar, "total", n), bar.refresh()),
        )
    except (GradingError, FileNotFoundError) as e:
        raise click.ClickException(str(e)) from e
    finally:
        bar.close()
    click.echo(summary_table(rows))
    if gradebook:
        # nbgrader creates or upgrades a gradebook with the `alembic` script of this environment.
        bin_dir = os.path.dirname(sys.executable)
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
        _check_gradebook(gradebook, assignment)
        names = [s.name for s in load_sources(source)]
        warnings = write_gradebook(rows, gradebook, {name: assignment for name in names})
        for warning in warnings:
            click.echo(f"gradebook: {warning}", err=True)
        click.echo(f"gradebook: scores written to {gradebook}")
    problems = (out / "problems.txt").read_text(encoding="utf-8").splitlines()
    if problems:
        click.echo(f"problems: {len(problems)} while collecting, see {out / 'problems.txt'}")
    click.echo(f"grades:   {out / 'grades.csv'}")
    click.echo(f"feedback: {out / 'feedback'}/<student>.html")


def _check_gradebook(gradebook: str, assignment: str) -> None:
    """Stop with what to do when the gradebook does not know the assignment."""
    from nbgrader.api import Gradebook, MissingEntry

    from grader.report import _db_url

    with Gradebook(_db_url(gradebook)) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            raise click.ClickException(
                f"the gradebook {gradebook} has no assignment {assignment!r}: create it in the "
                f"course folder first (`nbgrader generate_assignment {assignment}`, see README), "
                "or pass --assignment NAME. grades.csv and the feedback are written already."
            ) from None


@click.command()
@click.argument("notebook", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--timeout-cell",
    type=click.FloatRange(1, 3600),
    default=60.0,
    show_default=True,
    help="Seconds per cell (as workshop grade).",
)
@click.option(
    "--timeout-notebook",
    type=click.FloatRange(5, 36000),
    default=300.0,
    show_default=True,
    help="Seconds for the notebook (as workshop grade).",
)
@click.option(
    "--source",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Instructor notebooks (default: solutions/ when there; else the released notebook's "
    "own check cells, as in a student distribution).",
)
def check(notebook: Path, timeout_cell: float, timeout_notebook: float, source: Path | None):
    """Visible checks of NOTEBOOK, run as grading.

    The same sandbox, assembly, limits and messages as workshop grade. Prints each graded part
    with its points and whether its visible checks pass, then that hidden checks run at
    grading. Where the instructor's notebooks are not (a student distribution), the check cells
    of NOTEBOOK itself run. Checks the saved file: save the notebook first. Exits with 1 when a
    visible check fails. In a notebook: %load_ext grader.magics, then %workshop_check.
    """
    from grader.check import check_notebook, format_report
    from grader.sources import GradingError

    if os.name != "posix":
        raise click.ClickException("workshop check runs on Linux or macOS (WSL on Windows).")
    click.echo(
        f"checking {notebook.name} as grading runs it (the first check prepares the grader's "
        "database, up to a minute; later ones take seconds)...",
        err=True,
    )
    try:
        report = check_notebook(
            notebook, source, timeout_cell=timeout_cell, timeout_notebook=timeout_notebook
        )
    except GradingError as e:
        raise click.ClickException(str(e)) from e
    click.echo(format_report(report))
    raise SystemExit(0 if report.passed else 1)


@click.command()
@click.argument("grades_dir", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["canvas", "gradescope", "csv"]),
    required=True,
    help="canvas: gradebook import CSV; gradescope: results.json; csv: one row per student.",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path),
    help="File to write (gradescope with several students: a folder, one STUDENT.json each).",
)
@click.option(
    "--roster",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Class list to match by student id: a Canvas gradebook export or a CSV with an id column.",
)
@click.option(
    "--title",
    default="Workshop notebooks",
    show_default=True,
    help="Canvas assignment title (with --per-notebook: the prefix of each column).",
)
@click.option("--per-notebook", is_flag=True, help="Canvas: one column per notebook.")
@click.option(
    "--visibility",
    type=click.Choice(["visible", "after_due_date", "after_published", "hidden"]),
    default="visible",
    show_default=True,
    help="Gradescope: when students see the tests.",
)
@click.option("--student", default=None, help="Gradescope: export only this student.")
def export(
    grades_dir: Path,
    fmt: str,
    out: Path,
    roster: Path | None,
    title: str,
    per_notebook: bool,
    visibility: str,
    student: str | None,
) -> None:
    """Export grades to Canvas, Gradescope or CSV.

    GRADES_DIR is the --out folder of workshop grade (or its grades.csv). Students are matched
    to --roster by student id (the submission's folder or zip name against the roster's SIS
    Login ID, SIS User ID, ID or id column); who did not match is listed. Canvas: import the
    file in the Gradebook (Actions > Import).
    """
    from grader import export as exports
    from grader.report import read_grades_csv
    from grader.roster import match_roster, read_roster

    path = grades_dir / "grades.csv" if grades_dir.is_dir() else grades_dir
    if not path.exists():
        raise click.ClickException(f"no grades.csv in {grades_dir}: run workshop grade first")
    grades = exports.student_grades(read_grades_csv(path))
    if student is not None:
        grades = {k: v for k, v in grades.items() if k == student}
        if not grades:
            raise click.ClickException(f"no student {student!r} in {path}")
    try:
        members = read_roster(roster) if roster else None
    except ValueError as e:
        raise click.ClickException(str(e)) from e
    matched = match_roster(list(grades), members) if members else None
    for line in matched.report(len(grades)) if matched else []:
        click.echo(line)
    try:
        written = _write_export(
            exports, fmt, grades, out, title, per_notebook, visibility, members, matched
        )
    except ValueError as e:
        raise click.ClickException(str(e)) from e
    click.echo(f"wrote {written} ({len(grades)} student(s), {fmt})")


def _write_export(exports, fmt, grades, out, title, per_notebook, visibility, members, matched):
    if fmt == "canvas":
        text = exports.canvas_csv(grades, title, per_notebook, members, matched)
        problems = exports.canvas_problems(text)
        if problems:
            raise ValueError("the Canvas file would not import: " + "; ".join(problems))
        return exports.write_export(text, out)
    if fmt == "csv":
        return exports.write_export(exports.plain_csv(grades, matched), out)
    if len(grades) == 1 and out.suffix == ".json":
        (grade,) = grades.values()
        return exports.write_export(exports.gradescope_results(grade, visibility), out)
    if out.suffix == ".json":
        raise ValueError(
            f"{len(grades)} students: give --student NAME for one results.json, or a folder "
            "as --out for one STUDENT.json each"
        )
    for name, grade in grades.items():
        exports.write_export(exports.gradescope_results(grade, visibility), out / f"{name}.json")
    return out


@click.command()
@click.option("--check", is_flag=True, help="Only report what is out of date; write nothing.")
@click.option(
    "--force",
    is_flag=True,
    help="Also replace notebooks that hold an attendee's work, after copying each into "
    "notebooks/backups/.",
)
def release(check: bool, force: bool) -> None:
    """Instructors: regenerate the student notebooks in notebooks/ from solutions/.

    Writes notebooks/NN_name.ipynb for each solutions/NN_name/NN_name.ipynb missing or out of
    date (solutions cleared, hidden tests removed, no outputs), and removes numbered notebooks
    that have no source. A notebook already up to date is left alone, whatever an attendee did
    in it; one that is out of date and holds an attendee's work (TODO cells filled in, cells
    added or edited) is never overwritten: release names it and stops (exit 1), or with
    --force copies it into notebooks/backups/ first. Out of date means the cells release
    owns differ; JupyterLab's metadata, outputs and the attendee's cells do not count.
    """
    from grader.release import ROOT, release_all, stale_notebooks

    if check:
        stale = stale_notebooks()
        for name in stale:
            click.echo(f"stale: notebooks/{name}")
        if stale:
            raise click.ClickException("notebooks/ is out of date: run `workshop release`")
        click.echo("notebooks/ is up to date")
        return
    report = release_all(force=force)
    for path in report.backups:
        click.echo(f"backed up {path.relative_to(ROOT)}")
    for path in report.written:
        click.echo(f"wrote {path.relative_to(ROOT)}")
    for path in report.removed:
        click.echo(f"removed {path.relative_to(ROOT)} (no source in solutions/)")
    if report.up_to_date:
        click.echo(f"{len(report.up_to_date)} notebook(s) already up to date (left as they are)")
    if report.refused:
        for name, why in report.refused.items():
            click.echo(f"kept notebooks/{name}: out of date, but {'; '.join(why)}", err=True)
        raise click.ClickException(
            f"{len(report.refused)} notebook(s) hold an attendee's work and were not replaced; "
            "save a copy, or run `workshop release --force` (it copies each into "
            "notebooks/backups/ first)"
        )


#: The commands this module adds to the ``workshop`` CLI (the ``workshop.commands`` entry points
#: of pyproject.toml name each).
COMMANDS = (grade, check, export, release)
