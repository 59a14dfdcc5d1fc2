"""An identity's rows as filtered copies (embedded backend): what the policy costs a statement,
and that the copies follow every change of the data.

``run_sql``'s connection under an identity reads TEMP copies of the protected tables holding
only the identity's rows (:mod:`agent_harness.backends.embedded.copies`): a statement runs the
owner's plan (no per-row check), and a change of the data (a voyage given another region, a
container moved to another voyage, a new row, a new column) shows in the very next statement,
for every client of the harness at once.
"""

from __future__ import annotations

import json
import re
import threading
import time

import pytest

from agent_harness.backends.embedded.readonly import ReadOnlyConnection
from agent_harness.foundation.identity import Identity
from tests.identity_harnesses import ANA, FIN, harness_fixtures

JOIN_SQL = (
    "SELECT voyages.ocean_region, COUNT(*) AS n,"
    " SUM(cargo_items.quantity * cargo_items.unit_value_cents) AS cents"
    " FROM supplychain.voyages"
    " JOIN supplychain.containers ON containers.voyage_id = voyages.voyage_id"
    " JOIN supplychain.cargo_items ON cargo_items.container_no = containers.container_no"
    " GROUP BY voyages.ocean_region"
)


folder, owner, ana, fay = harness_fixtures("policy-copies")


def rows(h, text: str) -> list[list]:
    out = json.loads(h.tools.call("run_sql", {"sql": text, "max_rows": 1000}))
    assert "error" not in out, out
    assert not out.get("truncated"), f"more than 1000 rows: {text}"
    return out["rows"]


def expected(owner, regions: set[str]) -> dict[str, set]:
    """The keys an identity with these regions sees, worked out in Python from the owner's
    rows (not with the policy's own SQL)."""
    voyages = {
        v for v, r in rows(owner, "SELECT voyage_id, ocean_region FROM voyages") if r in regions
    }
    boxes = {
        c for c, v in rows(owner, "SELECT container_no, voyage_id FROM containers") if v in voyages
    }
    return {
        "voyages": voyages,
        "containers": boxes,
        "cargo_items": {
            i for i, c in rows(owner, "SELECT item_id, container_no FROM cargo_items") if c in boxes
        },
        "vessel_positions": {
            p
            for p, v in rows(owner, "SELECT position_id, voyage_id FROM vessel_positions")
            if v in voyages
        },
    }


KEYS = {
    "voyages": "voyage_id",
    "containers": "container_no",
    "cargo_items": "item_id",
    "vessel_positions": "position_id",
}


def seen(h) -> dict[str, set]:
    return {t: {r[0] for r in rows(h, f"SELECT {k} FROM supplychain.{t}")} for t, k in KEYS.items()}


def plan(connection: ReadOnlyConnection, statement: str) -> list[str]:
    """The plan's steps, schema names left out (the owner reads supplychain.<table>)."""
    if connection.guard is not None:
        statement = connection.guard.rewrite(statement)  # as run() does
    steps = connection.conn.execute("EXPLAIN QUERY PLAN " + statement).fetchall()
    return [re.sub(r"\bsupplychain\.", "", step[3]) for step in steps]


# --- the cost: the owner's plan --------------------------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        JOIN_SQL,
        "SELECT * FROM supplychain.cargo_items WHERE container_no = 'X'",
        "SELECT COUNT(*) FROM supplychain.vessel_positions",
    ],
    ids=["three-table join", "child by key", "count"],
)
def test_a_statement_under_an_identity_runs_the_owners_plan(folder, statement):
    path = folder / "supplychain.db"
    mine, theirs = ReadOnlyConnection(path, Identity.of(ANA)), ReadOnlyConnection(path)
    try:
        assert plan(mine, statement) == plan(theirs, statement)  # no per-row check added
    finally:
        mine.close()
        theirs.close()


def test_an_index_the_owner_adds_serves_the_identity_too(folder, owner):
    owner.backend.execute("CREATE INDEX supplychain.containers_voyage ON containers (voyage_id)")
    statement = "SELECT container_no FROM supplychain.containers WHERE voyage_id = 7"
    path = folder / "supplychain.db"
    mine, theirs = ReadOnlyConnection(path, Identity.of(ANA)), ReadOnlyConnection(path)
    try:
        assert any("containers_voyage" in step for step in plan(theirs, statement))
        assert plan(mine, statement) == plan(theirs, statement)
    finally:
        mine.close()
        theirs.close()
        owner.backend.execute("DROP INDEX supplychain.containers_voyage")


