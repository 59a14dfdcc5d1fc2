"""Tools as data: defined by rows, validated by JSON schema, SQL with bind variables only."""

from __future__ import annotations

import json
import warnings

import pytest

from agent_harness.tools import ToolDefinitionError, ToolDefinitionWarning
from agent_harness.tools.implementations import numbered_binds, sql_binds
from agent_harness.tools.parameter_rows import rows_from_schema, schema_from_rows
from tests.oracle_floor import ORACLE_RESERVED

PORT_SCHEMA = {
    "type": "object",
    "properties": {
        "country": {"type": "string", "description": "Country name, e.g. Netherlands."},
        "limit": {"type": "integer", "description": "Most rows.", "default": 5, "minimum": 1},
    },
    "required": ["country"],
}
COUNTRY_SCHEMA = {  # PORTS_SQL's one bind variable (a parameter without one is refused)
    "type": "object",
    "properties": {"country": PORT_SCHEMA["properties"]["country"]},
    "required": ["country"],
}
PORTS_SQL = (
    "SELECT port_code, name FROM supplychain.ports WHERE country = :country ORDER BY port_code"
)
# The first :limit of them, in SQL both backends read (Oracle has no LIMIT; SQLite has no
# FETCH FIRST): these tests also run in the Oracle job.
FIRST_PORTS_SQL = (
    "SELECT port_code, name FROM (SELECT port_code, name,"
    " ROW_NUMBER() OVER (ORDER BY port_code) AS position FROM supplychain.ports"
    " WHERE country = :country) numbered WHERE position <= :limit ORDER BY port_code"
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
        COUNTRY_SCHEMA,
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
        COUNTRY_SCHEMA,
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
        {"type": "sql", "statement": FIRST_PORTS_SQL},
    )
    result, out = _call(h, "ports_limited", {"country": "China"})
    china = {"sql": PORTS_SQL, "binds": {"country": "China"}}
    everything = json.loads(h.tools.call("run_sql", china))
    assert result.ok and out["rows"] == everything["rows"][:5]  # default limit filled in
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
    assert result.error_type == "caller_error" and "nope" in out["error"]


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
        ({"implementation": {"type": "sql", "statement": "SELECT :x"}}, "without a parameter: :x"),
        (
            {"parameters": PORT_SCHEMA, "implementation": {"type": "sql", "statement": PORTS_SQL}},
            "parameters without a bind variable: limit",
        ),
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
        # 2001 characters, 4002 bytes: a VARCHAR2(4000 CHAR) holds 4000 bytes (ORA-12899)
        ({"description": "\u00e9" * 2001}, "takes 4002 bytes in UTF-8 \\(2001 characters\\)"),
        (
            {
                "parameters": {
                    "type": "object",
                    "properties": {"a": {"type": "string", "description": "\u00e9" * 2001}},
                }
            },
            "argument 'a': its description takes 4002 bytes",
        ),
        (
            {"parameters": {"type": "object", "properties": {"a": {"description": "x"}}}},
            "JSON type",
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
    with pytest.raises(ToolDefinitionError, match=message) as refused:
        h.tools.define(**spec)
    assert isinstance(refused.value, ValueError)  # as notebook 07's define_sql_tool raises
    assert spec["name"] not in [
        d["name"] for d in h.backend.tool_definitions.all() if spec["name"] != "run_sql"
    ]


def test_schema_rows_round_trip():
    assert schema_from_rows(rows_from_schema("t", PORT_SCHEMA)) == {
        **PORT_SCHEMA,
        "additionalProperties": False,
    }


def test_a_null_default_means_no_default_unless_null_is_allowed():
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City.", "default": None},
            "unit": {"type": ["string", "null"], "default": None},
            "days": {"type": "integer", "default": 3},
        },
    }
    rows = {r["name"]: r for r in rows_from_schema("forecast", schema)}
    assert rows["city"]["default_value"] is None  # published "optional, no value": dropped
    assert json.loads(rows["unit"]["default_value"]) is None  # null fits: kept
    assert json.loads(rows["days"]["default_value"]) == 3
    back = schema_from_rows(list(rows.values()))["properties"]
    assert "default" not in back["city"] and back["unit"]["default"] is None


