"""The ``workshop grade`` command (registered on the ``workshop`` CLI)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

__all__ = ["grade"]


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
    help="Parallel sandboxes (default: CPUs).",
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
    """Grade SUBMISSIONS (nbgrader submitted/, student folders or <student>.zip files).

    Each submission runs in its own sandbox with a fresh database; checks of values happen
    in this process. Re-running grades only new or changed submissions.
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
    limits = Limits(memory_mb=memory_mb, deadline_s=timeout_notebook * 8 + 60)
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
