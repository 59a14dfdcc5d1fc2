"""``workshop mcp`` at every boundary, round two (issue 27), tried as an outside client would:
the real server process over stdio and over streamable HTTP, the official SDK client.

1. JavaScript runs concurrently and safely: 50 ``exec_js`` calls at once from 5 sessions all
   answer, and a JavaScript engine that crashes (its worker killed with SIGSEGV) leaves the
   server up and the next call working.
2. Arguments the published schema allows never count against a tool: 100 hostile sets (the
   largest integers, the longest strings, the deepest nesting each schema lets through) leave
   every breaker closed and no tool fault in the telemetry.
3. An identity's client never reads another identity's turns, answers or arguments: every
   diagnostics tool and every tool reading the harness's tables is tried with the other
   turn's ids.
5. The smaller promises: ``null`` refused where the schema has none, ``500.0`` accepted as an
   integer, a successful 1.1 MB result offloaded (a handle comes back), a 1.1 MB tool name
   answered with an error status, not a dropped connection.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import httpx
import psutil
import pytest
from hostile_arguments import hostile_sets
from mcp import Client, StdioServerParameters

from agent_harness.agent.agent_loop import agent_turn
from agent_harness.tools.jsonschema_lib import jsonschema
from agent_harness.tools.policy import Policy
from tests.ports import free_port as _free_port

WORKSHOP = str(Path(sys.executable).with_name("workshop"))
TRANSPORTS = ["stdio", "http"]
ANA = "ana:analyst:ATLANTIC"


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


class Server:
    """``workshop mcp ARGS`` as a process the test can reach: over HTTP (a process of its own,
    started here) or over stdio (the SDK client starts it; :meth:`client` opens one)."""

    def __init__(self, h, transport: str, *args: str) -> None:
        self.h, self.transport, self.args, self.process, self.url = h, transport, args, None, None
        if transport == "http":
            port = _free_port()
            self.process = subprocess.Popen(
                [WORKSHOP, "mcp", "--http", "--port", str(port), *args],
                env=_env(h),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                assert self.process.poll() is None, "workshop mcp --http exited"
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                        break
                except OSError:
                    time.sleep(0.2)
            self.url = f"http://127.0.0.1:{port}/mcp"

    def client(self, mode: str = "legacy") -> Client:
        if self.transport == "http":
            return Client(self.url, mode=mode)
        params = StdioServerParameters(command=WORKSHOP, args=["mcp", *self.args], env=_env(self.h))
        return Client(params, mode=mode)

    def alive(self) -> bool:
        return self.process is None or self.process.poll() is None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@pytest.fixture(params=TRANSPORTS)
def server(h, request):
    served = Server(h, request.param)
    yield served
    served.stop()


def _text(result) -> str:
    return result.content[0].text


def _js_workers() -> list[psutil.Process]:
    """The JavaScript worker processes of ``workshop mcp`` servers this test started."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if any("js_worker" in part for part in child.cmdline()):
                parent = child.parent()
                if parent is not None and "mcp" in parent.cmdline():
                    found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


# --- item 1: exec_js concurrently, and an engine crash -----------------------------------------
def test_fifty_exec_js_calls_at_once_from_five_sessions_all_answer(h, server):
    """Over HTTP five sessions send 10 calls each at once; over stdio (one session per
    process) five clients, each its own server process, do the same."""

    async def go():
        answers: list[tuple[bool, str]] = []
        async with AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(server.client()) for _ in range(5)]

            async def call(client, i):
                code = f"let s = 0; for (let i = 0; i < 200000; i++) s += i % 7; [s, {i}]"
                result = await client.call_tool("exec_js", {"code": code, "timeout_ms": 5000})
                answers.append((result.is_error, _text(result)))

            with anyio.fail_after(240):
                async with anyio.create_task_group() as tasks:
                    for i in range(50):
                        tasks.start_soon(call, clients[i % 5], i)
            again = await clients[0].call_tool("exec_js", {"code": "6 * 7"})
        return answers, again

    answers, again = anyio.run(go)
    assert len(answers) == 50 and not [a for a in answers if a[0]], answers[:3]
    assert sorted(json.loads(text)["result"][1] for _, text in answers) == list(range(50))
    assert json.loads(_text(again))["result"] == 42 and server.alive()