def test_a_default_that_does_not_fit_is_kept_unfilled_with_a_warning(h):
    schema = {
        "type": "object",
        "properties": {
            "detailed": {"type": "boolean", "description": "More.", "default": "false"},
            "days": {"type": "integer", "default": 3},
        },
    }
    with pytest.warns(ToolDefinitionWarning, match="'detailed': the default does not fit"):
        h.tools.define(
            "sloppy_default",
            "A published tool with a string default for a boolean.",
            schema,
            {"type": "javascript", "source": "return args;"},
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToolDefinitionWarning)
        h.tools.sync_definitions()  # said once, when defined: not on every reload
    published = h.tools.get("sloppy_default").parameters["properties"]["detailed"]
    assert published["default"] == "false"  # kept as published
    result, out = _call(h, "sloppy_default", {})
    assert result.ok and out == {"days": 3}, out  # the fitting default is filled, not the other
    result, out = _call(h, "sloppy_default", {"detailed": "false"})
    assert result.error_type == "invalid_arguments" and "detailed" in out["error"]


def test_a_null_default_is_not_filled_in(h):
    h.tools.define(
        "ports_maybe_limited",
        "Some ports of a country.",
        {
            "type": "object",
            "properties": {
                "country": {"type": "string", "description": "Country name."},
                "limit": {"type": "integer", "default": None},
            },
            "required": ["country"],
        },
        {"type": "javascript", "source": "return {limit_given: 'limit' in args};"},
    )
    result, out = _call(h, "ports_maybe_limited", {"country": "China"})
    assert result.ok and out == {"limit_given": False}, out
    result, out = _call(h, "ports_maybe_limited", {"country": "China", "limit": None})
    assert result.error_type == "invalid_arguments"  # an explicit null still does not fit


def test_bind_names_skip_quotes_and_comments():
    sql = "SELECT ':no', \":no2\" FROM t -- :no3\n WHERE a = :a /* :no4 */ AND b = :b AND a = :a"
    assert sql_binds(sql) == ["a", "b"]
    assert sql_binds("SELECT x::text FROM t WHERE y = :y") == ["y"]


def test_binds_are_renamed_by_position_and_quotes_are_left_alone():
    sql = "SELECT ':date' FROM t -- :size\n WHERE a = :date AND b = :size AND c = :date"
    sent, renamed = numbered_binds(sql)
    assert renamed == {"date": "arg1", "size": "arg2"}
    assert sent == "SELECT ':date' FROM t -- :size\n WHERE a = :arg1 AND b = :arg2 AND c = :arg1"


def test_a_sql_tool_may_call_its_parameters_by_words_oracle_reserves(h, monkeypatch):
    # :size and :user raise ORA-01745 as Oracle bind names; the tool keeps its parameter names
    # and the statement that runs binds them by position.
    statement = (
        "SELECT name FROM supplychain.vessels WHERE capacity_teu >= :size AND name <> :user"
        " ORDER BY name"
    )
    schema = {
        "type": "object",
        "properties": {
            "size": {"type": "integer", "description": "Least capacity in TEU."},
            "user": {"type": "string", "description": "A vessel name to leave out."},
        },
        "required": ["size", "user"],
    }
    h.tools.define(
        "big_vessels",
        "Vessels of at least a size.",
        schema,
        {"type": "sql", "statement": statement},
    )
    sent = []
    readonly_query = h.backend.readonly_query
    monkeypatch.setattr(
        h.backend,
        "readonly_query",
        lambda sql, binds, **kw: sent.append((sql, binds)) or readonly_query(sql, binds, **kw),
    )
    result, out = _call(h, "big_vessels", {"size": 20000, "user": "nobody"})
    assert result.ok and out["rows"], out
    [(sql, binds)] = sent
    assert binds == {"arg1": 20000, "arg2": "nobody"} and ":size" not in sql
    assert not [n for n in sql_binds(sql) if n.upper() in ORACLE_RESERVED]


