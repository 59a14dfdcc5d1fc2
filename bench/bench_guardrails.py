"""Benchmark: what an identity's access policy costs run_sql, on a 10,000-voyage data set.

    .venv/bin/python bench/bench_guardrails.py                 # 10,000 voyages, 30 runs each
    .venv/bin/python bench/bench_guardrails.py --voyages 2000 --runs 10

The demo data (60 voyages) is copied with new keys until it holds ``--voyages`` voyages (and
their containers, cargo items and positions: about 25 containers, 50 cargo items and 13
positions per 10 voyages), in a temporary embedded database. The same statements then run
through ``run_sql``'s read-only path (``backend.readonly_query``) as:

* the **owner** (no policy: the plain TEMP views);
* an identity that sees **every region, with finance**: the policy's views and authorizer are
  all there, but the rows and values are the owner's, so the difference is the policy's cost;
* **one region without finance** (ATLANTIC): fewer rows, the value column masked.

It prints the median per statement and configuration, the overhead of the policy on the same
rows (the second over the first; the target is at most 20%) and the restricted identity's time
over the owner's (third over first: fewer rows, same checks). The statements are the kinds an
agent sends: a scan with GROUP BY, the three-table join of notebook 09's question, a lookup by
key and one child table by its parent's key.

Where the time goes: ``run_sql``'s connection under an identity reads **filtered copies** of
the protected tables (:mod:`agent_harness.backends.embedded.copies`): TEMP tables with the base
tables' columns, keys and indexes, holding only the identity's rows, so a statement runs the
owner's plan and pays only a ``PRAGMA data_version`` read (did the data change?). Before them,
trusted views checked each protected row against its voyage in every statement (one key
lookup per level: a cargo item two), and the join over every cargo item cost about 2.5 times
the owner's (+146% at 10,000 voyages). The copies move that cost to the moments the data
changes: the script also prints how long filling them takes when the connection opens, and
how long the first statement after a write (one voyage's distance) waits for the refill.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_harness.backends.embedded import EmbeddedBackend  # noqa: E402
from agent_harness.foundation.identity import Identity  # noqa: E402
from agent_harness.supplychain import TABLES, generate  # noqa: E402
from agent_harness.supplychain.schema import OCEAN_REGIONS  # noqa: E402

TARGET = 0.20

STATEMENTS = {
    "voyages by region and status (scan, GROUP BY)": (
        "SELECT ocean_region, status, COUNT(*) AS n, AVG(distance_nm) AS nm"
        " FROM supplychain.voyages GROUP BY ocean_region, status",
        {},
    ),
    "cargo value per region (3-table join)": (
        "SELECT v.ocean_region, COUNT(DISTINCT v.voyage_id) AS voyages,"
        " SUM(i.quantity * i.unit_value_cents) / 100.0 AS value_usd"
        " FROM supplychain.voyages v"
        " JOIN supplychain.containers c ON c.voyage_id = v.voyage_id"
        " JOIN supplychain.cargo_items i ON i.container_no = c.container_no"
        " GROUP BY v.ocean_region",
        {},
    ),
    "one voyage by code (key lookup)": (
        "SELECT * FROM supplychain.voyages WHERE voyage_code = :code",
        {"code": "ZZ-0000777"},
    ),
    "the cargo of one container (child by key)": (
        "SELECT item_id, description, quantity, unit_value_cents"
        " FROM supplychain.cargo_items WHERE container_no = :box",
        {"box": "BENU0000777"},
    ),
}


def scaled_rows(voyages: int) -> dict[str, list[tuple]]:
    """The demo rows with voyages (and what hangs off them) copied to ``voyages`` voyages."""
    base = generate()
    columns = {t.name: t.column_names for t in TABLES}
    rows = {name: list(base[name]) for name in ("carriers", "ports", "vessels")}
    copies = -(-voyages // len(base["voyages"]))
    out = {"voyages": [], "vessel_positions": [], "containers": [], "cargo_items": []}
    for copy in range(copies):
        ids: dict[int, int] = {}
        for row in base["voyages"]:
            named = dict(zip(columns["voyages"], row))
            if len(out["voyages"]) >= voyages:
                break
            new_id = len(out["voyages"]) + 1
            ids[named["voyage_id"]] = new_id
            named.update(voyage_id=new_id, voyage_code=f"ZZ-{new_id:07d}")
            out["voyages"].append(tuple(named[c] for c in columns["voyages"]))
        boxes: dict[str, str] = {}
        for row in base["containers"]:
            named = dict(zip(columns["containers"], row))
            if named["voyage_id"] not in ids:
                continue
            number = f"BENU{len(out['containers']) + 1:07d}"
            boxes[named["container_no"]] = number
            named.update(container_no=number, voyage_id=ids[named["voyage_id"]])
            out["containers"].append(tuple(named[c] for c in columns["containers"]))
        for row in base["cargo_items"]:
            named = dict(zip(columns["cargo_items"], row))
            if named["container_no"] not in boxes:
                continue
            named.update(
                item_id=len(out["cargo_items"]) + 1, container_no=boxes[named["container_no"]]
            )
            out["cargo_items"].append(tuple(named[c] for c in columns["cargo_items"]))
        for row in base["vessel_positions"]:
            named = dict(zip(columns["vessel_positions"], row))
            if named["voyage_id"] not in ids:
                continue
            named.update(
                position_id=len(out["vessel_positions"]) + 1, voyage_id=ids[named["voyage_id"]]
            )
            out["vessel_positions"].append(tuple(named[c] for c in columns["vessel_positions"]))
        del copy
    return {**rows, **out}


def median_ms(backend, sql: str, binds: dict, runs: int) -> tuple[float, int]:
    backend.readonly_query(sql, binds, max_rows=1000)  # warm: connection, statement cache
    times, rows = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        rows = len(backend.readonly_query(sql, binds, max_rows=1000).rows)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), rows


def refill_ms(owner, backend, runs: int) -> float:
    """The median wait of the first statement after a write (the copies are filled again)."""
    sql, binds = STATEMENTS["one voyage by code (key lookup)"]
    times = []
    for run in range(runs):
        step = 1 if run % 2 == 0 else -1  # a real change (a write of the same value is none)
        owner.execute(
            "UPDATE supplychain.voyages SET distance_nm = distance_nm + :d WHERE voyage_id = 1",
            {"d": step},
        )
        started = time.perf_counter()
        backend.readonly_query(sql, binds, max_rows=1000)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--voyages", type=int, default=10_000, help="voyages in the data set")
    parser.add_argument("--runs", type=int, default=30, help="timed runs per statement")
    args = parser.parse_args()
    print(f"load average at start: {_load()} ({os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory(prefix="bench-guardrails-") as folder:
        owner = EmbeddedBackend(Path(folder))
        owner.migrate()
        started = time.perf_counter()
        counts = owner.load_supplychain(TABLES, scaled_rows(args.voyages))
        print(
            f"data: {counts['voyages']:,} voyages, {counts['containers']:,} containers,"
            f" {counts['cargo_items']:,} cargo items, {counts['vessel_positions']:,} positions"
            f" (loaded in {time.perf_counter() - started:.1f} s); median of {args.runs} runs\n"
        )
        identities = {
            "policy: all regions + finance": Identity("bench", ("finance",), OCEAN_REGIONS),
            "policy: ATLANTIC, masked": Identity("bench", ("analyst",), ("ATLANTIC",)),
        }
        configs, opened = {"owner (no policy)": owner}, {}
        for name, identity in identities.items():
            started = time.perf_counter()
            configs[name] = EmbeddedBackend(Path(folder), identity)
            configs[name].readonly_query("SELECT 1", {}, max_rows=1)  # opens: fills the copies
            opened[name] = (time.perf_counter() - started) * 1000
        names = list(configs)
        header = "".join(f"{n:>32}" for n in names)
        print(f"{'statement':<46}{header}{'policy':>9}{'ATLANTIC':>10}")
        worst = 0.0
        for label, (sql, binds) in STATEMENTS.items():
            cells, medians = [], []
            for backend in configs.values():
                ms, n = median_ms(backend, sql, binds, args.runs)
                medians.append(ms)
                cells.append(f"{ms:9.3f} ms {n:>5} rows")
            overhead = medians[1] / medians[0] - 1
            restricted = medians[2] / medians[0] - 1
            worst = max(worst, overhead)
            row = "".join(f"{c:>32}" for c in cells)
            print(f"{label:<46}{row}{overhead:>+9.0%}{restricted:>+10.0%}")
        print("\nwhat the copies cost instead (when the connection opens, after each write):")
        for name in identities:
            refill = refill_ms(owner, configs[name], max(3, args.runs // 6))
            print(
                f"  {name:<32} open + fill {opened[name]:8.1f} ms;"
                f" first statement after a write {refill:8.1f} ms"
            )
        for backend in configs.values():
            backend.close()
    verdict = "met" if worst <= TARGET else "MISSED"
    print(f"\nworst policy overhead {worst:+.0%} (target <= {TARGET:.0%}): {verdict}")
    print(f"load average at end: {_load()}")
    return 0


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # not available on Windows
        return "n/a"


if __name__ == "__main__":
    raise SystemExit(main())
