"""The ``workshop`` command: setup, lab, chat, doctor, call, search, ooda, mcp, rescan, skills,
kit, and the commands of the ``workshop.commands`` entry points (the grader's release, grade,
check and export: grader/commands.py)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time

import click

from agent_harness.foundation.config import BACKENDS, PROJECT_ROOT

__all__ = ["main", "cli"]


def _connect(prepare: bool = False, **kwargs):
    from agent_harness.harness import connect

    try:
        return connect(prepare=prepare, **kwargs)
    except Exception as e:  # show the actionable message, not a traceback
        raise click.ClickException(str(e)) from e


def _identity(text: str | None):
    """``--identity`` as an Identity (None: the workshop owner); a bad one is a usage error."""
    if not text:
        return None
    from agent_harness.foundation.identity import Identity, IdentityError

    try:
        return Identity.parse(text)
    except IdentityError as e:
        raise click.BadParameter(str(e), param_hint="--identity") from None


_IDENTITY_HELP = (
    "Act for this identity: user[:role,role[:REGION,REGION]] (e.g. ana:analyst:ATLANTIC) or a"
    " JSON object with user, roles, regions. The database then shows only voyages of those"
    " regions and masks cargo_items.unit_value_cents without the finance role. Default: the"
    " workshop owner, who sees everything."
)


class _WholeSentences(click.Group):
    """A group whose command list shows each command's first sentence whole (wrapped), not cut
    at the terminal's width with "..." in the middle of a phrase (issue 22, item 15)."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=10_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=_WholeSentences, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="agent-harness-workshop")
def cli() -> None:
    """The agent-harness workshop: prepare the database, open the notebooks, check, explore."""


@cli.command()
@click.option(
    "--backend",
    type=click.Choice(BACKENDS),
    default=None,
    help="Backend to prepare (default: WORKSHOP_BACKEND or embedded).",
)
@click.option("--reload-data", is_flag=True, help="Reload the SUPPLYCHAIN demo data.")
def setup(backend: str | None, reload_data: bool) -> None:
    """Prepare the database: migrations, demo data, catalog scan, skills, tools (idempotent)."""
    from tqdm import tqdm

    harness = _connect(prepare=False, backend=backend)
    click.echo(harness.describe())
    with tqdm(
        total=6 if harness.backend.can_embed_in_database else 5,
        desc="setup",
        unit="step",
        file=sys.stderr,
        leave=False,
        disable=not sys.stderr.isatty(),
    ) as bar:

        def report(step) -> None:
            bar.update(1)
            tqdm.write(f"  {step.name:<17} {step.detail}  ({step.seconds}s)", file=sys.stdout)

        try:
            harness.prepare(reload_data=reload_data, report=report)
        except Exception as e:
            raise click.ClickException(f"setup stopped: {type(e).__name__}: {e}") from e
    click.echo(
        f"ready: {harness.memory.count()} memories, {harness.skills.count()} skills, "
        f"{len(harness.tools.names())} tools"
    )
    harness.close()


@cli.command()
@click.option("--port", default=8888, show_default=True, help="Port for JupyterLab.")
@click.option("--no-browser", is_flag=True, help="Do not open a browser.")
@click.option(
    "--instructor",
    is_flag=True,
    help="Keep nbgrader's instructor tools (menu, Create Assignment, Validate, formgrader) and "
    "prepare the course folder course/ for them.",
)
def lab(port: int, no_browser: bool, instructor: bool) -> None:
    """Start JupyterLab on the notebooks/ folder (without nbgrader's instructor tools).

    With --instructor: nbgrader's tools on, at the project's root, with a working course in
    course/ (nbgrader_config.py, source/ from solutions/, gradebook, release/, exchange/).

    JupyterLab takes this process over (on Windows it runs as a child that ends with this
    process), so stopping `workshop lab` stops JupyterLab and its kernels.
    """
    from agent_harness.interfaces.handover import hand_over
    from agent_harness.interfaces.lab import lab_command

    notebooks = PROJECT_ROOT / "notebooks"
    if not notebooks.is_dir():
        raise click.ClickException(f"no notebooks folder at {notebooks}")
    course = None
    if instructor:
        prepare_course = next(
            (p.load() for p in _entry_points(COURSE_GROUP) if p.name == "prepare_course"), None
        )
        if prepare_course is None:
            raise click.ClickException(
                "--instructor needs the grader (grader/, the [grader] extra), which is not "
                "installed here: run `python3 setup/bootstrap.py setup`"
            )
        try:
            course = prepare_course()
        except RuntimeError as e:
            raise click.ClickException(str(e)) from None
        click.echo(
            f"course folder {course.root.relative_to(PROJECT_ROOT)}/ (nbgrader's config, "
            "source, release, gradebook and exchange): Nbgrader > Formgrader shows the "
            "assignment 'workshop'"
        )
    command, env = lab_command(port, instructor=instructor, no_browser=no_browser, course=course)
    who = "instructor: nbgrader's tools on" if instructor else "attendee: nbgrader's tools off"
    click.echo(f"starting ({who}): " + " ".join(command))
    hand_over(command, env)


