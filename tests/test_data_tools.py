"""Tools as data: defined by rows, validated by JSON schema, SQL with bind variables only."""

from __future__ import annotations

import json

import pytest

from agent_harness.tools.data_tools import rows_from_schema, schema_from_rows, sql_binds
from agent_harness.tools.definition import ToolDefinitionError

PORT_SCHEMA = {
    "type": "object",
    "properties": {
        "country": {"type": "string", "description": "Country name, e.g. Netherlands."},
        "limit": {"type": "integer", "description": "Most rows.", "default": 5, "minimum": 1},
    },
    "required": ["country"],
}
PORTS_SQL = (
    "SELECT port_code, name FROM supplychain.ports WHERE country = :country ORDER BY port_code"
)


@pytest.fixture(scope="module")
def h(fresh_harness):
    return fresh_harness


def _call(h, name, arguments):
    result = h.tools.call_detailed(name, arguments)
    return result, json.loads(result.output)


def test_a_sql_tool_runs_with_bind_variables_and_is_retrievable(h):
    tool = h.tools.define(
        "ports_in_country",
        "Ports of a country, by UN/LOCODE.",
        PORT_SCHEMA,
        {"type": "sql", "statement": PORTS_SQL},
        category="ports",
    )
    assert tool.category == "ports" and tool.source == "data:sql:ports_in_country"
    result, out = _call(h, "ports_in_country", {"country": "Netherlands"})
    assert result.ok and out["columns"] == ["port_code", "name"]
    assert ["NLRTM", "Rotterdam"] in out["rows"]
    offered = [t["function"]["name"] for t in h.tools.retrieve("which ports are in a country", k=5)]
    assert "ports_in_country" in offered
    assert h.tools.telemetry(tool="ports_in_country")[-1]["success"] == 1


@pytest.mark.parametrize(
    "hostile",
    [
        "x' OR '1'='1",
        "Netherlands'; DROP TABLE supplychain.ports; --",
        "\\' OR 1=1 --",
        "\u02bc OR \u02bc1\u02bc=\u02bc1",
        "Netherlands\x00",
        "' UNION SELECT name, sql FROM sqlite_master --",
    ],
)
def test_hostile_text_is_only_ever_data(h, hostile):
    h.tools.define(
        "ports_by_country",
        "Ports of a country.",
        PORT_SCHEMA,
        {"type": "sql", "statement": PORTS_SQL},
    )
    result, out = _call(h, "ports_by_country", {"country": hostile})
    assert result.ok and out["rows"] == []  # matched as a (strange) country name, nothing else
    assert h.tools.call("run_sql", {"sql": "SELECT COUNT(*) AS n FROM supplychain.ports"})


def test_arguments_are_validated_against_the_stored_schema_with_defaults(h):
    h.tools.define(
        "ports_limited",
        "Some ports of a country.",
        PORT_SCHEMA,
        {"type": "sql", "statement": PORTS_SQL + " LIMIT :limit"},
    )
    result, out = _call(h, "ports_limited", {"country": "China"})
    assert result.ok and len(out["rows"]) <= 5  # default limit filled in
    for bad in (
        {"country": 7},
        {},
        {"country": "China", "limit": 0},
        {"country": "China", "colour": "red"},
    ):
        result, out = _call(h, "ports_limited", bad)
        assert result.error_type == "invalid_arguments" and result.success is None
        assert "ports_limited takes: country, limit?" in out["error"]


def test_a_javascript_tool_gets_its_arguments_as_data(h):
    schema = {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "Any text."}},
        "required": ["text"],
    }
    h.tools.define(
        "shout",
        "Upper-case a text.",
        schema,
        {"type": "javascript", "source": "return args.text.toUpperCase();"},
    )
    for text in ["hello", "\"); throw new Error('x'); (\"", "`${1+1}`", "\u2028 line"]:
        result = h.tools.call_detailed("shout", {"text": text})
        assert result.ok and result.output == text.upper()  # a text result is sent as is
    h.tools.define(
        "boom",
        "Fails.",
        {"type": "object", "properties": {}},
        {"type": "javascript", "source": "throw new Error('nope');"},
    )
    result, out = _call(h, "boom", {})
    assert result.error_type == "tool_error" and "nope" in out["error"]


