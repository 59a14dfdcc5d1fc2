"""The MCP server as a multi-client service (issue 18): each session (or credential) has its
own disclosure, one list_changed per change per session and no session kept after it closed,
changes made elsewhere or by the clock are announced, calls of different sessions run side by
side, a bearer token keeps strangers out, and the smaller promises (openWorldHint, clear
errors for crashed servers, busy ports and foreign hosts)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from contextlib import AsyncExitStack

import anyio
import httpx
import httpx2
import mcp_types as types
import pytest
from conftest import FakeClock
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from agent_harness.mcp.server import HarnessMcpServer
from agent_harness.mcp.serving import PortInUse, bind, serve_http
from agent_harness.mcp.toolset import McpToolSet
from tests.ports import free_port as _free_port

TOKEN = "test-token-" + "x" * 16
SLOW_JS = "const t = Date.now(); while (Date.now() - t < 2500) {} 'done'"


@pytest.fixture(scope="module")
def h(embedded_harness):
    """The MCP server is backend-neutral: its tests run on the embedded backend only."""
    return embedded_harness


def run(coro_fn, *args):
    return anyio.run(coro_fn, *args)


class Served:
    """``serve_http`` in a thread with a server of the test's choosing."""

    def __init__(self, h, server: HarnessMcpServer, tokens=None):
        self.server, started, handle = server, threading.Event(), {}

        def ready(stop, url):
            handle.update(stop=stop, url=url)
            started.set()

        self.thread = threading.Thread(
            target=serve_http,
            args=(h,),
            kwargs={"port": 0, "ready": ready, "server": server, "tokens": tokens},
            daemon=True,
        )
        self.thread.start()
        assert started.wait(30), "the MCP HTTP server did not start"
        self.url, self._stop = handle["url"], handle["stop"]

    def stop(self):
        self._stop()
        self.thread.join(10)


@pytest.fixture
def agent_http(h):
    served = Served(h, HarnessMcpServer(McpToolSet(h, agent="supplychain-analyst")))
    yield served
    served.stop()


@pytest.fixture
def open_http(h):
    served = Served(h, HarnessMcpServer(McpToolSet(h), poll_seconds=0.2))
    yield served
    served.stop()


def _names(listed) -> list[str]:
    return [t.name for t in listed.tools]


class Notes:
    """Collects the list_changed notifications a client receives."""

    def __init__(self):
        self.count = 0

    async def __call__(self, message):
        if isinstance(message, Exception):
            raise message
        root = getattr(message, "root", message)
        if isinstance(root, types.ToolListChangedNotification):
            self.count += 1


async def _until(predicate, seconds=10.0):
    with anyio.move_on_after(seconds):
        while not predicate():
            await anyio.sleep(0.05)
    return predicate()


# --- item 1: what a session unlocks is its own ---------------------------------------------------
def test_one_sessions_unlocks_are_not_another_sessions(agent_http):
    async def go():
        async with Client(agent_http.url, mode="legacy") as a:
            async with Client(agent_http.url, mode="legacy") as b:
                await b.call_tool("load_skill", {"name": "calculations-with-exec-js"})
                b_names = _names(await b.list_tools())
                a_names = _names(await a.list_tools())
                a_runs = await a.call_tool("exec_js", {"code": "40 + 2"})
                b_runs = await b.call_tool("exec_js", {"code": "40 + 2"})
            async with Client(agent_http.url, mode="legacy") as later:
                later_names = _names(await later.list_tools())
        return b_names, a_names, a_runs, b_runs, later_names

    b_names, a_names, a_runs, b_runs, later_names = run(go)
    assert "exec_js" in b_names and not b_runs.is_error
    assert "exec_js" not in a_names and "exec_js" not in later_names
    assert a_runs.is_error and "is not available" in a_runs.content[0].text


def test_on_2026_07_28_the_credential_holds_the_disclosure(h):
    """No sessions on the modern protocol: each token is a credential with its own unlocks;
    clients presenting the same token share them (tools/list may vary per credential only)."""
    served = Served(
        h, HarnessMcpServer(McpToolSet(h, agent="supplychain-analyst")), [TOKEN, TOKEN + "2"]
    )

    def client(token):
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
        return Client(streamable_http_client(served.url, http_client=http))

    async def go():
        async with client(TOKEN) as one, client(TOKEN + "2") as two:
            await one.call_tool("load_skill", {"name": "calculations-with-exec-js"})
            one_names, two_names = _names(await one.list_tools()), _names(await two.list_tools())
        async with client(TOKEN) as same:
            same_names = _names(await same.list_tools())
        return one_names, two_names, same_names

    try:
        one_names, two_names, same_names = run(go)
    finally:
        served.stop()
    assert "exec_js" in one_names and "exec_js" not in two_names
    assert "exec_js" in same_names  # the same credential, on a new connection