def test_a_crashed_javascript_engine_leaves_the_server_up(h, server):
    slow = "const t = Date.now(); while (Date.now() - t < 20000) {} 'never'"

    async def go():
        async with server.client() as client:
            await client.call_tool("exec_js", {"code": "1"})  # a worker is running now
            outcome = {}

            async def doomed():
                outcome["result"] = await client.call_tool(
                    "exec_js", {"code": slow, "timeout_ms": 10_000}
                )

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(doomed)
                with anyio.fail_after(60):
                    while not outcome and not _js_workers_busy():
                        await anyio.sleep(0.1)
                workers = _js_workers()
                assert workers, "no JavaScript worker process: the engine runs in the server"
                for worker in workers:
                    os.kill(worker.pid, signal.SIGSEGV)  # what a crash of V8 does
            after = await client.call_tool("exec_js", {"code": "6 * 7"})
            listed = await client.list_tools()
        return outcome["result"], after, listed

    crashed, after, listed = anyio.run(go)
    assert crashed.is_error and "JavaScript engine stopped" in _text(crashed), _text(crashed)
    assert not after.is_error and json.loads(_text(after))["result"] == 42
    assert "exec_js" in {t.name for t in listed.tools} and server.alive()


def _js_workers_busy() -> bool:
    """True once a worker burns CPU (the doomed program runs)."""
    for worker in _js_workers():
        try:
            if worker.cpu_percent(interval=0.2) > 20:
                return True
        except psutil.NoSuchProcess:
            continue
    return False


# --- item 2: schema-valid hostile arguments never count against a tool --------------------------
#: scan_database rescans the whole schema (slow; its one argument is checked first). Tools that
#: reach outside (openWorldHint: the simulated live feed fails on purpose) are called, but their
#: faults are the feed's.
NOT_JUDGED = {"scan_database"}


def test_schema_valid_hostile_arguments_leave_every_breaker_closed(h, server):
    h.tools.set_policy(min_calls=2, window_calls=20, ooda_every_calls=0)
    first_id = h.backend.telemetry.last_id()
    try:

        async def go():
            async with server.client() as client:
                every = (await client.list_tools()).tools
                listed = {t.name: t.input_schema for t in every}
                outside = {t.name for t in every if t.annotations.open_world_hint}
                tools = {n: s for n, s in listed.items() if n not in NOT_JUDGED}
                sent = []
                with anyio.fail_after(600):
                    for name, arguments in hostile_sets(tools, 100, seed=27):
                        result = await client.call_tool(name, arguments)
                        sent.append((name, result.is_error, len(_text(result))))
                still = {t.name for t in (await client.list_tools()).tools}
            return listed, outside, sent, still

        listed, outside, sent, still = anyio.run(go)
    finally:
        h.tools.set_policy(
            **{k: v for k, v in Policy().model_dump().items() if k != "protected_categories"}
        )
    assert len(sent) == 100 and len({name for name, _, _ in sent}) >= 30
    assert all(size < 5_000 for _, error, size in sent if error)
    rows = h.tools.telemetry(after_id=first_id, limit=1000)
    faults = [
        (r["gen_ai_tool_name"], r["error_type"], (r["error_message"] or "")[:200])
        for r in rows
        if r["success"] == 0 and r["gen_ai_tool_name"] not in outside  # a feed fails on its own
    ]
    assert outside == {"ais_live_position"} and not faults, faults
    opened = {n: s["state"] for n, s in h.tools.states().items() if s["state"] != "closed"}
    try:
        assert not set(opened) - outside, opened
        assert set(listed) - NOT_JUDGED - outside <= still
    finally:
        for name in opened:
            h.tools.enable(name)


