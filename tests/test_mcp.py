"""MCP both ways, with the SDK's own client: `workshop mcp` serves the registry (in process,
over loopback streamable HTTP and over stdio), tells clients when the tool set changes (both
protocol eras), never lets a client run a tool it was not listed; and the registry imports the
tools of an MCP server as tools of type ``mcp``."""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from agent_harness.mcp.server import HarnessMcpServer
from agent_harness.mcp.serving import serve_http
from agent_harness.mcp.toolset import McpToolSet
from tests.ports import free_port as _free_port

COUNT_SQL = {"sql": "SELECT COUNT(*) AS n FROM supplychain.vessels"}


@pytest.fixture(scope="module")
def h(tmp_path_factory, template):
    """A harness of this module's own, on the embedded backend only: the MCP server is
    backend-neutral, so these tests have no Oracle variant (one that skipped itself would be
    collected in the Oracle job and run nowhere)."""
    import agent_harness

    data_dir = tmp_path_factory.mktemp("mcp-embedded")
    shutil.copytree(template, data_dir, dirs_exist_ok=True)
    harness = agent_harness.connect(backend="embedded", data_dir=data_dir)
    yield harness
    harness.close()


def run(coro_fn, *args):
    return anyio.run(coro_fn, *args)


@pytest.fixture(scope="module")
def http_server(h):
    """`serve_http` on a free loopback port in a thread: (url, server thread)."""
    port, started, handle = _free_port(), threading.Event(), {}

    def ready(stop, url):
        handle["stop"] = stop
        started.set()

    thread = threading.Thread(
        target=serve_http, args=(h,), kwargs={"port": port, "ready": ready}, daemon=True
    )
    thread.start()
    assert started.wait(30), "the MCP HTTP server did not start"
    yield f"http://127.0.0.1:{port}/mcp"
    handle["stop"]()
    thread.join(10)


def test_lists_the_registry_tools_with_their_schemas(h):
    server = HarnessMcpServer(McpToolSet(h))

    async def go():
        async with Client(server) as client:
            assert client.server_capabilities.tools.list_changed is True
            return (await client.list_tools()).tools

    tools = {t.name: t for t in run(go)}
    assert set(tools) == set(h.tools.names()) - h.tools.open_tools()
    by_name = {s["function"]["name"]: s["function"] for s in h.tools.schemas()}
    for name, tool in tools.items():
        assert tool.input_schema == by_name[name]["parameters"], name
        assert tool.description == by_name[name]["description"], name
    assert tools["run_sql"].annotations.read_only_hint is True


def test_a_call_gives_what_the_registry_gives_and_errors_are_results(h):
    server = HarnessMcpServer(McpToolSet(h))

    async def go():
        async with Client(server) as client:
            ok = await client.call_tool("run_sql", COUNT_SQL)
            bad = await client.call_tool("run_sql", {"sqlx": "SELECT 1"})
            hostile = await client.call_tool("run_sql", {"sql": "DROP TABLE supplychain.ports"})
            return ok, bad, hostile

    ok, bad, hostile = run(go)
    assert not ok.is_error and ok.content[0].text == h.tools.call("run_sql", COUNT_SQL)
    assert ok.structured_content == json.loads(h.tools.call("run_sql", COUNT_SQL))
    assert bad.is_error and "missing required argument 'sql'" in bad.content[0].text
    assert hostile.is_error and "error" in json.loads(hostile.content[0].text)
    assert h.backend.query("SELECT COUNT(*) AS n FROM supplychain.ports")[0]["n"] > 0


def test_zero_leaks_no_tool_that_is_not_listed_runs(h):
    listed = ["vessel_position", "run_sql"]
    toolset = McpToolSet(h, only=listed)
    server = HarnessMcpServer(toolset)
    others = [n for n in h.tools.names() if n not in listed]
    assert len(others) > 20
    before = h.tools.telemetry(limit=100000)
    last_id = max((r["id"] for r in before), default=0)

    async def go():
        async with Client(server) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            results = [await client.call_tool(n, {}) for n in others]
            return names, results

    names, results = run(go)
    assert names == listed
    for name, result in zip(others, results, strict=True):
        assert result.is_error, name
        assert "not available" in result.content[0].text, (name, result.content[0].text)
    ran = [r for r in h.tools.telemetry(after_id=last_id) if r["success"] is not None]
    assert ran == [], "a tool that was not listed ran"


def test_an_open_tool_is_not_listed_and_is_refused(h):
    server = HarnessMcpServer(McpToolSet(h))
    h.tools.disable("port_congestion", reason="test: feed maintenance")
    try:

        async def go():
            async with Client(server) as client:
                names = [t.name for t in (await client.list_tools()).tools]
                return names, await client.call_tool("port_congestion", {"port": "NLRTM"})

        names, refused = run(go)
    finally:
        h.tools.enable("port_congestion")
    assert "port_congestion" not in names
    text = refused.content[0].text  # the breaker's refusal: why, until when, what instead
    assert refused.is_error and "switched off" in text and "feed maintenance" in text
    assert "stays off until someone enables it" in text and "Use instead:" in text


