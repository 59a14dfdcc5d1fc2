"""Every statement the solution notebooks send with ``backend = "oracle"`` passes the stand-in's
privilege check, as the user that sends it (issue 26; nothing here ran on Oracle).

Each notebook runs cell by cell on the python-oracledb fake (``tests/oracle_notebooks.py``):
pre-built cells, TODO solutions and check cells alike. Canned rows make many check cells fail,
which is allowed; a statement refused for privileges is not: on Oracle it stops the notebook
(the CI Oracle job's loop stopped at 09's first check cell before this issue).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from grader.notebook_folders import notebook_paths
from tests.oracle_notebooks import trace_notebook
from tests.oracle_rows import column_types

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = notebook_paths()


def _known_relations() -> set[str]:
    """Every table and view the backend creates (a refusal on another name is the database
    saying it does not exist, which a cell may show on purpose)."""
    from agent_harness.backends.roles.documents import DOCUMENTS

    return set(column_types()) | {d.upper() for d in DOCUMENTS} | {"IDENTITY_TICKETS"}


def _privilege_refusals(trace) -> list[tuple]:
    known = _known_relations()
    found = []
    for index, user, error, sql in trace.refused:
        missing = re.match(r'ORA-00942: table or view "\w+"\."(\w+)" does not exist', error)
        if missing and missing.group(1) not in known:
            continue  # e.g. 03's run_sql on no_such_table: shown on purpose
        found.append((index, user, error, " ".join(sql.split())[:160]))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_notebook_statement_is_refused_for_privileges_on_oracle(path, tmp_path):
    from agent_harness.tools.dispatch import unreported_hook_failures

    trace = trace_notebook(path, tmp_path)
    unreported_hook_failures()  # hooks fed canned rows fail; they are not what this checks
    sent = sum(len(c.sent) for c in trace.cells)
    print(f"{path.name}: {trace.checked} statements passed the privilege check ({sent} sent)")
    assert trace.checked > 100  # the notebook did reach the database through the fake
    assert _privilege_refusals(trace) == [], (
        f"{path.name}: statements Oracle would refuse (cell index, user, error, statement)"
    )


def test_the_trace_catches_a_cell_that_writes_supplychain_as_the_harness(tmp_path):
    notebook = tmp_path / "nb.ipynb"
    delete = '"DELETE FROM supplychain.voyages WHERE voyage_id = 1"'
    cells = [
        ("import agent_harness\nh = agent_harness.connect()", ["parameters"]),
        (f"h.backend.execute({delete})", []),
        (f"h.backend.supplychain_execute({delete})", []),
    ]

    notebook.write_text(
        json.dumps(
            {
                "cells": [
                    {"cell_type": "code", "source": src, "metadata": {"tags": tags}}
                    for src, tags in cells
                ]
            }
        )
    )
    trace = trace_notebook(notebook, tmp_path)
    refused = _privilege_refusals(trace)
    assert [(i, user) for i, user, *_ in refused] == [(1, "workshop")]
    assert "ORA-01031" in refused[0][2]
    assert trace.cells[2].error is None  # the owner's statement ran
