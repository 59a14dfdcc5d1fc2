"""MCP cost on this machine: what a tool call costs through `workshop mcp` and through a tool of
type ``mcp`` (a short client session per call), compared with a direct ``h.tools.call``.

Run: ``.venv/bin/python bench/bench_mcp.py`` (embedded backend, the project's .workshop data;
prepares it on first use). Prints median milliseconds per call over N calls.
"""

from __future__ import annotations

import socket
import statistics
import tempfile
import threading
import time

import anyio
from mcp import Client

import agent_harness
from agent_harness.mcp.server import HarnessMcpServer
from agent_harness.mcp.serving import serve_http
from agent_harness.mcp.toolset import McpToolSet

N = 30
ARGS = {"sql": "SELECT COUNT(*) AS n FROM supplychain.vessels"}


def _median_ms(fn, n=N) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    h = agent_harness.connect()
    direct = _median_ms(lambda: h.tools.call("run_sql", ARGS))
    print(f"direct h.tools.call('run_sql'):           {direct:7.2f} ms")

    server = HarnessMcpServer(McpToolSet(h))

    async def in_process():
        async with Client(server) as client:
            times = []
            for _ in range(N):
                start = time.perf_counter()
                await client.call_tool("run_sql", ARGS)
                times.append((time.perf_counter() - start) * 1000)
            return statistics.median(times)

    print(f"MCP in process (one session):             {anyio.run(in_process):7.2f} ms")

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started, handle = threading.Event(), {}
    threading.Thread(
        target=serve_http,
        args=(h,),
        kwargs={
            "port": port,
            "ready": lambda stop, url: (handle.update(stop=stop), started.set()),
        },
        daemon=True,
    ).start()
    started.wait(30)
    url = f"http://127.0.0.1:{port}/mcp"

    async def over_http():
        async with Client(url) as client:
            times = []
            for _ in range(N):
                start = time.perf_counter()
                await client.call_tool("run_sql", ARGS)
                times.append((time.perf_counter() - start) * 1000)
            return statistics.median(times)

    print(f"MCP over loopback HTTP (one session):     {anyio.run(over_http):7.2f} ms")

    with tempfile.TemporaryDirectory() as folder:
        other = agent_harness.connect(data_dir=folder)
        other.tools.import_mcp(url, prefix="remote_", names=["run_sql"])
        per_call = _median_ms(lambda: other.tools.call("remote_run_sql", ARGS), n=10)
        print(f"tool of type mcp (a session per call):    {per_call:7.2f} ms")
        other.close()
    handle["stop"]()


if __name__ == "__main__":
    main()