# --- item 3: one notification per change per session; sessions pruned on close ------------------
def test_one_list_changed_per_change_and_closed_sessions_are_forgotten(h, open_http):
    notes = Notes()
    server = open_http.server

    async def go():
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(
                Client(open_http.url, mode="legacy", message_handler=notes)
            )
            await client.list_tools()
            for _ in range(10):
                await client.call_tool("run_sql", {"sql": "SELECT 1 AS one"})
            for _ in range(2):
                other = await stack.enter_async_context(Client(open_http.url, mode="legacy"))
                for _ in range(20):
                    await other.call_tool("scratch_list", {})
            sessions_open = len(server.clients)
            await anyio.to_thread.run_sync(h.tools.disable, "port_distance", "test: one notice")
            await _until(lambda: notes.count >= 1)
            await anyio.sleep(1.5)  # time for any duplicate to arrive
        await _until(lambda: len(server.clients) == 0, 5)
        return sessions_open, len(server.clients)

    try:
        sessions_open, after = run(go)
    finally:
        h.tools.enable("port_distance")
    assert notes.count == 1
    assert sessions_open == 3 and after == 0


def test_the_session_set_is_bounded(h):
    server = HarnessMcpServer(McpToolSet(h), max_clients=3)

    async def go():
        for _ in range(6):
            async with Client(server, mode="legacy") as client:
                await client.list_tools()
        return len(server.clients)

    assert run(go) <= 3