def test_unknown_names_in_only_are_refused_clearly(h):
    with pytest.raises(ValueError, match="unknown tools \\['no_such_tool'\\]"):
        McpToolSet(h, only=["run_sql", "no_such_tool"])


def _changes(h, url_or_server, mode, act):
    """Connect, then ``act()`` in a worker thread; return the list-changed signals received
    within 10 s and the tool names listed afterwards."""
    seen = []

    async def on_message(message):
        if isinstance(message, types.ServerNotification | types.ToolListChangedNotification):
            root = getattr(message, "root", message)
            if isinstance(root, types.ToolListChangedNotification):
                seen.append("notification")

    async def go():
        async with Client(url_or_server, mode=mode, message_handler=on_message) as client:
            await client.list_tools()
            if mode == "legacy":
                await anyio.to_thread.run_sync(act)
                with anyio.move_on_after(10):
                    while not seen:
                        await anyio.sleep(0.05)
            else:
                async with client.listen(tools_list_changed=True) as subscription:
                    await anyio.to_thread.run_sync(act)
                    with anyio.move_on_after(10):
                        async for event in subscription:
                            seen.append(type(event).__name__)
                            break
            return [t.name for t in (await client.list_tools()).tools]

    return seen, run(go)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_list_changed_reaches_the_client_when_a_breaker_opens(h, http_server, mode):
    try:
        seen, names = _changes(
            h, http_server, mode, lambda: h.tools.disable("voyages_between", "test: outage")
        )
    finally:
        h.tools.enable("voyages_between")
    assert seen, f"no list_changed ({mode})"
    assert "voyages_between" not in names


def test_list_changed_reaches_the_client_when_tools_are_unlocked(h):
    toolset = McpToolSet(h, only=["load_skill"])
    server = HarnessMcpServer(toolset)
    seen = []

    async def go():
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(server.notify_changes)
            async with Client(server) as client:
                assert [t.name for t in (await client.list_tools()).tools] == ["load_skill"]
                async with client.listen(tools_list_changed=True) as subscription:
                    toolset.unlock(["vessel_position", "load_skill"])
                    with anyio.fail_after(10):
                        async for event in subscription:
                            seen.append(type(event).__name__)
                            break
                names = [t.name for t in (await client.list_tools()).tools]
            tasks.cancel_scope.cancel()
        return names

    names = run(go)
    assert seen == ["ToolsListChanged"]
    assert names == ["load_skill", "vessel_position"]  # appended: the listed prefix is stable


def test_stdio_server_answers_the_sdk_client(h):
    workshop = Path(sys.executable).with_name("workshop")
    env = {**os.environ, "WORKSHOP_DATA_DIR": str(h.backend.data_dir)}
    env["WORKSHOP_BACKEND"] = "embedded"
    params = StdioServerParameters(
        command=str(workshop), args=["mcp", "--tools", "run_sql,vessel_position"], env=env
    )

    async def go():
        with anyio.fail_after(120):
            async with Client(params) as client:
                names = [t.name for t in (await client.list_tools()).tools]
                return names, await client.call_tool("run_sql", COUNT_SQL)

    names, result = run(go)
    assert names == ["run_sql", "vessel_position"]
    assert not result.is_error and json.loads(result.content[0].text)["rows"][0][0] > 0


def test_the_registry_imports_and_calls_the_tools_of_an_mcp_server(h, http_server, harness):
    """`harness` (another database) imports the tools `h` serves over HTTP."""
    report = harness.tools.import_mcp(http_server, prefix="remote_", names=["run_sql", "x"])
    try:
        assert report == {"imported": ["remote_run_sql"], "problems": {}}
        tool = harness.tools.get("remote_run_sql")
        assert tool.source == "data:mcp:remote_run_sql" and tool.category == "mcp"
        assert json.loads(harness.tools.call("remote_run_sql", COUNT_SQL)) == json.loads(
            h.tools.call("run_sql", COUNT_SQL)
        )
        refused = json.loads(harness.tools.call("remote_run_sql", {"sql": 3}))
        assert "error" in refused
    finally:
        harness.tools.undefine("remote_run_sql")


def test_an_unreachable_server_is_a_clear_tool_error(harness):
    port = _free_port()
    harness.tools.define(
        "remote_nothing",
        "A tool of a server that is not running.",
        {"type": "object", "properties": {}},
        {"type": "mcp", "server": f"http://127.0.0.1:{port}/mcp", "tool": "x"},
        timeout_s=5,
    )
    try:
        out = json.loads(harness.tools.call("remote_nothing", {}))
    finally:
        harness.tools.undefine("remote_nothing")
    assert "could not be reached" in out["error"] or "did not answer" in out["error"]


