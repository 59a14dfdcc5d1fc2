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
from agent_harness.tools.argument_checks import INT64, MAX_ITEMS, MAX_STRING_CHARS

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
    # every argument is bounded in the schema (argument_checks.bound_schema)
    assert props["ship"] == {
        "type": "string",
        "description": "Name of the ship, continued on the next line.",
        "maxLength": MAX_STRING_CHARS,
    }
    assert props["limit"]["type"] == "integer" and props["limit"]["default"] == 5
    assert (props["limit"]["minimum"], props["limit"]["maximum"]) == INT64
    # Optional (default None) arguments are sent as their type alone, left out of required:
    # fewer tokens, and omitting one means None.
    assert props["region"] == {
        "type": "string",
        "description": "Ocean region.",
        "maxLength": MAX_STRING_CHARS,
    }
    assert props["tags"] == {
        "type": "array",
        "items": {"type": "string", "maxLength": MAX_STRING_CHARS},
        "description": "Labels to match.",
        "maxItems": MAX_ITEMS,
    }
    assert tool.validate({"ship": "x"}) == {"ship": "x", "limit": 5, "region": None, "tags": None}
    # ... but an explicit null is not a string: the schema does not allow it (issue 27, item 5)
    with pytest.raises(ValueError, match="argument 'region': is not of type 'string'"):
        tool.validate({"ship": "x", "region": None})
    assert tool.validate({"ship": "x", "limit": 7.0})["limit"] == 7  # 2020-12: 7.0 is an integer
    assert "title" not in json.dumps(params)


def test_parse_docstring_sections():
    description, args = parse_docstring(sample.__doc__)
    assert set(args) == {"ship", "limit", "region", "tags"}
    assert "Returns" not in description


def test_parse_docstring_reads_types_continuations_and_every_section():
    """docstring_parser (issue 29 item 4) reads what the hand-written parser read: the text
    before the first section as one line, ``name (type): text`` entries, continuation lines."""

    def typed(a, b):
        """First line.

        Second paragraph,
        on two lines.

        Args:
            a (int): The a,
                continued.
            b: The b.

        Raises:
            ValueError: Never.

        Returns:
            Nothing.
        """

    assert parse_docstring(typed.__doc__) == (
        "First line. Second paragraph, on two lines.",
        {"a": "The a, continued.", "b": "The b."},
    )
    assert parse_docstring("Only a line.") == ("Only a line.", {})


def test_a_tool_docstring_that_cannot_be_read_is_refused_saying_how_to_write_it():
    """On main a section it could not read was skipped in silence; now the tool is refused
    with what to write."""

    def prose_raises(x: int):
        """Does things.

        Args:
            x: documented.

        Raises:
            Whatever the database raised, unchanged
        """

    with pytest.raises(ToolDefinitionError, match=r"cannot read its docstring .*Google style"):
        Tool.from_function(prose_raises)


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
    assert names == set(harness.tools.names())  # asking for all is not a choice: no floor
    # a k below the registry size chooses: a question no tool is for gets fewer
    assert {s["function"]["name"] for s in harness.tools.retrieve("anything", k=30)} < names


def test_retrieve_without_always_on(harness):
    names = [
        s["function"]["name"]
        for s in harness.tools.retrieve("delayed voyages", k=2, always_on=False)
    ]
    assert len(names) == 2 and "delayed_voyages" in names


def test_sync_is_idempotent(harness):
    assert harness.tools.sync()["added_or_changed"] == 0


# --- @register reaches live registries (agent_harness.tools.following) ------------------------
def _berths_tool(description: str = "How many berths a port has."):
    def berths_of(port: str) -> dict:
        """Placeholder.

        Args:
            port: The port's UN/LOCODE, like NLRTM.
        """
        return {"port": port, "berths": 35}

    berths_of.__doc__ = berths_of.__doc__.replace("Placeholder.", description)
    return Tool.from_function(berths_of, category="ports")