# --- kept current -------------------------------------------------------------------------------


def _atlantic_and_other(owner) -> tuple[int, int]:
    """An ATLANTIC voyage with containers and a PACIFIC one, both with cargo."""
    found = rows(
        owner,
        "SELECT v.ocean_region, MIN(v.voyage_id) FROM voyages v"
        " WHERE EXISTS (SELECT 1 FROM containers c JOIN cargo_items i"
        " ON i.container_no = c.container_no WHERE c.voyage_id = v.voyage_id)"
        " AND v.ocean_region IN ('ATLANTIC', 'PACIFIC') GROUP BY v.ocean_region",
    )
    by_region = dict(found)
    return by_region["ATLANTIC"], by_region["PACIFIC"]


CHANGES = {
    "a voyage moves into the region": (
        "UPDATE supplychain.voyages SET ocean_region = 'ATLANTIC' WHERE voyage_id = :other",
        "UPDATE supplychain.voyages SET ocean_region = 'PACIFIC' WHERE voyage_id = :other",
    ),
    "a voyage moves out of the region": (
        "UPDATE supplychain.voyages SET ocean_region = 'PACIFIC' WHERE voyage_id = :mine",
        "UPDATE supplychain.voyages SET ocean_region = 'ATLANTIC' WHERE voyage_id = :mine",
    ),
    "a container moves to a hidden voyage": (
        "UPDATE supplychain.containers SET voyage_id = :other WHERE container_no ="
        " (SELECT MIN(container_no) FROM supplychain.containers WHERE voyage_id = :mine)",
        None,  # undone by moving the same container back (below)
    ),
    "a new voyage, container and cargo item": (
        "INSERT INTO supplychain.voyages (voyage_id, voyage_code, imo_number, origin_port,"
        " dest_port, departure_date, eta_date, status, ocean_region, distance_nm)"
        " SELECT 99001, 'TST-9901A', imo_number, origin_port, dest_port, departure_date,"
        " eta_date, status, 'ATLANTIC', distance_nm FROM supplychain.voyages"
        " WHERE voyage_id = :other;"
        " INSERT INTO supplychain.containers (container_no, voyage_id, container_type, size_ft)"
        " VALUES ('TSTU9900010', 99001, 'DRY', 20);"
        " INSERT INTO supplychain.cargo_items (item_id, container_no, description, quantity)"
        " VALUES (99001, 'TSTU9900010', 'test goods', 3)",
        "DELETE FROM supplychain.cargo_items WHERE item_id = 99001;"
        " DELETE FROM supplychain.containers WHERE container_no = 'TSTU9900010';"
        " DELETE FROM supplychain.voyages WHERE voyage_id = 99001",
    ),
}


def _run(owner, script: str, binds: dict) -> None:
    for statement in script.split(";"):
        names = set(re.findall(r":(\w+)", statement))
        owner.backend.execute(statement, {k: v for k, v in binds.items() if k in names})


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_change_of_the_data_shows_in_the_next_statement(owner, ana, change):
    mine, other = _atlantic_and_other(owner)
    binds = {"mine": mine, "other": other}
    assert seen(ana) == expected(owner, {"ATLANTIC"})  # the copies are filled
    moved = rows(owner, f"SELECT MIN(container_no) FROM containers WHERE voyage_id = {mine}")[0][0]
    do, undo = CHANGES[change]
    _run(owner, do, binds)
    try:
        after = expected(owner, {"ATLANTIC"})
        assert seen(ana) == after  # the very next statement: no stale copy
    finally:
        if undo is None:
            owner.backend.execute(
                "UPDATE supplychain.containers SET voyage_id = :v WHERE container_no = :c",
                {"v": mine, "c": moved},
            )
        else:
            _run(owner, undo, binds)
    assert seen(ana) == expected(owner, {"ATLANTIC"}) != after