def test_only_loopback_is_served_or_used(h):
    with pytest.raises(ValueError, match="loopback"):
        serve_http(h, host="0.0.0.0", port=_free_port())
    from agent_harness.tools import ToolDefinitionError

    with pytest.raises(ToolDefinitionError, match="loopback"):
        h.tools.define(
            "remote_far",
            "A tool far away.",
            {"type": "object", "properties": {}},
            {"type": "mcp", "server": "http://example.com/mcp", "tool": "x"},
        )


# --- serving as an agent: progressive disclosure over MCP -----------------------------------


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_as_an_agent_a_loaded_skill_unlocks_tools_and_says_so(h, mode):
    """`workshop mcp --agent`: the always-on set first; load_skill unlocks the skill's tools
    (appended), the client is told (list_changed), and a locked tool names its skill."""
    toolset = McpToolSet(h, agent="supplychain-analyst")
    server = HarnessMcpServer(toolset)
    seen = []

    async def on_message(message):
        root = getattr(message, "root", message)
        if isinstance(root, types.ToolListChangedNotification):
            seen.append("notification")

    async def go():
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(server.notify_changes)
            async with Client(server, mode=mode, message_handler=on_message) as client:
                first = [t.name for t in (await client.list_tools()).tools]
                locked = await client.call_tool("vessel_position", {"vessel": "EVER GIVEN"})
                loaded = await client.call_tool("load_skill", {"name": "vessel-location-and-eta"})
                with anyio.fail_after(10):
                    while not seen and mode == "legacy":
                        await anyio.sleep(0.05)
                if mode != "legacy":
                    seen.append("listed")  # the modern era polls: the list below shows it
                after = [t.name for t in (await client.list_tools()).tools]
                position = await client.call_tool("vessel_position", {"vessel": "EVER GIVEN"})
            tasks.cancel_scope.cancel()
        return first, locked, loaded, after, position

    first, locked, loaded, after, position = run(go)
    assert first == ["load_skill", "search_knowledge", "run_sql"]
    assert locked.is_error and "load_skill('vessel-location-and-eta')" in locked.content[0].text
    assert "[tools unlocked: ais_live_position, eta_estimate, vessel_position]" in (
        loaded.content[0].text
    )
    assert after == first + ["ais_live_position", "eta_estimate", "vessel_position"]
    assert not position.is_error and seen
    assert "vessel-location-and-eta" in server.instructions  # the manifest reaches the client


def test_as_an_agent_list_changed_is_an_event_on_modern_streams(h):
    toolset = McpToolSet(h, agent="supplychain-analyst")
    server = HarnessMcpServer(toolset)
    events = []

    async def go():
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(server.notify_changes)
            async with Client(server) as client:
                async with client.listen(tools_list_changed=True) as subscription:
                    await client.call_tool("load_skill", {"name": "cargo-valuation"})
                    with anyio.fail_after(10):
                        async for event in subscription:
                            events.append(type(event).__name__)
                            break
            tasks.cancel_scope.cancel()

    run(go)
    assert events == ["ToolsListChanged"]


def test_as_an_agent_nothing_locked_runs_and_access_holds(h):
    """Zero leaks through MCP: every tool the agent was not given is refused unrun; a
    read-only agent's skill lists no write tool, and calling one is refused too."""
    server = HarnessMcpServer(McpToolSet(h, agent="supplychain-viewer"))
    locked = [n for n in h.tools.names() if n not in ("load_skill", "search_knowledge", "run_sql")]
    last_id = max((r["id"] for r in h.tools.telemetry(limit=100000)), default=0)

    async def go():
        async with Client(server) as client:
            refused = [await client.call_tool(n, {}) for n in locked]
            await client.call_tool("load_skill", {"name": "schema-discovery"})
            listed = [t.name for t in (await client.list_tools()).tools]
            return refused, listed, await client.call_tool("remember", {"content": "x"})

    refused, listed, remember = run(go)
    assert all(r.is_error for r in refused)
    assert "remember" not in listed and "scan_database" not in listed
    assert remember.is_error
    ran = [r for r in h.tools.telemetry(after_id=last_id) if r["success"] is not None]
    assert [r["gen_ai_tool_name"] for r in ran] == ["load_skill"]


def test_tools_and_agent_are_exclusive_and_unknown_agents_named(h):
    with pytest.raises(ValueError, match="--tools or --agent"):
        McpToolSet(h, only=["run_sql"], agent="supplychain-analyst")
    with pytest.raises(KeyError, match="supplychain-analyst"):
        McpToolSet(h, agent="nobody")


def test_workshop_mcp_names_an_unknown_agent(h, monkeypatch):
    from click.testing import CliRunner

    from agent_harness.interfaces.cli import cli

    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(h.backend.data_dir))
    result = CliRunner().invoke(cli, ["mcp", "--agent", "nobody"])
    assert result.exit_code != 0 and "no agent named 'nobody'" in result.output
