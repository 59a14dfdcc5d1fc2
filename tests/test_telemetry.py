"""Telemetry: one row per dispatch (every outcome), stats in SQL, retention, spans, OTLP."""

from __future__ import annotations

import datetime as dt
import json
import logging
import math
import os
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import make_tool

from agent_harness.tools import ToolError
from tests.deadlines import PATIENCE_S


@pytest.fixture(scope="module")
def h(fresh_harness):
    return fresh_harness


def _name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def _rows(h, name):
    return h.tools.telemetry(tool=name)


def _add(h, name, behaviour, **options):
    tool = make_tool(name, behaviour, **options)
    h.tools.add(tool)
    return tool


def _ok(n):
    return {"n": n}


def _tool_error(n):
    raise ToolError("nothing found for that: try another name")


def _crash(n):
    raise ConnectionError("upstream down")


def _slow(n):
    time.sleep(10)  # far past its 0.2 s limit, however busy the machine (a daemon thread)
    return {"late": True}


@pytest.mark.parametrize(
    "behaviour, arguments, success, error_type",
    [
        (_ok, {"n": 1}, 1, None),
        (_tool_error, {"n": 1}, None, "caller_error"),
        (_crash, {"n": 1}, 0, "upstream_error"),
        (_slow, {"n": 1}, 0, "timeout"),
        (_ok, {"n": "not a number"}, None, "invalid_arguments"),
        (_ok, "{broken json", None, "invalid_arguments"),
    ],
    ids=["success", "tool-error", "exception", "timeout", "validation", "malformed-json"],
)
def test_every_call_writes_exactly_one_row(h, behaviour, arguments, success, error_type):
    name = _name("tele")
    # only the slow tool gets a short limit: on a busy machine a quick tool's thread can
    # take longer than 0.2 s to be scheduled at all
    _add(h, name, behaviour, timeout_s=0.2 if behaviour is _slow else PATIENCE_S)
    result = h.tools.call_detailed(name, arguments, thread_id="t-tele", turn_id="turn-1")
    rows = _rows(h, name)
    assert len(rows) == 1
    row = rows[0]
    assert row["success"] == success and row["error_type"] == error_type
    assert row["id"] == result.telemetry_id
    assert row["gen_ai_tool_name"] == name and row["tool_category"] == "testing"
    assert row["gen_ai_tool_call_id"] == result.call.call_id.strip()
    assert row["gen_ai_conversation_id"] == "t-tele" and row["turn_id"] == "turn-1"
    assert row["gen_ai_tool_type"] == "function"
    assert row["output_chars"] == len(result.output) and row["duration_ms"] >= 0
    assert isinstance(row["started_at"], dt.datetime) and row["started_at"].tzinfo is not None
    stored = row["gen_ai_tool_call_arguments"]
    assert stored == (arguments if isinstance(arguments, str) else json.dumps(arguments))
    if error_type:
        assert json.loads(result.output)["error"] == row["error_message"]
    h.tools.remove(name)


def test_refusals_write_a_row_too(h):
    h.tools.call_detailed("no_such_tool_xyz", {})
    h.tools.call_detailed("find_vessel", {"name": "x"}, offered=["run_sql"])
    unknown = _rows(h, "no_such_tool_xyz")
    assert [(r["success"], r["error_type"]) for r in unknown] == [(None, "unknown_tool")]
    refused = [r for r in _rows(h, "find_vessel") if r["error_type"] == "not_offered"]
    assert len(refused) == 1 and refused[0]["success"] is None


def test_a_failing_telemetry_write_never_breaks_the_call(h, monkeypatch, caplog):
    name = _name("tele_broken")
    _add(h, name, _ok)
    h.tools.hook_failures.take()

    def broken(row):
        raise RuntimeError("disk full")

    monkeypatch.setattr(h.backend.telemetry, "record", broken)
    with caplog.at_level(logging.WARNING):
        outputs = [h.tools.call(name, {"n": i}) for i in range(3)]
    assert [json.loads(o) for o in outputs] == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert h.tools.hook_failures.take() == {"TelemetryRecorder.after_call": 3}
    logged = [r for r in caplog.records if "TelemetryRecorder" in r.getMessage()]
    assert len(logged) == 1, "logged once, counted every time"
    monkeypatch.undo()
    h.tools.remove(name)


def _nearest_rank(values, p):
    ordered = sorted(values)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]


