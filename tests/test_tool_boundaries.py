"""What holds at the boundary of one tool call (issue 18): whose fault an error is (the
caller's mistakes never open a breaker), errors are errors, error texts are bounded, arguments
are validated strictly (ranges in the schema), and every output is strict JSON."""

from __future__ import annotations

import json
import math
import time
import uuid

import pytest
from conftest import make_tool

from agent_harness.parts.observability import capture_spans
from agent_harness.tools import ToolError
from agent_harness.tools.faults import MAX_ERROR_CHARS, UpstreamError
from agent_harness.tools.policy import Policy
from tests.deadlines import PATIENCE_S


@pytest.fixture(scope="module")
def h(embedded_harness):
    """The call boundary is backend-neutral: tested on the embedded backend only."""
    fresh_harness = embedded_harness
    fresh_harness.tools.set_policy(min_calls=5, window_calls=12, ooda_every_calls=0)
    yield fresh_harness
    fresh_harness.tools.set_policy(
        **{k: v for k, v in Policy().model_dump().items() if k != "protected_categories"}
    )


def _strict(text: str):
    """Parse as strict JSON: NaN and Infinity are refused."""

    def refuse(name):
        raise ValueError(f"{name} in the output")

    return json.loads(text, parse_constant=refuse)


# --- item 2: a caller's mistake is not a tool fault ------------------------------------------
def test_unknown_port_codes_never_open_the_breaker(h):
    for i in range(12):
        result = h.tools.call_detailed("port_info", {"port": f"ZZ{i:03d}"})
        assert result.success is None and result.error_type == "caller_error", result
    assert "port_info" not in h.tools.open_tools()
    assert h.tools.states().get("port_info") is None  # never left closed
    stats = {r["tool"]: r for r in h.tools.stats()}
    assert stats["port_info"]["failures"] == 0


def _raise_upstream(n):
    raise UpstreamError("feed answered 503")


def _raise_connection(n):
    raise ConnectionError("connection refused")


def _raise_bug(n):
    return 1 / 0


def _raise_caller(n):
    raise ToolError(f"nothing found for {n}")


def _raise_caller_from_upstream(n):
    try:
        raise TimeoutError("socket timed out")
    except TimeoutError as e:
        raise ToolError("the remote server could not be reached") from e


def _hang(n):
    time.sleep(10)  # far past its 0.2 s limit, however busy the machine (a daemon thread)
    return {}


@pytest.mark.parametrize(
    "behaviour, error_type, success",
    [
        (_raise_caller, "caller_error", None),
        (_raise_upstream, "upstream_error", 0),
        (_raise_connection, "upstream_error", 0),
        (_raise_caller_from_upstream, "upstream_error", 0),
        (_raise_bug, "tool_error", 0),
        (_hang, "timeout", 0),
    ],
    ids=["caller", "upstream", "connection", "toolerror-from-upstream", "bug", "timeout"],
)
def test_telemetry_and_the_span_say_whose_fault_it_is(h, behaviour, error_type, success):
    name = f"fault_{uuid.uuid4().hex[:8]}"
    # only the hanging tool gets a short limit (a quick tool's thread can take longer than
    # 0.2 s to be scheduled on a busy machine)
    h.tools.add(make_tool(name, behaviour, timeout_s=0.2 if behaviour is _hang else PATIENCE_S))
    try:
        with capture_spans() as spans:
            result = h.tools.call_detailed(name, {"n": 1})
        row = h.tools.telemetry(tool=name)[-1]
        assert (row["error_type"], row["success"]) == (error_type, success)
        span = next(s for s in spans if s.name == f"execute_tool {name}")
        assert span.attributes["error.type"] == error_type == result.error_type
    finally:
        h.tools.remove(name)


def test_only_tool_faults_count_for_the_breaker(h):
    name = f"mixed_{uuid.uuid4().hex[:8]}"
    h.tools.add(make_tool(name, lambda n: _raise_caller(n) if n % 2 else {"n": n}))
    try:
        for i in range(20):
            h.tools.call(name, {"n": i})
        assert name not in h.tools.open_tools()
        assert {r["tool"]: r for r in h.tools.stats()}[name]["calls"] == 10  # the ten that ran ok
    finally:
        h.tools.remove(name)


# --- item 5: errors are errors ---------------------------------------------------------------
@pytest.mark.parametrize(
    "code, says",
    [
        ("throw new Error('bad input')", "bad input"),
        ("let x = ;", "SyntaxError"),
        ("while (true) {}", "timed out"),
        ("const a = []; while (true) { a.push(new Array(1e6).fill(1)); }", "memory"),
    ],
    ids=["throw", "syntax", "timeout", "out-of-memory"],
)
def test_exec_js_failures_are_errors(h, code, says):
    # the memory case gets the longest time limit, so on a busy machine the memory limit
    # still comes first; the endless loop keeps a short one
    timeout_ms = 10_000 if says == "memory" else 300
    result = h.tools.call_detailed("exec_js", {"code": code, "timeout_ms": timeout_ms})
    assert not result.ok and result.error_type == "caller_error"
    assert says in json.loads(result.output)["error"]


def test_fetching_an_unknown_output_is_an_error(h):
    result = h.tools.call_detailed("fetch_tool_output", {"tool_call_id": "call_nope"})
    assert not result.ok and result.error_type == "caller_error"
    assert json.loads(result.output) == {"error": "no tool call with id 'call_nope'"}


# --- item 7: bounded error texts ---------------------------------------------------------------
WRITES = {"remember", "scratch_write", "scratch_append", "scan_database"}