def test_arguments_nesting_deeper_than_the_schema_allows_are_refused(h, server):
    deep: object = "x"
    for _ in range(100):  # the SDK client serializes up to about 250 levels
        deep = [deep]

    async def go():
        async with server.client() as client:
            nested = await client.call_tool("run_sql", {"sql": "SELECT 1", "binds": {"a": deep}})
            alive = await client.call_tool("run_sql", {"sql": "SELECT 1 AS one"})
        return nested, alive

    try:
        nested, alive = anyio.run(go)
    except Exception as e:  # the SDK may refuse to send it: then the server never saw it
        pytest.fail(f"the client could not send nested arguments: {e!r}")
    assert nested.is_error and len(_text(nested)) < 2000
    assert not alive.is_error and server.alive()


# --- item 4: fast calls keep a lane of their own ---------------------------------------------
#: A slow call that costs no CPU: the JavaScript thread sleeps 6 s (on a 2-core machine, busy
#: loops would slow everything down and say nothing about the lanes). The fast call is sent
#: 1.5 s after them and answers in well under a second even at load average 8 (README).
SLEEP_JS = "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6000); 'slept'"


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
def test_a_fast_call_does_not_wait_for_slow_calls_that_fill_the_places(h, server, era):
    """8 slow calls (two clients of 4: each client's limit) fill the slow places; over stdio
    (one client) 4 fill its own. A fast call still answers before any of them. On the
    2026-07-28 protocol without a token every caller is ``anonymous``: the slow calls of one
    must not hold up another's fast call either."""
    if server.transport == "stdio" and era != "legacy":
        pytest.skip("over stdio there is one client whatever the era: the legacy case covers it")
    slow_clients, slow_calls = (2, 8) if server.transport == "http" else (1, 4)
    if era != "legacy":
        slow_clients, slow_calls = 1, 4  # all anonymous: they used to share one set of 4

    async def go():
        finished: list[bool] = []
        async with AsyncExitStack() as stack:
            enter = stack.enter_async_context
            if server.transport == "stdio":
                fast = slow = [await enter(server.client(era))]
            else:
                slow = [await enter(server.client(era)) for _ in range(slow_clients)]
                fast = [await enter(server.client(era))]
            await fast[0].call_tool("run_sql", {"sql": "SELECT 1 AS one"})

            async def one_slow(client):
                result = await client.call_tool("exec_js", {"code": SLEEP_JS, "timeout_ms": 10_000})
                finished.append(not result.is_error)

            with anyio.fail_after(240):
                async with anyio.create_task_group() as tasks:
                    for i in range(slow_calls):
                        tasks.start_soon(one_slow, slow[i % len(slow)])
                    await anyio.sleep(1.5)  # every slow call has been sent and is running
                    quick = await fast[0].call_tool("run_sql", {"sql": "SELECT 1 AS one"})
                    finished_before = len(finished)
        return quick, finished_before, finished

    quick, finished_before, finished = anyio.run(go)
    assert not quick.is_error and finished_before == 0, finished_before
    assert finished == [True] * slow_calls and server.alive()


# --- item 3: an identity's client never reads another identity's turns ----------------------
#: Tools that read the harness's own tables (besides the diagnostics category).
HARNESS_READERS = {
    "search_knowledge",
    "fetch_tool_output",
    "scratch_list",
    "scratch_read",
    "list_skills",
}


@pytest.fixture(scope="module")
def owners_turn(h):
    """A turn of the workshop owner about a PACIFIC voyage (ana may see the ATLANTIC only),
    a note and a scratch file of the owner's, each carrying a unique marker."""
    marker = f"owner-secret-{uuid.uuid4().hex[:10]}"
    voyage = h.backend.readonly_query(
        "SELECT voyage_code FROM supplychain.voyages WHERE ocean_region = 'PACIFIC'"
        " ORDER BY voyage_code"
    ).rows[0][0]
    turn = agent_turn(
        h, f"What is the total cargo value of voyage {voyage}? ({marker})", thread_id=marker
    )
    assert turn.tool_calls and turn.tool_calls[0].name == "cargo_value", turn.offered_names
    value = json.loads(turn.tool_calls[0].result.output)
    h.memory.add(f"The owner's private note {marker}: cargo of {voyage} is insured.")
    h.scratchpad.write("owner/secret.md", f"{marker} {voyage}")
    call_id = turn.tool_calls[0].result.call.call_id
    h.offload.log(marker, call_id, "cargo_value", {"voyage": voyage}, f"{marker} " * 2000)
    secrets = [marker, turn.answer[:60], json.dumps(value)[:80]]
    return {"turn": turn, "voyage": voyage, "secrets": secrets, "marker": marker}