@cli.command()
@click.option(
    "--backend",
    type=click.Choice(BACKENDS),
    default=None,
    help="Backend to chat on (default: WORKSHOP_BACKEND or embedded).",
)
@click.option(
    "--agent",
    default=None,
    help="Chat as this agent (progressive disclosure: its skills unlock tools); "
    "default: no agent, tools retrieved for each question.",
)
@click.option("--port", default=8866, show_default=True, help="Port on 127.0.0.1.")
@click.option("--no-browser", is_flag=True, help="Do not open a browser.")
@click.option("--identity", "identity_text", default=None, help=_IDENTITY_HELP)
def chat(
    backend: str | None,
    agent: str | None,
    port: int,
    no_browser: bool,
    identity_text: str | None,
) -> None:
    """Chat with the agent in the glass box: a page served by Voilà on 127.0.0.1.

    Left, the conversation (threads kept in the database: switch, reopen); right, live while
    each turn runs: the memory hits, the skills, the tools offered and why, each model step
    and tool call (arguments, latency, outcome, breaker state, offload handle), the answer,
    and a context meter of the next request against the model's window. The live model when
    OPENAI_API_KEY is set (answers streamed), the offline replay model otherwise. With
    --identity the chat acts for that identity: the database filters and masks what every
    tool reads, and the trail starts with the identity.
    """
    from agent_harness.glass_box.page import LOOPBACK, chat_command, voila_missing
    from agent_harness.interfaces.handover import hand_over

    problem = voila_missing()
    if problem:
        raise click.ClickException(problem)
    identity = _identity(identity_text)
    harness = _connect(prepare=True, backend=backend)  # prepares the database on first use
    try:
        if agent and agent not in harness.agents.names():
            raise click.ClickException(
                f"no agent {agent!r}; the agents: {', '.join(harness.agents.names())}"
            )
        folder = harness.settings.data_dir / "chat"
        click.echo(harness.describe())
    finally:
        harness.close()
    if identity is not None:
        click.echo(f"acting for {identity.describe()}")
    command, env = chat_command(
        folder, port, backend=backend, agent=agent, identity=identity, no_browser=no_browser
    )
    click.echo(f"the glass box at http://{LOOPBACK}:{port}/ (Voilà); Ctrl+C stops")
    hand_over(command, env)


@cli.command()
@click.option("--llm/--no-llm", default=True, help="Also check the LLM endpoint.")
def doctor(llm: bool) -> None:
    """Check backend, model, indexes and LLM endpoint; print a fix for each failure."""
    from agent_harness.interfaces.doctor import run_checks

    failures = 0
    for check in run_checks(include_llm=llm):
        mark = "ok  " if check.ok else "FAIL"
        click.echo(f"{mark} {check.name}: {check.detail}")
        if not check.ok:
            failures += 1
            click.echo(f"     fix: {check.fix}")
    click.echo(f"{failures} problem(s) found" if failures else "all checks passed")
    raise SystemExit(1 if failures else 0)


@cli.command()
@click.argument("tool")
@click.argument("arguments", default="{}")
def call(tool: str, arguments: str) -> None:
    """Call TOOL with a JSON object of ARGUMENTS.

    Example: workshop call find_vessel '{"name": "ever"}'
    """
    harness = _connect(prepare=True)
    if tool not in harness.tools.names():
        raise click.ClickException(
            f"unknown tool {tool!r}; available: {', '.join(harness.tools.names())}"
        )
    output = harness.tools.call(tool, arguments)
    try:
        click.echo(json.dumps(json.loads(output), indent=2, ensure_ascii=False))
    except ValueError:
        click.echo(output)


@cli.command()
@click.argument("query")
@click.option(
    "--mode",
    type=click.Choice(["hybrid", "vector", "keyword"]),
    default="hybrid",
    show_default=True,
)
@click.option("-k", "--k", "k", default=5, show_default=True, help="How many results.")
@click.option("--kinds", default=None, help="Comma-separated kinds, e.g. table,column.")
def search(query: str, mode: str, k: int, kinds: str | None) -> None:
    """Search long-term memory for QUERY."""
    harness = _connect(prepare=True)
    try:
        hits = harness.memory.search(query, k=k, mode=mode, kinds=kinds)
    except ValueError as e:
        raise click.ClickException(str(e)) from e
    for hit in hits:
        ranks = f" r_vec={hit.r_vec} r_txt={hit.r_txt}" if mode == "hybrid" else ""
        click.echo(f"[{hit.kind}] {hit.subject or ''} score={hit.score:.4f}{ranks}")
        click.echo(f"    {hit.content[:200]}")
    if not hits:
        click.echo("no results")