# --- item 4: changes made elsewhere or by the clock are announced -------------------------------
def test_another_process_disabling_or_defining_a_tool_is_announced(h, open_http):
    notes = Notes()
    name = f"elsewhere_{uuid.uuid4().hex[:6]}"
    script = textwrap.dedent(
        f"""
        import agent_harness
        h = agent_harness.connect(backend="embedded", data_dir={str(h.backend.data_dir)!r})
        h.tools.{{what}}
        h.close()
        """
    )

    def elsewhere(what):
        done = subprocess.run(
            [sys.executable, "-c", script.replace("{what}", what)],
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stderr[-2000:]

    async def go():
        async with Client(open_http.url, mode="legacy", message_handler=notes) as client:
            await client.list_tools()
            await anyio.to_thread.run_sync(elsewhere, "disable('voyage_status', 'other process')")
            disabled = await _until(lambda: notes.count >= 1)
            names_disabled = _names(await client.list_tools())
            definition = (
                f"define({name!r}, 'Says hello.', {{'type': 'object', 'properties': {{}}}},"
                " {'type': 'javascript', 'source': \"return 'hello';\"})"
            )
            await anyio.to_thread.run_sync(elsewhere, definition)
            defined = await _until(lambda: notes.count >= 2)
            names_defined = _names(await client.list_tools())
            hello = await client.call_tool(name, {})
        return disabled, names_disabled, defined, names_defined, hello

    try:
        disabled, names_disabled, defined, names_defined, hello = run(go)
    finally:
        h.tools.enable("voyage_status")
        h.tools.undefine(name)
    assert disabled and "voyage_status" not in names_disabled
    assert defined and name in names_defined and hello.content[0].text == "hello"


def test_the_end_of_a_cool_down_is_announced(h, open_http):
    notes = Notes()
    clock, saved = FakeClock(), h.tools.clock
    h.tools.clock = clock

    async def go():
        async with Client(open_http.url, mode="legacy", message_handler=notes) as client:
            await client.list_tools()
            h.tools.breaker.change("hs_code_lookup", "open", "test: failing", actor="test")
            opened = await _until(lambda: notes.count >= 1)
            listed_open = _names(await client.list_tools())
            clock.advance(61)  # the cool-down (60 s) is over: half-open, offered again
            reopened = await _until(lambda: notes.count >= 2)
            listed_after = _names(await client.list_tools())
        return opened, listed_open, reopened, listed_after

    try:
        opened, listed_open, reopened, listed_after = run(go)
    finally:
        h.tools.clock = saved
        h.tools.enable("hs_code_lookup")
    assert opened and "hs_code_lookup" not in listed_open
    assert reopened and "hs_code_lookup" in listed_after


# --- item 6: a slow call of one session does not hold up another's -----------------------------
def test_a_fast_call_does_not_wait_behind_a_slow_one(open_http):
    async def go():
        timings = []
        async with Client(open_http.url) as slow_client, Client(open_http.url) as fast_client:
            await fast_client.call_tool("run_sql", {"sql": "SELECT 1 AS one"})  # warm

            async def slow():
                result = await slow_client.call_tool(
                    "exec_js", {"code": SLOW_JS, "timeout_ms": 5000}
                )
                assert not result.is_error, result.content[0].text

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(slow)
                await anyio.sleep(0.3)
                for _ in range(5):
                    start = time.perf_counter()
                    await fast_client.call_tool("run_sql", {"sql": "SELECT 1 AS one"})
                    timings.append(time.perf_counter() - start)
        return timings

    timings = run(go)
    assert max(timings) < 1.0, timings  # the slow call runs 2.5 s (tens of ms measured: bench/)


# --- item 9: the smaller promises -----------------------------------------------------------------
def test_the_live_feed_is_marked_open_world(h):
    async def go():
        async with Client(HarnessMcpServer(McpToolSet(h))) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    tools = run(go)
    assert tools["ais_live_position"].annotations.open_world_hint is True
    assert tools["vessel_position"].annotations.open_world_hint is False


def test_load_skill_errors_name_the_agents_skills_in_agent_mode(h):
    async def go():
        async with Client(HarnessMcpServer(McpToolSet(h, agent="supplychain-analyst"))) as c:
            return await c.call_tool("load_skill", {"name": "no-such-playbook"})

    result = run(go)
    text = result.content[0].text
    assert result.is_error and "list_skills" not in text
    assert "vessel-location-and-eta" in text and "supplychain-analyst" in text


def test_a_crashed_outside_server_is_named_with_its_exit_code_and_stderr(harness):
    crash = [
        sys.executable,
        "-c",
        "import sys; sys.stderr.write('boom: no config\\n'); sys.exit(3)",
    ]
    harness.tools.define(
        "remote_crash",
        "A tool of a server that crashes.",
        {"type": "object", "properties": {}},
        {"type": "mcp", "server": crash, "tool": "x"},
        timeout_s=20,
    )
    try:
        result = harness.tools.call_detailed("remote_crash", {})
    finally:
        harness.tools.undefine("remote_crash")
    error = json.loads(result.output)["error"]
    assert result.error_type == "upstream_error" and result.success is False
    assert "exited with code 3" in error and "boom: no config" in error and "sys.exit(3)" in error
    assert "ExceptionGroup" not in error and "TaskGroup" not in error


IMAGE_SERVER = textwrap.dedent(
    """
    import anyio, mcp_types as types
    from mcp.server.lowlevel.server import Server
    from mcp.server.stdio import stdio_server

    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=[types.Tool(
            name="chart", description="A chart.", input_schema={"type": "object"})])

    async def call_tool(ctx, params):
        return types.CallToolResult(content=[
            types.TextContent(type="text", text="the chart:"),
            types.ImageContent(type="image", data="aGVsbG8=", mime_type="image/png")])

    server = Server("images", on_list_tools=list_tools, on_call_tool=call_tool)

    async def main():
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
    """
)


def test_non_text_content_from_an_imported_tool_is_named(harness):
    report = harness.tools.import_mcp([sys.executable, "-c", IMAGE_SERVER], prefix="img_")
    try:
        assert report["imported"] == ["img_chart"]
        text = harness.tools.call("img_chart", {})
    finally:
        harness.tools.undefine("img_chart")
    assert (
        "the chart:" in text and "[image content (image/png, 8 bytes of base64) not shown]" in text
    )


def _workshop(*args, timeout=120):
    from pathlib import Path

    workshop = Path(sys.executable).with_name("workshop")
    return subprocess.run([str(workshop), *args], capture_output=True, text=True, timeout=timeout)


def test_a_port_in_use_is_one_clear_line(h):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        with pytest.raises(PortInUse, match=f"port {port} on 127.0.0.1 is in use"):
            bind("127.0.0.1", port)
        done = _workshop("mcp", "--http", "--port", str(port))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert lines == [
        f"Error: port {port} on 127.0.0.1 is in use (another `workshop mcp --http`?):"
        " stop it, or choose another port with --port"
    ]


def test_a_foreign_host_is_refused_before_any_url_is_printed():
    done = _workshop("mcp", "--http", "--host", "0.0.0.0", "--port", str(_free_port()))
    assert done.returncode != 0 and "loopback only" in done.stderr
    assert "http://" not in done.stderr + done.stdout and "Traceback" not in done.stderr


# --- item 10: a bearer token keeps strangers out --------------------------------------------------
def test_a_token_is_required_when_given(h):
    served = Served(h, HarnessMcpServer(McpToolSet(h)), [TOKEN])
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "curl", "version": "1"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}
    try:
        stranger = httpx.post(served.url, json=initialize, headers=headers, timeout=10)
        wrong = httpx.post(
            served.url,
            json=initialize,
            headers={**headers, "Authorization": "Bearer " + "y" * 30},
            timeout=10,
        )

        async def go():
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"})
            async with Client(streamable_http_client(served.url, http_client=http)) as client:
                return await client.call_tool("run_sql", {"sql": "SELECT 1 AS one"})

        allowed = run(go)
    finally:
        served.stop()
    assert stranger.status_code == 401 and wrong.status_code == 401
    assert "www-authenticate" in stranger.headers
    assert not allowed.is_error


def test_tokens_come_from_the_flag_or_the_environment():
    from agent_harness.mcp.auth import tokens_from

    assert tokens_from([TOKEN], {}) == [TOKEN]
    assert tokens_from([], {"WORKSHOP_MCP_TOKEN": f"{TOKEN}, {TOKEN}2"}) == [TOKEN, TOKEN + "2"]
    assert tokens_from([], {}) == []
    with pytest.raises(ValueError, match="at least 16 characters"):
        tokens_from(["short"], {})
    done = _workshop("mcp", "--http", "--token", "short", "--port", str(_free_port()))
    assert done.returncode != 0 and "at least 16 characters" in done.stderr
