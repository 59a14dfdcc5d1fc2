"""exec_js sandbox, scratchpad and tool-output offload."""

from __future__ import annotations

import json
import threading

import pytest

from agent_harness.foundation.js_sandbox import run_js
from agent_harness.parts.offload import preview


def test_js_returns_last_value_and_console():
    out = run_js("console.log('n =', 3, {a: 1}); [1, 2, 3].map(x => x * 2)")
    assert out == {"result": [2, 4, 6], "console": ['n = 3 {"a":1}']}


@pytest.mark.parametrize(
    "code, fragment",
    [
        ("while (true) {}", "timed out"),
        ("var a = []; while (true) { a.push(new Array(1e6).fill(1)); }", "memory"),
        ("throw new Error('boom')", "boom"),
        ("", "no code"),
    ],
)
def test_js_limits_and_errors(code, fragment):
    # the memory case gets the longest time limit, so on a busy machine the memory limit
    # still comes first; the endless loop keeps a short one
    out = run_js(code, timeout_ms=10_000 if fragment == "memory" else 300)
    assert fragment in out["error"]  # the limit that stopped it, named (no time is asserted)


def test_js_has_no_host_access_and_fresh_context_per_call():
    out = run_js("[typeof require, typeof process, typeof fetch, typeof XMLHttpRequest]")
    assert out["result"] == ["undefined"] * 4
    run_js("globalThis.leak = 42")
    assert run_js("typeof leak")["result"] == "undefined"


def test_exec_js_tool(harness):
    out = json.loads(harness.tools.call("exec_js", {"code": "Math.max(3, 9, 4)"}))
    assert out["result"] == 9


def test_scratchpad_write_read_append_list(harness):
    call = harness.tools.call
    assert json.loads(call("scratch_write", {"path": "t/a.md", "content": "one\n"}))["size"] == 4
    call("scratch_append", {"path": "t/a.md", "content": "two\n"})
    assert json.loads(call("scratch_read", {"path": "t/a.md"}))["content"] == "one\ntwo\n"
    assert "t/a.md" in [f["path"] for f in json.loads(call("scratch_list", {}))]
    assert "no scratch file" in json.loads(call("scratch_read", {"path": "missing"}))["error"]
    assert "error" in json.loads(call("scratch_write", {"path": "../x", "content": "x"}))


def test_scratch_append_is_atomic_under_concurrency(harness):
    pad = harness.scratchpad
    pad.write("race.txt", "")
    threads = [
        threading.Thread(target=lambda i=i: [pad.append("race.txt", f"{i}.") for _ in range(20)])
        for i in range(5)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(pad.read("race.txt").split(".")) - 1 == 100


@pytest.mark.parametrize("size", [0, 599, 600, 601, 5_000_000])
def test_offload_roundtrip_is_byte_exact(harness, size):
    text = ("é🚢x" * (size // 3 + 1))[:size]
    call_id = f"call_test_{size}"
    harness.offload.log("thread-1", call_id, "container_manifest", {"container_no": "X"}, text)
    fetched = json.loads(harness.tools.call("fetch_tool_output", {"tool_call_id": call_id}))
    assert fetched["tool_output"] == text
    assert fetched["tool_name"] == "container_manifest"
    assert json.loads(fetched["tool_args"]) == {"container_no": "X"}


@pytest.mark.parametrize("blank", ["", " ", "\n\t "])
def test_blank_outputs_round_trip(harness, blank):
    harness.offload.log("t", f"call_blank_{len(blank)}", "x", {}, blank)
    assert harness.offload.fetch(f"call_blank_{len(blank)}")["tool_output"] == blank


def test_fetch_unknown_id():
    from agent_harness.parts.offload import ToolOutputLog

    class Empty:
        def list(self, **kwargs):
            return []

    assert ToolOutputLog(Empty()).fetch("call_x") == {"error": "no tool call with id 'call_x'"}


def test_preview_cuts_on_characters_and_names_the_handle():
    assert preview("short", "c1") == "short"
    long = "🚢" * 601
    shown = preview(long, "c1")
    assert shown.startswith("🚢" * 600 + "...[+1 chars. full output: ")
    assert shown.endswith("fetch_tool_output(tool_call_id='c1')]")
