"""Shared fixtures: one prepared embedded database per test run, a harness per session, fresh
scopes per test.

The suite runs in parallel (pytest-xdist, ``-n auto`` in pyproject.toml; ``-n 0`` for one
process). The prepared database (:func:`template`) is made ONCE per run, by whichever worker
needs it first, under a file lock in the folder all workers share; every notebook run and
every worker's harness copies it. The modules in :data:`GROUPED` have expensive
module-scoped fixtures (a grading batch; the probe runs and the mutant runs, made one notebook
at a time through the session's two warm runners, :func:`warm_runners`; the retrieval
evaluation's catalogue): their tests go to a worker together, the whole module or one
notebook's tests as one unit (:func:`pytest_xdist_make_scheduler`), so no worker repeats a
run; every other test is sent on its own. (xdist's own ``--dist loadgroup`` would do this
with marks, but with pytest 9.2 it silently stops grouping: pytest-xdist issue #1386.)

Oracle variants: tests parametrised with ``backend_name`` run on Oracle only when
``WORKSHOP_ORACLE_DSN`` points at a reachable database (the GitHub Actions Oracle job);
otherwise they are skipped with that reason. Tests of the Oracle backend alone use the
``oracle_harness`` fixture with the ``oracle`` mark and :data:`ORACLE_SKIP`.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import uuid
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("WORKSHOP_LLM", "offline")


# Test modules whose tests must reach a worker together: "module" = the whole module as one
# unit; "notebook" = one unit per notebook named in the test's id ([02_retrieval],
# [mutant:02_retrieval:...]); its other tests are sent on their own.
GROUPED = {
    "tests/test_grader.py": "module",
    "tests/test_grader_probes.py": "notebook",
    "tests/test_notebooks.py": "notebook",
    "tests/test_check_tracebacks.py": "notebook",
    "tests/test_tool_retrieval_eval.py": "module",  # one 200-tool catalogue, loaded once
    "tests/test_mcp_interop.py": "module",  # two `workshop mcp --http` processes, started once
    "tests/test_kit.py": "module",  # one kit built and installed offline, shared
    # One graded batch and ten `workshop check` runs (about 65 s): sent whole, else each
    # worker that gets one of its tests builds them again.
    "tests/test_grader_check.py": "module",
    "tests/test_instructor_course.py": "module",  # one course folder (about 13 s)
}
#: Modules whose tests take 10-45 s each (the slowest of `.ci/run`'s --durations that are
#: not in GROUPED): sent right after the grouped units, before the quick tests, so a run does
#: not end with one worker on a long test while the other has nothing left to do.
SEND_EARLY = (
    "tests/test_nbgrader_direct.py",
    "tests/test_attendee_lab.py",
    "tests/test_notebook_rerun.py",
    "tests/test_chat_browser.py",
    "tests/test_student_check.py",
    "tests/test_backend_layout.py",
    "tests/test_grader_report.py",
    "tests/test_mcp_boundaries.py",
    "tests/test_requirements.py",
    "tests/test_lab.py",
)
#: Modules whose notebook units are another module's: their tests of a notebook go with that
#: module's (test_check_tracebacks.py reads the Jupyter run of the untouched student notebook
#: that test_notebooks.py makes, ``student_notebook_runs``).
SHARES_UNITS_WITH = {"tests/test_check_tracebacks.py": "tests/test_notebooks.py"}
NOTEBOOK_IN_ID = re.compile(r"\[(?:\w+:)?(\d\d_\w+?)[:\]]")


def work_unit(nodeid: str) -> str:
    """The unit of work a test belongs to (tests of one unit run on one worker)."""
    module = nodeid.split("::", 1)[0]
    how = GROUPED.get(module)
    if how == "module":
        return module
    notebook = NOTEBOOK_IN_ID.search(nodeid) if how == "notebook" else None
    unit = SHARES_UNITS_WITH.get(module, module)
    return f"{unit}::{notebook.group(1)}" if notebook else nodeid


def send_order(unit: tuple[str, dict]) -> tuple[int, bool]:
    """Where a unit of work goes in the queue: the biggest first (as xdist's loadscope does),
    and among units of one size, the tests of :data:`SEND_EARLY` first."""
    scope, nodeids = unit
    return -len(nodeids), not scope.startswith(SEND_EARLY)


def pytest_xdist_make_scheduler(config, log):
    """Schedule by :func:`work_unit`, in :func:`send_order`."""
    from xdist.scheduler import LoadScopeScheduling

    class WorkUnitScheduling(LoadScopeScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:  # the queue is full now (schedule() made it)
                self.ordered = True
                units = sorted(self.workqueue.items(), key=send_order)
                self.workqueue.clear()
                self.workqueue.update(units)
            super()._assign_work_unit(node)

    return WorkUnitScheduling(config, log)


def pytest_terminal_summary(terminalreporter) -> None:
    """Close the log with why tests skipped: each reason once, with how many tests it skipped
    (pytest's ``-rs`` lists every test's line, hundreds of them)."""
    from collections import Counter

    reasons: Counter[str] = Counter()
    for report in terminalreporter.stats.get("skipped", []):
        detail = report.longrepr
        reason = detail[2] if isinstance(detail, tuple) and len(detail) == 3 else str(detail)
        reasons[reason.removeprefix("Skipped: ")] += 1
    if reasons:
        terminalreporter.section("why tests skipped")
        for reason, count in reasons.most_common():
            terminalreporter.write_line(f"{count:5d}  {reason}")


def _oracle_reachable() -> bool:
    dsn = os.environ.get("WORKSHOP_ORACLE_DSN")
    if not dsn:
        return False
    host, _, rest = dsn.partition(":")
    port = int(rest.split("/")[0] or "1521")
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


ORACLE_REASON = (
    "no Oracle reachable (set WORKSHOP_ORACLE_DSN; runs in the GitHub Actions Oracle job)"
)
ORACLE_SKIP = pytest.mark.skipif(not _oracle_reachable(), reason=ORACLE_REASON)
BACKENDS = ["embedded", pytest.param("oracle", marks=[pytest.mark.oracle, ORACLE_SKIP])]


@pytest.fixture(autouse=True)
def no_hook_failures_left_behind():
    """Fail a test that leaves hook failures behind (a broken telemetry, breaker, provenance
    or tracing hook is counted and logged, never raised: without this guard a test would pass
    over one). A test that provokes failures on purpose takes them: ``hook_failures.take()``."""
    from agent_harness.tools.dispatch import unreported_hook_failures

    unreported_hook_failures()
    yield
    left = unreported_hook_failures()
    if left:
        pytest.fail(f"hook failures left behind: {left[:5]}", pytrace=False)


@pytest.fixture(scope="session", params=BACKENDS)
def backend_name(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def embedded_harness(tmp_path_factory, request):
    """A prepared harness of the module's own on the embedded backend only, for tests of
    backend-neutral code (the MCP server, the call boundary): they have no Oracle variant, since
    one that skipped itself would be collected in the Oracle job and run nowhere."""
    import agent_harness

    data_dir = tmp_path_factory.mktemp("embedded-only")
    shutil.copytree(request.getfixturevalue("template"), data_dir, dirs_exist_ok=True)
    h = agent_harness.connect(backend="embedded", data_dir=data_dir)
    yield h
    h.close()


@pytest.fixture(scope="session")
def template(tmp_path_factory) -> Path:
    """A prepared embedded database folder (demo data, catalog, skills, tools), made once per
    test run and shared by the xdist workers; copy it, never write into it."""
    from filelock import FileLock

    from grader.grade import prepare_template

    root = _run_root(tmp_path_factory)
    folder, ready = root / "template" / ".workshop", root / "template" / "ready"
    with FileLock(str(root / "template.lock")):
        if not ready.exists():
            shutil.rmtree(folder, ignore_errors=True)
            prepare_template(folder)
            ready.touch()
    return folder


@pytest.fixture(scope="session")
def sandbox_caches() -> None:
    """What grading prepares once per environment for its sandboxes (grader/caches.py: where
    the bytecode of their imports is, matplotlib's font list), for tests that start sandboxes
    themselves rather than through ``grade_batch`` or ``check_notebook``."""
    from grader.caches import prepare_bytecode

    prepare_bytecode()


def _run_root(tmp_path_factory) -> Path:
    """The folder every xdist worker of this test run shares."""
    root = tmp_path_factory.getbasetemp()
    return root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root


@pytest.fixture(scope="session")
def sweep_embeddings(template, sandbox_caches, tmp_path_factory) -> Path | None:
    """The vectors the notebook sweeps' runs start with: what the untouched released notebooks
    embed (the file ``workshop grade`` preloads, grader/caches.py) and what each instructor's
    solution embeds, once with its hidden tests and once with its value checks. A wrong answer
    embeds mostly the same texts as the solution: its run finds them here instead of running
    the model again. Made ONCE per test run, under a
    file lock, in the folder the xdist workers share. Only the tests use it: grading never
    preloads the texts of the solutions or of the value checks (tests/test_grader_speed.py).

    The model is deterministic and a text's vector does not depend on its batch
    (tests/test_embeddings.py), so a preloaded vector is the one the run would compute."""
    import dataclasses
    import json
    from concurrent.futures import ThreadPoolExecutor

    from filelock import FileLock

    from grader.cache_paths import merge_embeddings
    from grader.caches import prepare_embeddings
    from grader.execute import WarmRunner
    from grader.sandbox import Limits
    from grader.sources import load_sources

    root = _run_root(tmp_path_factory)
    path = root / "sweep-embeddings.json"
    with FileLock(str(root / "sweep-embeddings.lock")):
        if path.exists():
            return path
        sources = load_sources()
        public = prepare_embeddings(sources, template)
        with_probes = [(source, None) for source in sources]
        with_hidden = [(dataclasses.replace(source, probes={}), None) for source in sources]

        def collect(index: int, jobs: list, hidden: bool) -> list:
            folder = tmp_path_factory.mktemp(f"sweep-embeddings-{index}")
            with WarmRunner(folder, template, Limits.for_grading(), None, True, public) as runner:
                return runner.run(jobs, 120, 600, hidden, True, collect_value_checks=not hidden)

        with ThreadPoolExecutor(2) as pool:
            done = pool.map(collect, (0, 1), (with_probes, with_hidden), (False, True))
            runs = [run for batch in done for run in batch]
        found = [run.embeddings or {} for run in runs]
        found = [f for f in found if isinstance(f.get("texts"), list) and f.get("vectors")]
        if public is not None:
            saved = json.loads(public.read_text(encoding="utf-8"))
            found.insert(0, saved)
        if not found:
            return None  # the runs preload nothing and embed for themselves
        merged = merge_embeddings([f["texts"] for f in found], [f["vectors"] for f in found])
        path.write_text(json.dumps(merged), encoding="utf-8")
        return path


@pytest.fixture(scope="session")
def warm_runners(template, sandbox_caches, sweep_embeddings, tmp_path_factory):
    """Two sandboxed grading runners kept warm for the whole session
    (:class:`grader.execute.WarmRunner`), each running one notebook at a time, each notebook
    in a fresh process with a fresh copy of :func:`template`: the notebook sweeps of
    test_notebooks.py and test_grader_probes.py run hundreds of notebooks through them
    without starting a sandbox per notebook or per batch. Use each from one thread at a time."""
    from grader.execute import WarmRunner
    from grader.sandbox import Limits

    limits = Limits(deadline_s=7 * 24 * 3600)  # a runner's deadline counts from its start
    runners = [
        WarmRunner(
            tmp_path_factory.mktemp(f"warm-runner-{i}"),
            template,
            limits,
            None,
            True,
            sweep_embeddings,
        )
        for i in range(2)
    ]
    yield runners
    for runner in runners:
        runner.close()


@pytest.fixture(scope="session")
def student_notebook_runs(template, tmp_path_factory):
    """Each untouched student notebook (as released), executed once per session in a fresh
    Jupyter kernel (nbclient and ipykernel, as JupyterLab runs it), by notebook name:
    ``(executed notebook, status)``, what an attendee sees after Run All before filling
    anything in. test_notebooks.py and test_check_tracebacks.py read the same run (their
    tests of a notebook go to one worker, :data:`SHARES_UNITS_WITH`); read it, never change it."""
    import nbformat

    from grader.notebook_folders import notebook_path
    from grader.release import release_notebook
    from tests.jupyter_grading import execute

    class Runs(dict):
        def __missing__(self, name: str):
            source = nbformat.read(notebook_path(name), as_version=4)
            workdir = tmp_path_factory.mktemp(f"student-{name}")
            self[name] = execute(release_notebook(source), workdir, template, timeout_cell=120)
            return self[name]

    return Runs()


@pytest.fixture(scope="session")
def harness(tmp_path_factory, backend_name, request):
    """A prepared harness (demo data, catalog facts, skills, tools) shared by the session."""
    import agent_harness

    data_dir = tmp_path_factory.mktemp(f"workshop-{backend_name}")
    if backend_name == "embedded":  # a copy of the run's prepared database: nothing to redo
        shutil.copytree(request.getfixturevalue("template"), data_dir, dirs_exist_ok=True)
    h = agent_harness.connect(backend=backend_name, data_dir=data_dir)
    yield h
    h.close()


@pytest.fixture(scope="session")
def oracle_harness(tmp_path_factory):
    """A prepared harness on Oracle (use with the ``oracle`` mark and ``ORACLE_SKIP``)."""
    import agent_harness

    if not _oracle_reachable():
        pytest.skip(ORACLE_REASON)
    h = agent_harness.connect(backend="oracle", data_dir=tmp_path_factory.mktemp("oracle"))
    yield h
    h.close()


@pytest.fixture
def scope_harness(harness):
    """The shared harness seen through a fresh, empty memory scope (cheap isolation)."""
    from agent_harness.backends import Scope
    from agent_harness.parts.memory import MemoryStore

    scope = Scope(f"test-{uuid.uuid4().hex[:8]}", "agent")
    return MemoryStore(harness.backend, scope, harness.embed)


@pytest.fixture
def memory(scope_harness):
    return scope_harness


@pytest.fixture(scope="module")
def fresh_harness(tmp_path_factory, backend_name, request):
    """A prepared harness of its own for a test module that changes registry state (breaker
    states, policy, telemetry). On Oracle the database is shared: such tests use tool names
    of their own."""
    import agent_harness

    data_dir = tmp_path_factory.mktemp(f"fresh-{backend_name}")
    if backend_name == "embedded":
        shutil.copytree(request.getfixturevalue("template"), data_dir, dirs_exist_ok=True)
    h = agent_harness.connect(backend=backend_name, data_dir=data_dir)
    yield h
    h.close()


class FakeClock:
    """A clock the tests move by hand (``registry.clock = FakeClock(...)``)."""

    def __init__(self, start=None):
        import datetime as dt

        # A quarter of a second past: a backend that drops fractions of a second (Oracle
        # binding a datetime as DATE) would show in every time the tests compare. Whole
        # milliseconds, which both backends store exactly.
        now = dt.datetime.now(dt.timezone.utc)
        self.now = start or now.replace(microsecond=250_000)

    def __call__(self):
        return self.now

    def advance(self, seconds: float) -> None:
        import datetime as dt

        self.now += dt.timedelta(seconds=seconds)


def make_tool(name: str, behaviour, category: str = "testing", timeout_s: float = 30.0):
    """A documented test tool named ``name`` whose body is ``behaviour(n)``."""
    from agent_harness.tools import Tool

    def fn(n: int = 0) -> dict:
        """A test tool that answers or fails as the test says.

        Args:
            n: The call number, passed to the behaviour.
        """
        return behaviour(n)

    fn.__name__ = fn.__qualname__ = name
    return Tool.from_function(fn, category=category, timeout_s=timeout_s)