@pytest.mark.parametrize("durations", [[5.0], [3.0, 1.0], [9, 1, 5, 7, 3], list(range(20, 0, -1))])
def test_stats_window_percentiles_and_last_error(h, durations):
    name = _name("stats")
    _add(h, name, _ok)
    now = h.tools.clock()
    store = h.backend.telemetry
    old = now - dt.timedelta(hours=3)

    def write(duration, success, error=None, at=now, ran=True):
        store.record(
            {
                "gen_ai_tool_name": name,
                "gen_ai_tool_type": "function",
                "tool_category": "testing",
                "success": success if ran else None,
                "error_type": None if success else "X",
                "error_message": error,
                "duration_ms": float(duration),
                "output_chars": 1,
                "started_at": at,
            }
        )

    write(999, True, at=old)  # outside the 60-minute window
    for i, d in enumerate(durations):
        write(d, i % 2 == 0, error=f"err {i}")
    write(5000, False, "refused", ran=False)  # never ran: not a call
    row = next(r for r in h.tools.stats() if r["tool"] == name)
    assert row["calls"] == len(durations)
    assert row["successes"] == sum(1 for i in range(len(durations)) if i % 2 == 0)
    assert row["success_rate"] == pytest.approx(row["successes"] / len(durations))
    assert row["p50_ms"] == pytest.approx(_nearest_rank(durations, 50))
    assert row["p95_ms"] == pytest.approx(_nearest_rank(durations, 95))
    failures = [i for i in range(len(durations)) if i % 2]
    assert row["last_error"] == (f"err {failures[-1]}" if failures else None)
    # only the newest window_calls calls count
    small = next(r for r in h.tools.stats(window_calls=1) if r["tool"] == name)
    assert small["calls"] == 1 and small["p50_ms"] == pytest.approx(durations[-1])
    h.tools.remove(name)


def test_prune_by_age_and_by_rows_per_tool(h):
    name = _name("prune")
    store = h.backend.telemetry
    now = h.tools.clock()
    for i in range(10):
        store.record(
            {
                "gen_ai_tool_name": name,
                "success": True,
                "duration_ms": 1.0,
                "output_chars": 0,
                "started_at": now - dt.timedelta(days=40 if i < 3 else 0, seconds=10 - i),
            }
        )
    deleted = store.prune(now - dt.timedelta(days=30), keep_per_tool=4)
    left = _rows(h, name)
    assert deleted >= 6 and len(left) == 4
    assert [r["id"] for r in left] == sorted(r["id"] for r in left)[-4:]


def test_each_call_is_an_execute_tool_span(h):
    from agent_harness.parts.observability import capture_spans

    with capture_spans() as spans:
        h.tools.call_detailed("run_sql", {"sql": "SELECT 1 AS x"}, call_id="call_span1")
        h.tools.call_detailed("no_such_tool_abc", {})
    good, bad = [s for s in spans if s.name.startswith("execute_tool")]
    assert good.name == "execute_tool run_sql"
    assert good.attributes["gen_ai.operation.name"] == "execute_tool"
    assert good.attributes["gen_ai.tool.name"] == "run_sql"
    assert good.attributes["gen_ai.tool.call.id"] == "call_span1"
    assert good.attributes["gen_ai.tool.type"] == "function"
    assert "error.type" not in good.attributes
    assert bad.attributes["error.type"] == "unknown_tool"


class _Collector(BaseHTTPRequestHandler):
    received: list = []

    def do_POST(self):  # noqa: N802 - http.server's naming
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        type(self).received.append((self.path, body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_spans_are_exported_over_otlp_when_the_endpoint_is_set(tmp_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    script = textwrap.dedent(
        """
        from opentelemetry import trace
        import agent_harness
        h = agent_harness.connect(prepare=False)
        h.tools.call("convert_units", {"value": 1, "from_unit": "nm", "to_unit": "km"})
        trace.get_tracer_provider().force_flush()
        """
    )
    env = {
        **os.environ,
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{server.server_port}",
        "WORKSHOP_DATA_DIR": str(tmp_path),
    }
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            env=env,
            capture_output=True,
            text=True,
            timeout=PATIENCE_S,
        )
    finally:
        server.shutdown()
    assert done.returncode == 0, done.stderr[-2000:]
    paths = [p for p, _ in _Collector.received]
    assert "/v1/traces" in paths
    body = b"".join(b for p, b in _Collector.received if p == "/v1/traces")
    assert b"execute_tool convert_units" in body and b"gen_ai.tool.name" in body


def test_an_otlp_endpoint_without_the_exporter_warns_and_says_how(monkeypatch):
    """``pip install .`` without the ``otlp`` extra and an endpoint set: connecting goes on
    (spans are not exported) and the warning names the extra to install."""
    import builtins

    from agent_harness.parts import observability

    real_import = builtins.__import__

    def no_exporter(name, *args, **kwargs):
        if name.startswith("opentelemetry.exporter.otlp"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setattr(observability, "_exporting", False)
    monkeypatch.setattr(builtins, "__import__", no_exporter)
    with pytest.warns(RuntimeWarning, match=r"agent-harness-workshop\[otlp\]"):
        said = observability.configure_from_env()
    assert "not exported" in said
    assert observability._exporting is False  # installing the extra later still works