def test_a_huge_argument_never_becomes_a_huge_error(h):
    huge = "Z" * 1_100_000
    checked = 0
    for name in h.tools.names():
        tool = h.tools.get(name)
        strings = [a for a, s in tool.parameters["properties"].items() if s.get("type") == "string"]
        if name in WRITES or not strings or tool.category == "live":
            continue
        result = h.tools.call_detailed(name, {a: huge for a in strings})
        if not result.ok:
            checked += 1
            assert len(result.output) <= MAX_ERROR_CHARS + 300, (name, len(result.output))
            assert huge[:200] not in result.output, name
    assert checked > 15
    unknown = h.tools.call_detailed(huge, {})
    assert len(unknown.output) < 5000 and huge[:200] not in unknown.output
    extra = h.tools.call_detailed("port_info", {huge: 1, **{f"x{i}": 1 for i in range(500)}})
    assert len(extra.output) <= MAX_ERROR_CHARS + 300


# --- item 8: strict validation, ranges in the schema -------------------------------------------
@pytest.mark.parametrize(
    "tool, arguments",
    [
        ("convert_units", {"value": "12", "from_unit": "nm", "to_unit": "km"}),
        ("run_sql", {"sql": "SELECT 1", "max_rows": True}),
        ("run_sql", {"sql": "SELECT 1", "max_rows": "5"}),
        ("run_sql", {"sql": "SELECT 1", "max_rows": 5000}),
        ("run_sql", {"sql": "SELECT 1", "max_rows": 0}),
        ("search_knowledge", {"query": "teu", "k": 500}),
        ("list_skills", {"k": 0}),
        ("exec_js", {"code": "1", "timeout_ms": 60_000}),
        ("find_vessel", {"name": 12}),
    ],
    ids=[
        "string-for-number",
        "bool-for-integer",
        "string-for-integer",
        "max_rows-above",
        "max_rows-below",
        "k-above",
        "k-below",
        "timeout-above",
        "number-for-string",
    ],
)
def test_arguments_are_validated_strictly(h, tool, arguments):
    result = h.tools.call_detailed(tool, arguments)
    assert result.error_type == "invalid_arguments" and result.success is None, result.output


def test_ranges_are_in_the_schema(h):
    def bounds(tool, argument):
        spec = h.tools.get(tool).parameters["properties"][argument]
        return spec.get("minimum"), spec.get("maximum")

    assert bounds("run_sql", "max_rows") == (1, 1000)
    assert bounds("search_knowledge", "k") == (1, 20)
    assert bounds("list_skills", "k") == (1, 50)
    assert bounds("exec_js", "timeout_ms") == (10, 10_000)
    assert bounds("vessels_near_port", "radius_nm")[1] == 12_500


# --- item 15: strict JSON --------------------------------------------------------------------
@pytest.mark.parametrize(
    "arguments",
    [
        {"value": "NaN", "from_unit": "c", "to_unit": "f"},
        {"value": float("nan"), "from_unit": "c", "to_unit": "f"},
        {"value": float("inf"), "from_unit": "kg", "to_unit": "t"},
        '{"value": NaN, "from_unit": "c", "to_unit": "f"}',
        '{"value": -Infinity, "from_unit": "kg", "to_unit": "t"}',
        {"min_temp_c": float("nan")},
    ],
    ids=["nan-text", "nan", "infinity", "nan-json", "infinity-json", "nested-tool"],
)
def test_non_finite_numbers_are_refused(h, arguments):
    tool = "reefer_containers" if "min_temp_c" in arguments else "convert_units"
    result = h.tools.call_detailed(tool, arguments)
    assert result.error_type == "invalid_arguments", result.output
    _strict(result.output)
    stored = h.tools.telemetry(tool=tool)[-1]["gen_ai_tool_call_arguments"]
    if not isinstance(arguments, str):
        _strict(stored)  # the stored row is strict JSON too


def test_non_finite_numbers_are_refused_by_tools_defined_as_data(h):
    name = f"double_{uuid.uuid4().hex[:6]}"
    h.tools.define(
        name,
        "Doubles a number.",
        {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
        {"type": "javascript", "source": "return args.x * 2;"},
    )
    try:
        assert h.tools.call_detailed(name, {"x": float("nan")}).error_type == "invalid_arguments"
        assert h.tools.call_detailed(name, '{"x": Infinity}').error_type == "invalid_arguments"
    finally:
        h.tools.undefine(name)


def test_a_non_finite_output_is_written_as_null(h):
    name = f"nan_out_{uuid.uuid4().hex[:8]}"
    h.tools.add(make_tool(name, lambda n: {"mean": math.nan, "max": [math.inf, 1.5]}))
    try:
        assert _strict(h.tools.call(name, {})) == {"mean": None, "max": [None, 1.5]}
    finally:
        h.tools.remove(name)


def test_a_lone_surrogate_is_escaped_in_outputs_and_rows(h):
    name = f"echo_{uuid.uuid4().hex[:8]}"
    h.tools.add(make_tool(name, lambda n: {"said": "half \ud800 a pair"}))
    try:
        result = h.tools.call_detailed(name, {"n": 1})
        found = h.tools.call_detailed("find_vessel", {"name": "ship \udfff"})
    finally:
        h.tools.remove(name)
    result.output.encode("utf-8")  # valid UTF-8: a database, a file or the MCP wire takes it
    assert _strict(result.output) == {"said": "half \\ud800 a pair"}
    found.output.encode("utf-8")
    row = h.tools.telemetry(tool="find_vessel")[-1]
    assert row["id"] == found.telemetry_id and "\\udfff" in row["gen_ai_tool_call_arguments"]
