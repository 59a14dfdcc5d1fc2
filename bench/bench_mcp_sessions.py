"""`workshop mcp --http` as a multi-client service: does a slow call hold up other sessions, and
does the server's memory grow with the calls it has served?

1. **Fast calls next to a slow one**: 8 HTTP sessions (handshake era, one ``Mcp-Session-Id``
   each) call a fast tool (``run_sql SELECT 1``) while a 9th session runs a 5 s ``exec_js``
   busy loop; p50 / p95 / max of the fast calls that overlapped it, next to the same 8
   sessions with nothing slow running. Twice: *paced* (each session calls, then waits
   ``--pause`` 0.1 s: a fast call's wait is what the slow call adds) and *flat out* (each
   session calls again at once: the server is saturated, latency is queueing on the cores).
2. **A fast lane beside 8 slow calls** (issue 27): 8 ``exec_js`` calls sleeping ``--seconds``
   fill the server's slow places (two sessions of 4: the most one client may run at once)
   while one more session calls ``run_sql SELECT 1`` every ``--pause`` s: the fast call's
   p50 / p95 / max (target: p95 < 100 ms). Then the same on the 2026-07-28 protocol without a
   token, where every caller is ``anonymous``: the slow calls come from one anonymous client,
   the fast ones from another (they are told apart by connection).
3. **Memory per call**: the server's resident set size (``VmRSS`` of its process) after a
   warm-up, then after every 500 calls of 3 sessions (new sessions each round).

The server is a real ``workshop mcp --http`` process on a free loopback port, over the
project's data (embedded backend; prepared on first use). Run:
``.venv/bin/python bench/bench_mcp_sessions.py [--seconds 5] [--sessions 8] [--calls 1500]``
(``--lanes-only``: part 2 alone).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
from mcp import Client

FAST = {"sql": "SELECT 1 AS one"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start() -> tuple[subprocess.Popen, str]:
    port = _free_port()
    workshop = Path(sys.executable).with_name("workshop")
    process = subprocess.Popen(
        [str(workshop), "mcp", "--http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(1200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("workshop mcp --http did not start within 120 s")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q * len(ordered) + 0.5) - 1))]


async def _fast_calls(url: str, sessions: int, until, pause: float) -> list[float]:
    """Each session calls the fast tool (then sleeps ``pause`` s) until ``until()`` is true;
    the latencies in ms."""
    timings: list[float] = []
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(Client(url, mode="legacy")) for _ in range(sessions)
        ]
        for client in clients:  # warm: session open, first call done
            await client.call_tool("run_sql", FAST)

        async def loop(client):
            while not until():
                start = time.perf_counter()
                result = await client.call_tool("run_sql", FAST)
                timings.append((time.perf_counter() - start) * 1000)
                assert not result.is_error, result.content[0].text
                await anyio.sleep(pause)

        async with anyio.create_task_group() as tasks:
            for client in clients:
                tasks.start_soon(loop, client)
    return timings


async def _with_slow_call(
    url: str, sessions: int, seconds: float, pause: float
) -> tuple[list[float], float]:
    code = f"const t = Date.now(); while (Date.now() - t < {seconds * 1000:.0f}) {{}} 'done'"
    state = {"done": False, "slow_s": 0.0}

    async def slow():
        async with Client(url, mode="legacy") as client:
            await anyio.sleep(0.5)  # the fast sessions are open and calling
            start = time.perf_counter()
            result = await client.call_tool("exec_js", {"code": code, "timeout_ms": 10_000})
            state["slow_s"] = time.perf_counter() - start
            assert not result.is_error, result.content[0].text
        state["done"] = True

    timings: list[float] = []

    async def fast():
        timings.extend(await _fast_calls(url, sessions, lambda: state["done"], pause))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(slow)
        tasks.start_soon(fast)
    return timings, state["slow_s"]


async def _beside_slow_calls(
    url: str, seconds: float, pause: float, mode: str, slow_calls: int = 8
) -> list[float]:
    """A fast call's latencies (ms) while 8 slow exec_js calls run (each sleeps ``seconds`` in
    ``Atomics.wait``: slow without burning a core, so the figure is about places, not CPU)."""
    code = (
        "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0,"
        f" {seconds * 1000:.0f}); 'done'"
    )
    slow_clients = 2 if mode == "legacy" else 1
    running = {"slow": 0, "done": 0}
    timings: list[float] = []
    async with AsyncExitStack() as stack:
        slow = [
            await stack.enter_async_context(Client(url, mode=mode)) for _ in range(slow_clients)
        ]
        fast = await stack.enter_async_context(Client(url, mode=mode))
        await fast.call_tool("run_sql", FAST)
        async with anyio.create_task_group() as warm:  # the 8 JavaScript workers started
            for i in range(8):
                warm.start_soon(slow[i % slow_clients].call_tool, "exec_js", {"code": "1"})

        async def one_slow(client):
            running["slow"] += 1
            result = await client.call_tool("exec_js", {"code": code, "timeout_ms": 10_000})
            assert not result.is_error, result.content[0].text
            running["done"] += 1

        async with anyio.create_task_group() as tasks:
            for i in range(slow_calls):
                tasks.start_soon(one_slow, slow[i % slow_clients])
            await anyio.sleep(0.3)  # every slow call has started
            end = time.monotonic() + seconds
            while running["done"] == 0 and (slow_calls or time.monotonic() < end):
                start = time.perf_counter()
                result = await fast.call_tool("run_sql", FAST)
                timings.append((time.perf_counter() - start) * 1000)
                assert not result.is_error, result.content[0].text
                await anyio.sleep(pause)
    return timings


async def _baseline(url: str, sessions: int, seconds: float, pause: float) -> list[float]:
    end = time.monotonic() + seconds
    return await _fast_calls(url, sessions, lambda: time.monotonic() > end, pause)


async def _rounds(url: str, pid: int, calls: int) -> list[tuple[int, float]]:
    """RSS after each 500 calls, made by 3 new sessions per round."""
    done, points = 0, []
    while done < calls:
        async with AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(Client(url, mode="legacy")) for _ in range(3)
            ]
            for i in range(500):
                await clients[i % 3].call_tool("run_sql", FAST)
        done += 500
        await anyio.sleep(0.5)
        points.append((done, _rss_mb(pid)))
    return points


def _line(name: str, timings: list[float]) -> str:
    return (
        f"{name:<34} n={len(timings):5d}  p50={statistics.median(timings):7.1f} ms"
        f"  p95={_p(timings, 0.95):7.1f} ms  max={max(timings):7.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="length of the slow call")
    parser.add_argument("--sessions", type=int, default=8, help="sessions making fast calls")
    parser.add_argument("--calls", type=int, default=1500, help="calls for the memory rounds")
    parser.add_argument("--pause", type=float, default=0.1, help="paced: seconds between calls")
    parser.add_argument("--lanes-only", action="store_true", help="only part 2 (the fast lane)")
    args = parser.parse_args()
    process, url = _start()
    try:
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"server: {url} (pid {process.pid}); {os.cpu_count()} CPU cores, load {load}")
        for label, pause in () if args.lanes_only else (("paced", args.pause), ("flat out", 0.0)):
            base = anyio.run(_baseline, url, args.sessions, args.seconds, pause)
            print(_line(f"{label}: {args.sessions} sessions alone", base))
            timings, slow_s = anyio.run(_with_slow_call, url, args.sessions, args.seconds, pause)
            print(_line(f"{label}: beside a {args.seconds:g} s call", timings))
            print(f"{'  (the slow exec_js call took':<34} {slow_s:.2f} s)")
        for mode in ("legacy", "2026-07-28"):
            alone = anyio.run(_beside_slow_calls, url, args.seconds, args.pause, mode, 0)
            print(_line(f"fast call alone ({mode})", alone))
            timings = anyio.run(_beside_slow_calls, url, args.seconds, args.pause, mode)
            print(_line(f"fast call beside 8 slow ({mode})", timings))
        if args.lanes_only:
            return
        start = _rss_mb(process.pid)
        print(f"RSS after warm-up: {start:.1f} MB")
        for done, rss in anyio.run(_rounds, url, process.pid, args.calls):
            print(
                f"RSS after {done:5d} more calls (3 new sessions per 500): {rss:.1f} MB"
                f" ({rss - start:+.1f} MB)"
            )
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    main()