def test_an_identitys_client_never_reads_another_identitys_turns(h, owners_turn):
    turn = owners_turn["turn"]
    call_id = turn.tool_calls[0].result.call.call_id
    probes = [turn.turn_id, call_id, owners_turn["marker"], owners_turn["voyage"], "owner"]
    tried: dict[str, set[str]] = {}

    async def sweep(server):
        outputs = []
        async with server.client() as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            diagnostics = set(h.tools.categories()["diagnostics"])
            for name in sorted(diagnostics | HARNESS_READERS):
                assert name in tools, f"{name} is not served to {ANA}"
                schema = tools[name].input_schema
                strings = [
                    a
                    for a, s in (schema.get("properties") or {}).items()
                    if s.get("type") == "string" and "enum" not in s
                ]
                argument_sets = [{}] if not schema.get("required") else []
                argument_sets += [{a: p} for a in strings for p in probes]
                argument_sets += [{a: "owner/secret.md"} for a in strings if "path" in a]
                for arguments in argument_sets:
                    result = await client.call_tool(name, arguments)
                    outputs.append((name, arguments, _text(result)))
                    tried.setdefault(server.transport, set()).add(name)
        return outputs

    for transport in TRANSPORTS:
        served = Server(h, transport, "--identity", ANA)
        try:
            outputs = anyio.run(sweep, served)
        finally:
            served.stop()
        for name, arguments, text in outputs:
            echoed = json.dumps(arguments)
            for secret in owners_turn["secrets"]:
                if secret and secret not in echoed:
                    assert secret not in text, (transport, name, arguments, text[:300])
            if turn.turn_id not in echoed:
                assert turn.turn_id not in text, (transport, name, arguments, text[:300])
    expected = set(h.tools.categories()["diagnostics"]) | HARNESS_READERS
    assert tried == {t: expected for t in TRANSPORTS}


# --- item 5: the smaller promises -----------------------------------------------------------------
def _optional_non_null(tools) -> list[tuple[str, str]]:
    """(tool, argument) of every optional argument whose schema does not allow null."""
    found = []
    for tool in tools:
        schema = tool.input_schema
        for name, spec in (schema.get("properties") or {}).items():
            if name in (schema.get("required") or []):
                continue
            if not jsonschema.Draft202012Validator(spec).is_valid(None):
                found.append((tool.name, name))
    return found


def test_null_integers_as_floats_and_the_schema_agree_with_jsonschema(h, server):
    """Over the wire: null where the schema has none is refused; a whole number written as a
    float (500.0) is an integer, as JSON Schema 2020-12 says; and for every generated case the
    server accepts exactly what the jsonschema library accepts."""

    async def go():
        async with server.client() as client:
            tools = (await client.list_tools()).tools
            nulls = {}
            for name, argument in _optional_non_null(tools):
                required = _minimal(next(t for t in tools if t.name == name).input_schema)
                result = await client.call_tool(name, {**required, argument: None})
                nulls[(name, argument)] = (result.is_error, _text(result))
            rows = await client.call_tool("run_sql", {"sql": "SELECT 1 AS one", "max_rows": 500.0})
            half = await client.call_tool("run_sql", {"sql": "SELECT 1 AS one", "max_rows": 5.5})
            verdicts = []
            for tool, arguments in _cases(tools):
                schema = next(t for t in tools if t.name == tool).input_schema
                valid = jsonschema.Draft202012Validator(schema).is_valid(arguments)
                result = await client.call_tool(tool, arguments)
                refused = result.is_error and "argument" in _text(result)
                verdicts.append((tool, arguments, valid, refused, _text(result)[:200]))
        return nulls, rows, half, verdicts

    nulls, rows, half, verdicts = anyio.run(go)
    assert len(nulls) >= 10
    assert all(error and "is not of type" in text for error, text in nulls.values()), nulls
    assert not rows.is_error and half.is_error
    disagree = [v for v in verdicts if v[2] == v[3]]  # valid and refused, or invalid and run
    assert len(verdicts) >= 100 and not disagree, disagree[:5]