def test_the_copies_are_filled_again_only_when_the_data_changed(folder, owner):
    connection = ReadOnlyConnection(folder / "supplychain.db", Identity.of(ANA))
    try:
        for _ in range(3):
            connection.run("SELECT COUNT(*) FROM voyages", {}, max_rows=1, timeout_s=5)
        copies = connection.guard.copies
        assert copies.fills == 1
        owner.backend.execute("UPDATE supplychain.ports SET berths = berths + 1")
        connection.run("SELECT COUNT(*) FROM voyages", {}, max_rows=1, timeout_s=5)
        connection.run("SELECT COUNT(*) FROM voyages", {}, max_rows=1, timeout_s=5)
        assert copies.fills == 2
    finally:
        owner.backend.execute("UPDATE supplychain.ports SET berths = berths - 1")
        connection.close()


def test_a_column_added_to_a_table_reaches_the_copy(owner, ana):
    owner.backend.execute("ALTER TABLE supplychain.containers ADD COLUMN seal_no TEXT")
    try:
        owner.backend.execute("UPDATE supplychain.containers SET seal_no = 'S-' || container_no")
        got = rows(ana, "SELECT container_no, seal_no FROM containers")
        assert got and all(seal == f"S-{box}" for box, seal in got)
    finally:
        owner.backend.execute("ALTER TABLE supplychain.containers DROP COLUMN seal_no")
    assert (
        "seal_no"
        not in json.loads(
            ana.tools.call("run_sql", {"sql": "SELECT * FROM containers", "max_rows": 1})
        )["columns"]
    )


def test_a_masked_value_never_reaches_the_copy(folder, owner):
    path = folder / "supplychain.db"
    ana_conn, fay_conn = (
        ReadOnlyConnection(path, Identity.of(ANA)),
        ReadOnlyConnection(path, Identity.of(FIN)),
    )
    try:
        for connection in (ana_conn, fay_conn):
            connection.conn.authorizer = None  # look at what the copy holds, unmasked
        count = "SELECT COUNT(*), COUNT(unit_value_cents) FROM temp.cargo_items"
        lines, values = ana_conn.conn.execute(count).fetchall()[0]
        assert lines > 0 and values == 0
        lines, values = fay_conn.conn.execute(count).fetchall()[0]
        assert lines > 0 and values == lines  # finance: the values are copied
    finally:
        ana_conn.close()
        fay_conn.close()


# --- every client at once -------------------------------------------------------------------


def test_clients_reading_while_the_data_changes_see_whole_states_then_the_last(owner, ana):
    mine, other = _atlantic_and_other(owner)
    before = expected(owner, {"ATLANTIC"})["containers"]
    owner.backend.execute(
        "UPDATE supplychain.voyages SET ocean_region = 'ATLANTIC' WHERE voyage_id = :v",
        {"v": other},
    )
    with_other = expected(owner, {"ATLANTIC"})["containers"]
    owner.backend.execute(
        "UPDATE supplychain.voyages SET ocean_region = 'PACIFIC' WHERE voyage_id = :v",
        {"v": other},
    )
    assert with_other > before
    statement = "SELECT container_no FROM containers"
    results: list[set] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def read() -> None:
        try:
            while not stop.is_set():
                results.append({r[0] for r in rows(ana, statement)})
        except BaseException as e:  # reported below, with the thread's result
            errors.append(e)

    readers = [threading.Thread(target=read) for _ in range(4)]
    for reader in readers:
        reader.start()
    try:
        for region in ("ATLANTIC", "PACIFIC") * 5:
            owner.backend.execute(
                "UPDATE supplychain.voyages SET ocean_region = :r WHERE voyage_id = :v",
                {"r": region, "v": other},
            )
            done = len(results)  # let the readers read this state before the next write
            deadline = time.monotonic() + 120
            while len(results) < done + 4 and not errors and time.monotonic() < deadline:
                time.sleep(0.01)
    finally:
        stop.set()
        for reader in readers:
            reader.join(timeout=120)
    assert not errors, errors
    assert results and all(r in (before, with_other) for r in results)
    assert {r[0] for r in rows(ana, statement)} == before  # the last write: PACIFIC again
