"""The two ways measured to make an identity's policy cheap, side by side (issue 31's choice).

    .venv/bin/python bench/policy_candidates.py                 # 10,000 voyages, 41 rounds
    .venv/bin/python bench/policy_candidates.py --voyages 2000 --rounds 21

On the data of ``bench_guardrails.py`` (10,000 voyages), for an identity with every region and
``finance`` (the owner's rows: the difference is the policy), the statements of that script
run on plain SQLite connections, interleaved (one run of each way per round, so a burst of
load hits them all), in four ways:

* **owner**: TEMP views over the tables (what the owner's ``run_sql`` reads);
* **views**: the trusted views with a correlated ``EXISTS`` per row (the policy before);
* **carried region**: the voyage's region copied onto containers, vessel positions and cargo
  items (a new column, kept by triggers in a real schema: not built here, they cost nothing
  when reading) and views that test that column: one column test per row, no lookup;
* **copies**: the shipped design, filtered TEMP copies (:mod:`agent_harness.backends.embedded.
  copies`), filled once.

It prints the median and the minimum per statement (the minimum is the least disturbed by
other work on a shared machine) and each way's ratio to the owner's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import apsw

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_guardrails import STATEMENTS, scaled_rows  # noqa: E402

from agent_harness.backends.embedded import EmbeddedBackend  # noqa: E402
from agent_harness.backends.embedded.guard import IdentityGuard  # noqa: E402
from agent_harness.backends.roles.access_rules import ROW_POLICIES, region_predicate  # noqa: E402
from agent_harness.foundation.identity import Identity  # noqa: E402
from agent_harness.supplychain import TABLES  # noqa: E402
from agent_harness.supplychain.schema import OCEAN_REGIONS  # noqa: E402

EVERYONE = Identity("bench", ("finance",), OCEAN_REGIONS)
NAMES = [t.name for t in TABLES]
COLUMNS = {t.name: t.column_names for t in TABLES}


def connect(path: Path) -> apsw.Connection:
    conn = apsw.Connection(":memory:")
    conn.execute("ATTACH DATABASE ? AS supplychain", (str(path),))
    return conn


def owner(path: Path) -> apsw.Connection:
    conn = connect(path)
    for table in NAMES:
        conn.execute(f"CREATE TEMP VIEW {table} AS SELECT * FROM supplychain.{table}")
    return conn


def views(path: Path) -> apsw.Connection:
    conn = connect(path)
    IdentityGuard(EVERYONE).install(conn, NAMES)
    return conn


def copies(path: Path) -> apsw.Connection:
    conn = connect(path)
    IdentityGuard(EVERYONE, copies=True).install(conn, NAMES)
    return conn


def carry_region(source: Path, target: Path) -> None:
    """A copy of the data file whose child rows carry their voyage's region."""
    shutil.copy(source, target)
    conn = apsw.Connection(str(target))
    with conn:
        for table, rule in ROW_POLICIES.items():
            if rule.parent is None:
                continue
            conn.execute(f"ALTER TABLE {table} ADD COLUMN voyage_region TEXT")
            parent_region = "ocean_region" if rule.parent == "voyages" else "voyage_region"
            conn.execute(
                f"UPDATE {table} SET voyage_region = (SELECT p.{parent_region} FROM"
                f" {rule.parent} p WHERE p.{rule.parent_key} = {table}.{rule.column})"
            )
    conn.close()


def carried(path: Path) -> apsw.Connection:
    conn = connect(path)
    for table in NAMES:
        rule = ROW_POLICIES.get(table)
        if rule is None:
            conn.execute(f"CREATE TEMP VIEW {table} AS SELECT * FROM supplychain.{table}")
            continue
        column = "ocean_region" if rule.parent is None else "voyage_region"
        listed = ", ".join(f"t.{c}" for c in COLUMNS[table])  # the new column stays hidden
        conn.execute(
            f"CREATE TEMP VIEW {table} AS SELECT {listed} FROM supplychain.{table} t"
            f" WHERE {region_predicate(EVERYONE.regions, 't.' + column)}"
        )
    return conn


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--voyages", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=41, help="timed runs of each way")
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="policy-candidates-") as folder:
        backend = EmbeddedBackend(Path(folder))
        backend.migrate()
        backend.load_supplychain(TABLES, scaled_rows(args.voyages))
        backend.close()
        data = Path(folder) / "supplychain.db"
        carry_region(data, Path(folder) / "carried.db")
        ways = {
            "owner": owner(data),
            "views": views(data),
            "carried region": carried(Path(folder) / "carried.db"),
            "copies": copies(data),
        }
        print(f"{args.voyages:,} voyages; {args.rounds} interleaved rounds; ms and x owner\n")
        print(f"{'statement':<48}" + "".join(f"{w:>26}" for w in ways))
        for label, (sql, binds) in STATEMENTS.items():
            text = sql.replace("supplychain.", "")
            times: dict[str, list[float]] = {w: [] for w in ways}
            for conn in ways.values():
                conn.execute(text, binds).fetchall()  # warm
            for _ in range(args.rounds):
                for way, conn in ways.items():
                    started = time.perf_counter()
                    conn.execute(text, binds).fetchall()
                    times[way].append((time.perf_counter() - started) * 1000)
            med = {w: statistics.median(v) for w, v in times.items()}
            low = {w: min(v) for w, v in times.items()}
            cells = "".join(
                f"{med[w]:9.3f} {med[w] / med['owner']:4.2f}x | min {low[w] / low['owner']:4.2f}x"
                for w in ways
            )
            print(f"{label:<48}{cells}")
        for conn in ways.values():
            conn.close()
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