def _table(rows: list[dict], columns: list[str]) -> str:
    """Rows as an aligned text table (None shown as -, floats rounded)."""

    def cell(value) -> str:
        if value is None or value == "":
            return "-"
        if isinstance(value, float):
            return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
        return str(value)

    cells = [[cell(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(line[i]) for line in cells]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(line, widths)) for line in cells]
    return "\n".join(line.rstrip() for line in lines)


@cli.command()
@click.option("--dry-run", is_flag=True, help="Decide, but change no state and prune nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole report as JSON.")
@click.option("--all", "show_all", is_flag=True, help="List every tool, not only notable ones.")
def ooda(dry_run: bool, as_json: bool, show_all: bool) -> None:
    """Run the tool registry's OODA pass: observe stats, orient, decide, act.

    Observes every tool's sliding window, reports findings (failing, slow, unused, flapping),
    opens failing tools, half-opens them after their cool-down, closes recovered ones, and
    prunes old telemetry (thresholds: the registry policy in the settings table).
    """
    harness = _connect(prepare=True)
    with harness:
        report = harness.tools.ooda(dry_run=dry_run)
    if as_json:
        from agent_harness.foundation.values import dumps

        click.echo(
            dumps(
                {
                    "at": report.at.isoformat(),
                    "dry_run": report.dry_run,
                    "findings": [f.__dict__ for f in report.findings],
                    "decisions": report.decisions,
                    "pruned": report.pruned,
                    "duration_ms": report.duration_ms,
                    "observed": report.observed,
                }
            )
        )
        return
    click.echo(report.summary())
    rows = report.rows()
    if show_all:
        notable = {r["tool"] for r in rows}
        rows += [
            {
                "tool": r["tool"],
                "calls": r["calls"],
                "success_rate": r["success_rate"],
                "p95_ms": r["p95_ms"],
            }
            for r in report.observed
            if r["tool"] not in notable
        ]
    if rows:
        click.echo(
            _table(
                rows, ["tool", "calls", "success_rate", "p95_ms", "findings", "decision", "reason"]
            )
        )


@cli.command()
@click.option("--http", "use_http", is_flag=True, help="Streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback address (--http).")
@click.option("--port", default=8765, show_default=True, help="TCP port (--http).")
@click.option("--tools", default=None, help="Comma-separated tool names to list (default: all).")
@click.option(
    "--agent",
    default=None,
    help="Serve as this agent: its always-on tools first; load_skill unlocks the rest.",
)
@click.option(
    "--token",
    "tokens",
    multiple=True,
    help="Require 'Authorization: Bearer TOKEN' (--http; repeat for several clients; "
    "default: $WORKSHOP_MCP_TOKEN, comma-separated).",
)
@click.option("--identity", "identity_text", default=None, help=_IDENTITY_HELP)
def mcp(
    use_http: bool,
    host: str,
    port: int,
    tools: str | None,
    agent: str | None,
    tokens,
    identity_text: str | None,
) -> None:
    """Serve the harness's tools over MCP (stdio by default; --http for loopback HTTP).

    Any MCP client (Claude Desktop, VS Code, the MCP inspector) lists and calls the same tools
    the agent uses, through the same registry: validated arguments, telemetry, the circuit
    breaker (open tools are not listed). The server declares tools.listChanged and tells its
    clients when the tool set changes. With --http the endpoint is http://HOST:PORT/mcp; give
    it a --token on a machine others can log in to. With --agent each client sees progressive
    disclosure: the agent's always-on tools, then what each skill it loads unlocks (for that
    client only; a list_changed each time). With --identity every client acts for that
    identity: the database filters and masks what every tool reads, and no call can change it.
    """
    from agent_harness.mcp.auth import tokens_from
    from agent_harness.mcp.serving import PortInUse, bind, check_host, serve_http, serve_stdio

    only = [t.strip() for t in tools.split(",") if t.strip()] if tools else None
    identity = _identity(identity_text)
    try:  # refuse what cannot work before connecting, printing or starting anything
        secrets = tokens_from(tokens) if use_http else []
        if use_http:
            check_host(host)
            bind(host, port).close()
    except (ValueError, PortInUse) as e:
        raise click.ClickException(str(e)) from None
    with contextlib.redirect_stdout(sys.stderr):  # stdio: stdout carries JSON-RPC only
        h = _connect(identity=identity)
    if identity is not None:
        click.echo(f"acting for {identity.describe()}", err=True)

    def ready(stop, url) -> None:
        guarded = " (bearer token required)" if secrets else ""
        click.echo(f"MCP (streamable HTTP) at {url}{guarded}; Ctrl+C stops", err=True)

    try:
        if use_http:
            serve_http(h, host=host, port=port, only=only, agent=agent, tokens=secrets, ready=ready)
        else:
            serve_stdio(h, only=only, agent=agent)
    except (ValueError, KeyError, PortInUse) as e:
        raise click.ClickException(str(e)) from None
    finally:
        h.close()


