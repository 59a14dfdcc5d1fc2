"""Notebook 06 run twice on the same database (issue 22, item 10): every row it writes carries
the time it happened (no transition or call stamped in the future, as when the notebook moved
the registry's clock five minutes ahead), and enabling a tool already closed records nothing."""

from __future__ import annotations

import datetime as dt
import os
import shutil

import pytest

from grader.notebook_folders import notebook_path
from tests.deadlines import PATIENCE_S
from tests.jupyter_grading import LocalSocketKernelManager

NOTEBOOK = notebook_path("06_self_healing_registry")


@pytest.mark.slow
def test_running_06_twice_writes_nothing_in_the_future(tmp_path, template):
    import papermill

    import agent_harness

    workdir = tmp_path / "work"
    shutil.copytree(template, workdir / ".workshop")
    os.environ["WORKSHOP_DATA_DIR"] = str(workdir / ".workshop")
    try:
        for run in range(2):
            papermill.execute_notebook(
                str(NOTEBOOK),
                str(tmp_path / f"run{run}.ipynb"),
                parameters={"backend": "embedded", "llm_mode": "offline"},
                kernel_name="python3",
                cwd=str(workdir),
                progress_bar=False,
                kernel_manager_class=LocalSocketKernelManager,
                execution_timeout=PATIENCE_S,  # a cell that hangs fails the test, with its name
            )
        h = agent_harness.connect(data_dir=str(workdir / ".workshop"))
    finally:
        os.environ.pop("WORKSHOP_DATA_DIR", None)
    now = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=1)
    changes = h.tools.transitions("ais_live_position", limit=100)
    assert len(changes) >= 6, changes  # opened, half-open and closed in each run
    assert all(c["at"] <= now for c in changes), [c["at"] for c in changes]
    assert not [c for c in changes if c["from_state"] == c["to_state"]], changes
    calls = h.tools.telemetry(limit=1000)
    assert all(c["started_at"] <= now for c in calls), max(c["started_at"] for c in calls)