# --- public definitions, many at once -----------------------------------------------------------
JS_STUB = {"type": "javascript", "source": "return args;"}
PUBLIC = {
    "type": "function",
    "function": {
        "name": "Create-Calendar-Event2",
        "description": "Create an event in a calendar.",
        "strict": False,
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},  # no description: public schemas often have none
                "when": {
                    "type": "object",
                    "description": "Start and end.",
                    "properties": {
                        "start": {"type": "string", "format": "date-time"},
                        "end": {"type": "string"},
                    },
                    "required": ["start"],
                },
                "attendees": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"email": {"type": "string"}}},
                },
                "visibility": {"type": "string", "enum": ["public", "private"]},
                "reminder": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                "color": {"type": ["string", "null"], "description": "Colour, or null."},
                "page-size": {"type": "integer", "default": 10},
            },
            "required": ["title", "when"],
        },
    },
}


def _names_stored(h, names):
    stored = {d["name"] for d in h.backend.tool_definitions.all()}
    boxed = {r["name"] for r in h.backend.indexed_rows("toolbox")}
    return (stored | boxed | set(h.tools.names())) & set(names)


def test_define_many_keeps_public_schemas_as_they_are(h):
    [tool] = h.tools.define_many([PUBLIC], implementation=JS_STUB)
    schema = PUBLIC["function"]["parameters"]
    assert tool.name == "Create-Calendar-Event2" and h.tools.get(tool.name) is tool
    assert tool.parameters["required"] == ["title", "when"]
    for name, spec in schema["properties"].items():
        assert tool.parameters["properties"][name] == spec  # nested, enum, anyOf, type lists
    reloaded = h.tools.sync_definitions()
    assert reloaded["problems"] == {} and h.tools.get(tool.name).parameters == tool.parameters
    ok = h.tools.call_detailed(
        tool.name, {"title": "Standup", "when": {"start": "2026-01-05T09:00:00Z"}}
    )
    assert ok.ok and json.loads(ok.output)["page-size"] == 10  # the default filled in
    for bad in (
        {"title": "x"},
        {"title": "x", "when": {"end": "y"}},
        {"title": "x", "when": {"start": "y"}, "visibility": "secret"},
        {"title": "x", "when": {"start": "y"}, "reminder": [1]},
    ):
        assert h.tools.call_detailed(tool.name, bad).error_type == "invalid_arguments"
    assert "Create-Calendar-Event2" in [
        r["name"] for r in h.tools.rank("put a standup meeting in my calendar", mode="hybrid")
    ]


def test_define_many_stores_several_at_once_and_retrieves_them(h, monkeypatch):
    entries = [
        {
            "name": f"bulk_tool_{i}",
            "description": f"Bulk tool number {i} for the {word} report.",
            "parameters": {"type": "object", "properties": {}},
            "implementation": JS_STUB,
            "category": "testing",
        }
        for i, word in enumerate(["weather", "payroll", "inventory"])
    ]
    tools = h.tools.define_many(entries)
    assert [t.name for t in tools] == ["bulk_tool_0", "bulk_tool_1", "bulk_tool_2"]
    assert _names_stored(h, [t.name for t in tools]) == {t.name for t in tools}
    assert h.tools.rank("payroll report", k=1, mode="keyword")[0]["name"] == "bulk_tool_1"
    embedded = []
    real_embed = h.embed
    monkeypatch.setattr(h, "embed", lambda texts: embedded.append(len(texts)) or real_embed(texts))
    again = h.tools.define_many(entries)  # the same definitions again: nothing to re-embed
    assert [t.name for t in again] == [t.name for t in tools] and embedded == []