def test_an_insert_and_a_resync_make_a_tool_available(h):
    store = h.backend.tool_definitions
    store.put(
        {
            "name": "carrier_count",
            "description": "How many carriers there are.",
            "implementation_type": "sql",
            "implementation": json.dumps(
                {"statement": "SELECT COUNT(*) AS n FROM supplychain.carriers"}
            ),
            "category": "vessels",
            "access_level": "read",
            "timeout_s": 5.0,
        },
        [],
    )
    assert "carrier_count" not in h.tools.names()
    report = h.tools.sync_definitions()
    assert "carrier_count" in report["loaded"] and "carrier_count" in h.tools.names()
    assert _call(h, "carrier_count", {})[1]["rows"] == [[15]]
    assert h.tools.undefine("carrier_count") and "carrier_count" not in h.tools.names()


def test_a_broken_row_is_left_out_and_named(h):
    h.backend.tool_definitions.put(
        {
            "name": "broken_tool",
            "description": "x",
            "implementation_type": "sql",
            "implementation": json.dumps({"statement": "SELECT :nope AS x"}),
            "category": "general",
            "access_level": "read",
            "timeout_s": 5.0,
        },
        [],
    )
    report = h.tools.sync_definitions()
    assert "broken_tool" not in h.tools.names()
    assert ":nope" in report["problems"]["broken_tool"]
    h.backend.tool_definitions.delete("broken_tool")
    assert h.tools.sync_definitions()["problems"] == {}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"implementation": {"type": "python"}}, "not one of"),
        ({"implementation": {"type": "sql", "statement": "SELECT :x"}}, "no such parameter"),
        ({"implementation": {"type": "sql"}}, "needs a 'statement'"),
        ({"name": "run_sql"}, "already registered"),
        ({"name": "bad name"}, "must match"),
        ({"name": "dotted.name"}, "must match"),
        (
            {"parameters": {"type": "object", "properties": {"a": {"type": "strng"}}}},
            "not a valid JSON schema at properties/a/type",
        ),
        (
            {
                "parameters": {
                    "type": "object",
                    "properties": {"a": {"$ref": "#/$defs/a"}},
                    "$defs": {"a": {"type": "string"}},
                }
            },
            "inline",
        ),
        ({"description": "x" * 4001}, "at most 4000"),
        (
            {"parameters": {"type": "object", "properties": {"a": {"description": "x"}}}},
            "JSON type",
        ),
        (
            {
                "parameters": {
                    "type": "object",
                    "properties": {"a": {"type": "integer", "description": "x", "default": "five"}},
                }
            },
            "default does not fit",
        ),
        ({"access_level": "admin"}, "access_level"),
    ],
)
def test_bad_definitions_are_refused_and_nothing_is_stored(h, kwargs, message):
    spec = {
        "name": "some_tool",
        "description": "Something.",
        "parameters": {"type": "object", "properties": {}},
        "implementation": {"type": "sql", "statement": "SELECT 1 AS one"},
        **kwargs,
    }
    with pytest.raises(ToolDefinitionError, match=message):
        h.tools.define(**spec)
    assert spec["name"] not in [
        d["name"] for d in h.backend.tool_definitions.all() if spec["name"] != "run_sql"
    ]


def test_schema_rows_round_trip():
    assert schema_from_rows(rows_from_schema("t", PORT_SCHEMA)) == {
        **PORT_SCHEMA,
        "additionalProperties": False,
    }


def test_bind_names_skip_quotes_and_comments():
    sql = "SELECT ':no', \":no2\" FROM t -- :no3\n WHERE a = :a /* :no4 */ AND b = :b AND a = :a"
    assert sql_binds(sql) == ["a", "b"]
    assert sql_binds("SELECT x::text FROM t WHERE y = :y") == ["y"]
