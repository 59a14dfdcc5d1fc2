"""The tool registry: schema from signature + docstring, refusals, validation, retrieval."""

from __future__ import annotations

import json

import pytest

from agent_harness.tools import (
    Tool,
    ToolDefinitionError,
    ToolError,
    ToolRegistry,
    parse_docstring,
    register,
)

CORE = [
    "run_sql",
    "search_knowledge",
    "remember",
    "exec_js",
    "load_skill",
    "list_skills",
    "scratch_write",
    "scratch_read",
    "scratch_append",
    "scan_database",
    "fetch_tool_output",
]
DOMAIN = [
    "find_vessel",
    "vessel_position",
    "vessels_near_port",
    "port_info",
    "port_distance",
    "voyage_status",
    "delayed_voyages",
    "voyages_between",
    "container_manifest",
    "containers_on_hold",
    "cargo_value",
    "carrier_fleet",
    "hs_code_lookup",
    "eta_estimate",
    "convert_units",
    "hazmat_containers",
    "reefer_containers",
    "consignee_shipments",
    "port_congestion",
    "fleet_capacity_by_region",
]


def sample(ship: str, limit: int = 5, region: str | None = None, tags: list[str] | None = None):
    """Find ships.

    Longer explanation on a second line.

    Args:
        ship: Name of the ship,
            continued on the next line.
        limit: How many.
        region: Ocean region.
        tags: Labels to match.

    Returns:
        Something.
    """
    return {"ship": ship, "limit": limit, "region": region, "tags": tags}


def test_schema_from_signature_and_google_docstring():
    tool = Tool.from_function(sample)
    schema = tool.schema()
    assert schema["type"] == "function"
    fn = schema["function"]
    assert fn["name"] == "sample"
    assert fn["description"] == "Find ships. Longer explanation on a second line."
    params = fn["parameters"]
    assert params["required"] == ["ship"] and params["additionalProperties"] is False
    props = params["properties"]
    assert props["ship"] == {
        "type": "string",
        "description": "Name of the ship, continued on the next line.",
    }
    assert props["limit"]["type"] == "integer" and props["limit"]["default"] == 5
    # Optional (default None) arguments are sent as their type alone, left out of required:
    # fewer tokens, and omitting one means None.
    assert props["region"] == {"type": "string", "description": "Ocean region."}
    assert props["tags"] == {
        "type": "array",
        "items": {"type": "string"},
        "description": "Labels to match.",
    }
    assert tool.validate({"ship": "x", "region": None}) == {
        "ship": "x",
        "limit": 5,
        "region": None,
        "tags": None,
    }
    assert "title" not in json.dumps(params)


def test_parse_docstring_sections():
    description, args = parse_docstring(sample.__doc__)
    assert set(args) == {"ship", "limit", "region", "tags"}
    assert "Returns" not in description


def test_refuses_missing_docstring_undocumented_or_untyped_arguments():
    def no_doc(x: int):
        return x

    def undocumented(x: int, y: int):
        """Does things.

        Args:
            x: documented.
        """

    def untyped(x):
        """Does things.

        Args:
            x: documented.
        """

    with pytest.raises(ToolDefinitionError, match="no docstring"):
        Tool.from_function(no_doc)
    with pytest.raises(ToolDefinitionError, match="'y' is not documented"):
        Tool.from_function(undocumented)
    with pytest.raises(ToolDefinitionError, match="no type hint"):
        Tool.from_function(untyped)


def test_register_refuses_a_name_a_live_harness_holds(harness):
    def run_sql(sql: str):
        """Not the real one.

        Args:
            sql: anything.
        """

    with pytest.raises(ToolDefinitionError, match="already registered"):
        register(run_sql)
    assert harness.tools.get("run_sql").source == "agent_harness.tools.core.run_sql"


def test_every_required_tool_is_registered_and_documented(harness):
    names = harness.tools.names()
    missing = [n for n in CORE + DOMAIN if n not in names]
    assert not missing, missing
    assert len(names) >= 30
    for name in names:
        tool = harness.tools.get(name)
        assert len(tool.description) > 20, name


def test_call_validates_arguments_before_dispatch(harness):
    calls = []

    def echo(n: int, label: str = "x") -> dict:
        """Echo.

        Args:
            n: A number.
            label: A label.
        """
        calls.append(n)
        return {"n": n, "label": label}

    registry = ToolRegistry(harness, tools={"echo": Tool.from_function(echo)}, always_on=())
    assert json.loads(registry.call("echo", {"n": 3})) == {"n": 3, "label": "x"}
    assert json.loads(registry.call("echo", '{"n": 4, "label": "y"}'))["label"] == "y"
    for args, fragment in [
        ({}, "missing required argument 'n'"),
        ({"n": 1, "bogus": 2}, "unexpected argument 'bogus'"),
        ({"n": "many"}, "argument 'n'"),
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
    ]:
        out = json.loads(registry.call("echo", args))
        assert fragment in out["error"], (args, out)
        assert "echo takes: n, label?" in out["error"]
    assert calls == [3, 4]  # nothing invalid reached the function
    assert "unknown tool" in json.loads(registry.call("nope", {}))["error"]


def test_tool_errors_and_exceptions_become_error_observations(harness):
    def fails(kind: str) -> dict:
        """Fails.

        Args:
            kind: how.
        """
        if kind == "tool":
            raise ToolError("vessel 'X' not found; try find_vessel")
        raise ZeroDivisionError("boom")

    registry = ToolRegistry(harness, tools={"fails": Tool.from_function(fails)}, always_on=())
    assert json.loads(registry.call("fails", {"kind": "tool"})) == {
        "error": "vessel 'X' not found; try find_vessel"
    }
    assert "ZeroDivisionError: boom" in json.loads(registry.call("fails", {"kind": "x"}))["error"]


def test_retrieve_top_k_plus_always_on(harness):
    schemas = harness.tools.retrieve("where is the ship now, its latest position", k=3)
    names = [s["function"]["name"] for s in schemas]
    always = list(harness.tools.always_on)
    assert names[: len(always)] == always
    picked = names[len(always) :]
    assert len(picked) == 3 and "vessel_position" in picked
    assert len(names) == len(set(names))
    assert "convert_units" in [
        s["function"]["name"] for s in harness.tools.retrieve("convert knots to km/h", k=3)
    ]


def test_retrieve_large_k_returns_every_tool(harness):
    names = {s["function"]["name"] for s in harness.tools.retrieve("anything", k=10_000)}
    assert names == set(harness.tools.names())


def test_retrieve_without_always_on(harness):
    names = [
        s["function"]["name"]
        for s in harness.tools.retrieve("delayed voyages", k=2, always_on=False)
    ]
    assert len(names) == 2 and "delayed_voyages" in names


def test_sync_is_idempotent(harness):
    assert harness.tools.sync()["added_or_changed"] == 0