@cli.command()
@click.option("--watch", is_flag=True, help="Keep checking every --period seconds (Ctrl+C stops).")
@click.option(
    "--period",
    default=60.0,
    show_default=True,
    type=click.FloatRange(min=0.5),
    help="Seconds between checks with --watch.",
)
@click.option("--force", is_flag=True, help="Re-scan even when the catalog did not change.")
@click.option("--identity", "identity_text", default=None, help=_IDENTITY_HELP)
def rescan(watch: bool, period: float, force: bool, identity_text: str | None) -> None:
    """Keep the catalog in memory current: re-scan SUPPLYCHAIN when its schema or comments changed.

    Compares the catalog's fingerprint (tables, columns, types, comments, foreign keys) with the
    one last scanned into this memory scope; on a change it re-scans, removes the facts of
    dropped objects and retires other memories about dropped tables. On Oracle a scheduler job
    also queues changes in the database (catalog_changes). With --watch it checks every
    --period seconds, one line per check.
    """
    harness = _connect(prepare=True, identity=_identity(identity_text))
    with harness:
        watcher = harness.catalog_watch
        try:
            click.echo(watcher.check(force=force).summary())
            while watch:
                time.sleep(period)
                click.echo(watcher.check().summary())
        except KeyboardInterrupt:
            click.echo("stopped")


#: The entry-point group whose commands join ``workshop`` (as llm's plugins do): the grader's
#: ``grade``, ``check``, ``export`` and ``release`` (pyproject.toml), read from the installed
#: metadata, so this package never imports the grader.
COMMANDS_GROUP = "workshop.commands"

#: The entry-point group of what ``workshop lab --instructor`` calls to prepare nbgrader's
#: course folder (``prepare_course``).
COURSE_GROUP = "workshop.course"


def _entry_points(group: str) -> list:
    from importlib.metadata import entry_points

    return sorted(entry_points(group=group), key=lambda point: point.name)


def _unavailable(name: str, error: Exception) -> click.Command:
    """A stand-in for a command whose module does not import here: it says why and exits 1."""

    def run() -> None:
        raise click.ClickException(
            f"`workshop {name}` comes with the grader (grader/, the [grader] extra), which "
            f"does not import here: {error}. Install the workshop with "
            "`python3 setup/bootstrap.py setup`."
        )

    return click.Command(
        name,
        callback=run,
        help=f"Not available here: the grader does not import ({error}).",
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )


def _register_commands(group: click.Group) -> None:
    """Add every command of the ``workshop.commands`` entry points (the grader's) to ``group``;
    one whose module does not import is listed as not available here (the others work)."""
    for point in _entry_points(COMMANDS_GROUP):
        try:
            command = point.load()
        except ImportError as e:
            command = _unavailable(point.name, e)
        group.add_command(command, point.name)


_register_commands(cli)


def _register_kit() -> None:
    """``workshop kit build`` / ``verify`` / ``load-oracle`` (agent_harness/kit/commands.py)."""
    from agent_harness.kit.commands import kit

    cli.add_command(kit)


_register_kit()


@cli.group(cls=_WholeSentences)
def skills() -> None:
    """Manage the skills library."""


@skills.command("add")
@click.argument("source")
@click.option(
    "--name",
    "source_name",
    default="oracle",
    show_default=True,
    help="Prefix for the imported skills' names.",
)
def skills_add(source: str, source_name: str) -> None:
    """Ingest skills from a local folder or a .zip/.tar.gz URL (e.g. Oracle's skills library).

    Nothing is committed to the project: the files stay where they are (or in a temp folder).
    """
    from agent_harness.interfaces.skills_import import fetch_skills_folder

    harness = _connect(prepare=True)
    try:
        with fetch_skills_folder(source) as folder:
            counts = harness.skills.ingest(folder, source=source_name)
    except (OSError, ValueError) as e:
        raise click.ClickException(str(e)) from e
    click.echo(
        f"{counts['added_or_changed']} added or changed, {counts['unchanged']} unchanged, "
        f"{len(counts['skipped'])} skipped"
    )


def main() -> None:
    """Console-script entry point."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    cli(prog_name="workshop")


if __name__ == "__main__":
    main()
