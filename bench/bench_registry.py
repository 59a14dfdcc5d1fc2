"""The self-healing registry's costs: telemetry per call, and stats + OODA over 1M rows.

    python bench/bench_registry.py                 # embedded, 2,000 calls, 1,000,000 rows
    python bench/bench_registry.py --calls 500 --rows 100000

1. **Overhead per call**: a trivial tool called ``--calls`` times through ``h.tools.call`` with
   the call hooks (telemetry row + circuit-breaker check) and without them; the difference of
   the medians is what telemetry and the breaker cost a call (target: <= 1 ms p50).
2. **Stats and OODA at scale**: ``--rows`` telemetry rows spread over every registered tool
   (bulk-inserted, timestamps over the last hour), then ``h.tools.stats()`` and a whole OODA
   pass (observe, orient, decide, act, prune). The first pass prunes what the retention policy
   says (older than 30 days or beyond 20,000 rows per tool); the steady-state pass after it is
   the one that runs every ``ooda_every_calls`` calls (target: < 1 s).
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import agent_harness  # noqa: E402
from agent_harness.backends.roles import TELEMETRY_COLUMNS  # noqa: E402
from agent_harness.tools import Tool  # noqa: E402


def echo(n: int = 0) -> dict:
    """Return its argument (a tool that costs nothing).

    Args:
        n: Any number.
    """
    return {"n": n}


def _time_calls(h, calls: int) -> list[float]:
    times = []
    for i in range(calls):
        started = time.perf_counter()
        h.tools.call("echo", {"n": i})
        times.append((time.perf_counter() - started) * 1000)
    return times


def overhead(h, calls: int) -> None:
    h.tools.add(Tool.from_function(echo, category="general"))
    h.tools.set_policy(ooda_every_calls=0)
    hooks = list(h.tools.hooks)
    _time_calls(h, 200)  # warm up
    with_hooks = _time_calls(h, calls)
    h.tools.hooks = []
    without = _time_calls(h, calls)
    h.tools.hooks = hooks
    p50_with, p50_without = statistics.median(with_hooks), statistics.median(without)
    q = statistics.quantiles
    print(f"per call, {calls} calls of a trivial tool through h.tools.call:")
    print(
        f"  with telemetry + breaker hooks: p50 {p50_with:.3f} ms, p95 "
        f"{q(with_hooks, n=20)[-1]:.3f} ms"
    )
    print(
        f"  without hooks:                  p50 {p50_without:.3f} ms, p95 "
        f"{q(without, n=20)[-1]:.3f} ms"
    )
    print(
        f"  overhead of the hooks:          p50 {p50_with - p50_without:.3f} ms  (target <= 1 ms)"
    )


def fill(h, rows: int) -> float:
    names = h.tools.names()
    rng = random.Random(42)
    now = dt.datetime.now(dt.timezone.utc)
    conn = h.backend.conn
    started = time.perf_counter()
    placeholders = ", ".join("?" for _ in TELEMETRY_COLUMNS)
    batch = []
    with conn:
        for i in range(rows):
            name = names[i % len(names)]
            ok = rng.random() > 0.05
            at = now - dt.timedelta(seconds=3600 * (rows - i) / rows)
            batch.append(
                (
                    name,
                    f"call_{i}",
                    "function",
                    "bench",
                    None,
                    None,
                    "{}",
                    int(ok),
                    None if ok else "OSError",
                    None if ok else "boom",
                    rng.lognormvariate(3, 1),
                    100,
                    at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z",
                )
            )
            if len(batch) == 50_000:
                conn.executemany(
                    f"INSERT INTO tool_telemetry ({', '.join(TELEMETRY_COLUMNS)})"
                    f" VALUES ({placeholders})",
                    batch,
                )
                batch = []
        if batch:
            conn.executemany(
                f"INSERT INTO tool_telemetry ({', '.join(TELEMETRY_COLUMNS)})"
                f" VALUES ({placeholders})",
                batch,
            )
    return time.perf_counter() - started


def at_scale(h, rows: int) -> None:
    seconds = fill(h, rows)
    total = h.backend.query("SELECT COUNT(*) AS n FROM tool_telemetry")[0]["n"]
    print(f"\n{total:,} telemetry rows ({seconds:.1f} s to insert), {len(h.tools.names())} tools:")
    runs = []
    for _ in range(5):
        started = time.perf_counter()
        stats = h.tools.stats()
        runs.append((time.perf_counter() - started) * 1000)
    print(
        f"  h.tools.stats() (one statement): median {statistics.median(runs):.1f} ms over 5"
        f" runs; {sum(r['calls'] for r in stats)} calls in the windows"
    )
    first = h.tools.ooda()
    print(
        f"  first OODA pass (prunes {first.pruned:,} rows beyond the retention):"
        f" {first.duration_ms:.0f} ms"
    )
    passes = [h.tools.ooda().duration_ms for _ in range(5)]
    print(
        f"  OODA pass, steady state: median {statistics.median(passes):.1f} ms over 5 passes"
        f"  (target < 1000 ms)"
    )
    dry = [h.tools.ooda(dry_run=True).duration_ms for _ in range(5)]
    print(f"  OODA dry run (observe + orient + decide): median {statistics.median(dry):.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        h = agent_harness.connect(backend="embedded", data_dir=folder)
        print(h.describe())
        overhead(h, args.calls)
        at_scale(h, args.rows)
        h.close()


if __name__ == "__main__":
    main()