@pytest.fixture
def followed(fresh_harness):
    """A registry like a harness's (the library's tools) following a registration table of
    its own, so nothing leaks into the process's REGISTERED."""
    from agent_harness.harness import library_tools
    from agent_harness.tools.decorator import RegisteredTools

    registered = RegisteredTools()
    registry = ToolRegistry(fresh_harness, library_tools(), registered=registered)
    yield registry, registered
    for name in list(registered):
        del registered[name]
    registry.sync()  # the test tools' toolbox rows go
    registry.close()


def test_a_tool_registered_after_the_registry_is_made_is_callable_and_retrieved(followed):
    registry, registered = followed
    heard = []
    registry.on_change(lambda tool, what: heard.append((tool, what)))
    registered.add(_berths_tool())
    assert heard == [("berths_of", "added")]
    assert json.loads(registry.call("berths_of", {"port": "NLRTM"})) == {
        "port": "NLRTM",
        "berths": 35,
    }
    stored = {r["name"] for r in registry.harness.backend.indexed_rows("toolbox")}
    assert "berths_of" not in stored  # registering wrote nothing to the database
    names = [s["function"]["name"] for s in registry.retrieve("berths of a port", k=3)]
    assert "berths_of" in names  # the retrieve indexed it first
    registered.add(_berths_tool("How many berths and quays a port has."))  # the cell re-run
    assert heard[-1] == ("berths_of", "changed")
    assert registry.get("berths_of").description == "How many berths and quays a port has."
    assert registry.sync()["added_or_changed"] == 1  # re-indexed with the new description
    del registered["berths_of"]
    assert heard[-1] == ("berths_of", "removed") and "berths_of" not in registry.names()


def test_a_name_a_live_registry_holds_is_refused_everywhere(followed, fresh_harness):
    from conftest import make_tool

    registry, registered = followed
    other = ToolRegistry(fresh_harness, tools=[make_tool("berths_of", dict)], always_on=())
    registered.follow(other)

    def port_info(port: str) -> dict:
        """My own port lookup.

        Args:
            port: A UN/LOCODE such as NLRTM.
        """

    with pytest.raises(ToolDefinitionError, match="already registered .by agent_harness"):
        registered.add(Tool.from_function(port_info))
    with pytest.raises(ToolDefinitionError, match="already registered"):
        registered.add(_berths_tool())  # `other` holds another function of that name
    assert "berths_of" not in registered and "berths_of" not in registry.names()
    assert registry.get("port_info").source.startswith("agent_harness.tools.supplychain")
    registered.unfollow(other)


def test_a_registered_tool_whose_name_is_taken_is_left_out_with_a_warning(fresh_harness):
    from agent_harness.harness import library_tools
    from agent_harness.tools import ToolDefinitionWarning
    from agent_harness.tools.decorator import RegisteredTools

    def port_info(port: str) -> dict:
        """My own port lookup.

        Args:
            port: A UN/LOCODE such as NLRTM.
        """

    registered = RegisteredTools()
    registered.add(Tool.from_function(port_info))  # no harness yet: nobody to refuse it
    with pytest.warns(ToolDefinitionWarning, match="left out of this harness"):
        registry = ToolRegistry(fresh_harness, library_tools(), registered=registered)
    assert registry.get("port_info").source == "agent_harness.tools.supplychain.ports.port_info"
    registry.close()


def test_a_closed_registry_no_longer_follows(followed):
    registry, registered = followed
    registry.close()
    registered.add(_berths_tool())
    assert "berths_of" not in registry.names()


def test_importing_the_tool_modules_registers_nothing():
    import subprocess
    import sys

    code = (
        "import agent_harness, agent_harness.harness, agent_harness.tools.core,"
        " agent_harness.tools.supplychain\n"
        "from agent_harness.tools import REGISTERED\n"
        "print(len(REGISTERED))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "0"


def test_a_tool_function_called_outside_a_call_says_how_to_run_it(harness):
    from agent_harness.tools.context import NoCurrentHarness, using
    from agent_harness.tools.supplychain import find_vessel

    with pytest.raises(NoCurrentHarness, match=r"h\.tools\.call.*with using\(h\)"):
        find_vessel("maersk")
    with using(harness):
        assert find_vessel("maersk")["count"] >= 1
