"""A warm grading runner outlives the thread that started it.

bubblewrap's ``--die-with-parent`` is PR_SET_PDEATHSIG, which fires when the *thread* that
started bwrap ends (prctl(2)), not the process. The suite's warm runners were started from a
thread pool's threads and used later from others: about one session in three, a runner was
killed between two notebooks and the next notebook came back "the kernel stopped answering"
with no cell run (tests/test_grader_probes.py's 04_agent_loop reference, seen in CI).
"""

from __future__ import annotations

import threading

import nbformat
import pytest

from grader.execute import WarmRunner
from grader.release import release_notebook
from grader.sandbox import Limits, bwrap_available
from grader.sources import Source


def _source() -> Source:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("assert x == 1")
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": "alive", "points": 1.0}
    nb.cells = [nbformat.v4.new_code_cell("x = 1"), cell]
    return Source("97_alive", nb, release_notebook(nb), [("alive", 1.0)], {}, set())


def test_a_runner_started_from_a_thread_that_ended_keeps_running(tmp_path):
    if not bwrap_available():
        pytest.skip("bubblewrap is not installed: no --die-with-parent to test")
    template = tmp_path / "template"
    template.mkdir()
    jobs = [(_source(), None)]
    with WarmRunner(tmp_path / "job", template, Limits(), True) as runner:
        (runner.job_dir).mkdir()
        first = []
        starter = threading.Thread(target=lambda: first.extend(runner.run(jobs, 30, 120)))
        starter.start()
        starter.join()
        pid = runner._sandbox.process.pid
        # the thread that started the sandbox has ended; the runner serves the next notebook
        # from this thread, in the same sandbox
        threading.Event().wait(1.0)
        (second,) = runner.run(jobs, 30, 120)
        assert [r.status for r in first] == ["ok"] and second.status == "ok", second.reason
        assert runner._sandbox.process.pid == pid, "the sandbox was started again"
        assert runner._sandbox.process.poll() is None