@pytest.mark.parametrize(
    "bad, message",
    [
        (
            {
                "type": "function",
                "function": {"name": "bad name", "description": "x"},
                "implementation": JS_STUB,
            },
            "must match",
        ),
        ("not a dict", "must be a dict"),
        ({"name": "x_tool", "description": "x", "colour": "red"}, "unknown key"),
        ({"name": "run_sql", "description": "x", "implementation": JS_STUB}, "already registered"),
        ({"name": "bulk_ok_1", "description": "x", "implementation": JS_STUB}, "defined twice"),
        ({"type": "function", "function": {"name": "lonely", "description": "x"}}, "no impl"),
    ],
    ids=["bad name", "not a dict", "unknown key", "python name", "duplicate", "no implementation"],
)
def test_define_many_refuses_bad_entries_and_stores_nothing(h, bad, message):
    good = [
        {"name": f"bulk_ok_{i}", "description": "A fine tool.", "implementation": JS_STUB}
        for i in range(3)
    ]
    with pytest.raises(ToolDefinitionError, match=message) as refused:
        h.tools.define_many([*good, bad])
    assert "1 of 4 refused, nothing stored" in str(refused.value)
    assert "entry 3" in str(refused.value)
    assert not _names_stored(h, [g["name"] for g in good])


def test_define_costs_the_same_whatever_the_registry_size(h, monkeypatch):
    """define builds and embeds only its own tool: no reload of every definition."""
    h.tools.define_many(
        [
            {"name": f"filler_{i}", "description": f"Filler {i}.", "implementation": JS_STUB}
            for i in range(20)
        ]
    )
    embedded = []
    real_embed = h.embed
    monkeypatch.setattr(h, "embed", lambda texts: embedded.append(len(texts)) or real_embed(texts))

    def no_reload():
        raise AssertionError("define must not reload every definition")

    monkeypatch.setattr(h.backend.tool_definitions, "all", no_reload)
    monkeypatch.setattr(h.backend, "indexed_rows", lambda box, names=None: [] if names else 1 / 0)
    h.tools.define("one_more", "One more tool.", {"type": "object"}, JS_STUB)
    assert embedded == [2]  # its description and its name words, nothing else
    assert h.tools.undefine("one_more") and "one_more" not in h.tools.names()


@pytest.fixture
def echo_type(monkeypatch):
    """A new implementation type, added to the one table for the test: ``echo`` returns
    ``{"prefix": ..., "arguments": {...}}``."""
    from agent_harness.tools import implementations

    def build(definition):
        prefix = definition.implementation.get("prefix")
        if not isinstance(prefix, str):
            raise ToolDefinitionError(f"tool {definition.name!r}: an echo tool needs a 'prefix'")
        return lambda **arguments: {"prefix": prefix, "arguments": arguments}

    kind = implementations.ImplementationType("echo", "its arguments, back", build)
    monkeypatch.setitem(implementations.IMPLEMENTATION_TYPES, "echo", kind)
    return kind


def test_a_new_implementation_type_is_one_entry_of_the_table(echo_type):
    from agent_harness.tools.implementations import build_tool
    from agent_harness.tools.tool_definitions import definition_from_entry

    entry = {"name": "echo_it", "description": "Echo.", "parameters": PORT_SCHEMA}
    tool = build_tool(definition_from_entry(entry, {"type": "echo", "prefix": ">"}))
    assert tool.implementation_type == "echo" and tool.defined_as_data
    assert tool.function(**tool.validate({"country": "NL"})) == {
        "prefix": ">",
        "arguments": {"country": "NL", "limit": 5},
    }
    with pytest.raises(ToolDefinitionError, match="needs a 'prefix'"):
        build_tool(definition_from_entry(entry, {"type": "echo"}))
    with pytest.raises(ToolDefinitionError, match="not one of sql, javascript, mcp, echo"):
        build_tool(definition_from_entry(entry, {"type": "ftp"}))


def test_a_new_implementation_type_is_stored_and_called_without_a_migration(h, echo_type):
    h.tools.define("echo_it", "Echo.", PORT_SCHEMA, {"type": "echo", "prefix": ">"})
    try:
        assert h.tools.sync_definitions()["problems"] == {}
        assert json.loads(h.tools.call("echo_it", {"country": "NL"}))["prefix"] == ">"
    finally:
        h.tools.undefine("echo_it")
