"""``workshop kit``: build a room kit, verify a copy, load its Oracle image."""

from __future__ import annotations

import time
from pathlib import Path

import click

from agent_harness.kit.manifest import PLATFORMS, PYTHONS

__all__ = ["kit"]

SUPPORTED = [p.key for p in PLATFORMS if not p.unsupported]


def _mb(size: int) -> str:
    return f"{size / 1e6:,.0f} MB"


@click.group()
def kit() -> None:
    """The offline room kit: one folder that installs the workshop with no network."""


@kit.command("build")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--platform",
    "platforms",
    multiple=True,
    type=click.Choice([p.key for p in PLATFORMS]),
    help=f"A platform to serve (repeatable; default: {', '.join(SUPPORTED)}).",
)
@click.option(
    "--python",
    "pythons",
    multiple=True,
    type=click.Choice(PYTHONS),
    help="A Python release to serve (repeatable; default: 3.10 to 3.13).",
)
@click.option(
    "--find-links",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A folder of distribution files (an older kit's wheels/, a cache): a file there with "
    "the sha256 of the one chosen is copied instead of downloaded (repeatable).",
)
@click.option(
    "--index-url",
    default="https://pypi.org/simple",
    show_default=True,
    help="The package index (its JSON simple API, PEP 691), read once per package.",
)
@click.option("--no-index", is_flag=True, help="The best files of the --find-links folders alone.")
@click.option(
    "--plan", "plan_only", is_flag=True, help="Print each platform's size; write nothing."
)
@click.option(
    "--oracle",
    is_flag=True,
    help="Add the Oracle Free image of docker-compose.yml (docker save; needs Docker).",
)
@click.option(
    "--instructor",
    is_flag=True,
    help="Keep solutions/ (notebooks, probes, answers), tests/ and bench/ in the project's source "
    "(left out "
    "by default: a kit for attendees must not carry the answers).",
)
def kit_build(
    out: Path,
    platforms: tuple[str, ...],
    pythons: tuple[str, ...],
    find_links: tuple[Path, ...],
    index_url: str,
    no_index: bool,
    plan_only: bool,
    oracle: bool,
    instructor: bool,
) -> None:
    """Write a kit into OUT: every file requirements.lock pins for each platform and Python,
    each checked against the lock's hash; uv's wheel; the project; the notebooks; a manifest."""
    from agent_harness.kit.build import KitBuildError, build_kit, plan_sizes

    platforms = list(platforms or SUPPORTED)
    pythons = list(pythons or PYTHONS)
    index = None if no_index else index_url
    try:
        if plan_only:
            for key, (files, size) in plan_sizes(
                platforms, pythons, list(find_links), index
            ).items():
                click.echo(
                    f"{key:<14} {files:>4} files  {_mb(size):>9}  (Python {', '.join(pythons)})"
                )
            return
        result = build_kit(
            out, platforms, pythons, list(find_links), index, oracle, click.echo, instructor
        )
    except KitBuildError as e:
        raise click.ClickException(str(e)) from e
    manifest = result.manifest
    for key, target in manifest["targets"].items():
        click.echo(f"{key:<14} {_mb(target['size']):>9}  (Python {', '.join(pythons)})")
    if manifest.get("oracle"):
        click.echo(f"{'oracle image':<14} {_mb(manifest['oracle']['size']):>9}")
    contents = manifest["project"]["contents"]
    click.echo(
        f"kit {out} (for {contents}s): {len(manifest['files'])} files, {_mb(manifest['size'])} in "
        f"{result.seconds:.0f} s ({_mb(result.downloaded)} downloaded, {_mb(result.copied)} "
        "copied from local folders)"
    )


@kit.command("verify")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--platform",
    "platforms",
    multiple=True,
    type=click.Choice([p.key for p in PLATFORMS]),
    help="Check only this platform's files (and the common ones).",
)
def kit_verify(path: Path, platforms: tuple[str, ...]) -> None:
    """Check a copied kit: every file's size and sha256, the manifest against its lock."""
    from agent_harness.kit.verify import verify_kit

    started = time.monotonic()
    result = verify_kit(path, list(platforms) or None)
    for problem in result.problems[:20]:
        click.echo(str(problem), err=True)
    if len(result.problems) > 20:
        click.echo(f"... and {len(result.problems) - 20} more", err=True)
    if result.problems:
        raise click.ClickException(f"{path}: {len(result.problems)} problem(s), see above")
    click.echo(
        f"ok: {result.files} files, {_mb(result.size)}, sha256 checked in "
        f"{time.monotonic() - started:.1f} s"
    )


@kit.command("load-oracle")
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path))
def kit_load_oracle(path: Path) -> None:
    """Load the kit's Oracle Free image into Docker (then `docker compose up` needs no pull)."""
    from agent_harness.backends.oracle.kit_image import KitImageError, load_image

    try:
        load_image(path, click.echo)
    except KitImageError as e:
        raise click.ClickException(str(e)) from e