def _minimal(schema: dict) -> dict:
    """The required arguments of a schema, each with a plain valid value."""
    values = {"string": "x", "integer": 1, "number": 1.0, "boolean": True, "array": []}
    out = {}
    for name in schema.get("required") or []:
        spec = schema["properties"][name]
        out[name] = spec["enum"][0] if "enum" in spec else values[spec.get("type", "string")]
    return out


#: Tools whose arguments the agreement cases are built for: read-only, fast, deterministic.
AGREEMENT_TOOLS = (
    "run_sql",
    "search_knowledge",
    "list_skills",
    "convert_units",
    "vessels_near_port",
    "reefer_containers",
    "get_document",
    "exec_js",
    "find_vessel",
)


def _cases(tools) -> list[tuple[str, dict]]:
    """For each argument of the agreement tools, values at and around every bound and of
    every JSON type, plus null and whole numbers written as floats."""
    cases = []
    by_name = {t.name: t for t in tools}
    for tool in AGREEMENT_TOOLS:
        schema = by_name[tool].input_schema
        base = _minimal(schema)
        for name, spec in schema["properties"].items():
            values = [None, True, "12", [], {}, 0, 0.0, -1, 1.5, 2**63, 500.0]
            for key in ("minimum", "maximum"):
                if key in spec:
                    values += [spec[key], spec[key] - 1, spec[key] + 1, float(spec[key])]
            if "maxLength" in spec:
                values += ["y" * spec["maxLength"], "y" * (spec["maxLength"] + 1)]
            values += list(spec.get("enum") or [])[:2]
            cases += [(tool, {**base, name: v}) for v in values]
    return cases


def test_a_large_successful_result_is_offloaded_with_a_handle(h, server):
    code = "'x'.repeat(1100000) + 'end'"

    async def go():
        async with server.client() as client:
            big = await client.call_tool("exec_js", {"code": code, "timeout_ms": 5000})
            handle = re.search(r"fetch_tool_output\(tool_call_id='([^']+)'\)", _text(big))
            pages, offset = [], 0
            while offset is not None and len(pages) < 20:
                page = await client.call_tool(
                    "fetch_tool_output", {"tool_call_id": handle.group(1), "offset": offset}
                )
                assert not page.is_error, _text(page)
                found = json.loads(_text(page))
                pages.append(found["tool_output"])
                offset = found.get("next_offset")
        return big, "".join(pages)

    big, whole = anyio.run(go)
    assert not big.is_error and len(_text(big)) < 2_000
    assert json.loads(whole)["result"] == "x" * 1_100_000 + "end"


def test_a_huge_tool_name_gets_an_error_status_not_a_dropped_connection(h):
    """On 2026-07-28 the tool's name travels in the ``Mcp-Name`` header too: a 1.1 MB one got
    the connection reset (uvicorn gave up on the header), no status. Now: HTTP 431 and a
    JSON-RPC error; the handshake era gets an isError result."""
    served = Server(h, "http")
    huge = "Q" * 1_100_000
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": huge, "arguments": {}, "_meta": meta},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": huge,
    }

    async def legacy():
        async with served.client("legacy") as client:
            return await client.call_tool(huge, {})

    try:
        answer = httpx.post(served.url, json=body, headers=headers, timeout=60)
        result = anyio.run(legacy)
        assert served.alive()
    finally:
        served.stop()
    assert answer.status_code == 431, answer.status_code
    assert "header" in answer.json()["error"]["message"] and len(answer.content) < 1000
    assert result.is_error and len(_text(result)) < 5_000
