"""Identity-aware access, enforced by the database (embedded backend).

The same question through every door (run_sql, a tool defined as SQL rows, the SUPPLYCHAIN
tools, get_document, an MCP client, the catalog scan) returns only the identity's rows and
the masked column as NULL; the hostile tries (HOSTILE, more than 20) return no hidden row and
no unmasked value; nothing a tool, an SQL statement, exec_js or an MCP call sends changes the
identity.
"""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client

from agent_harness.backends.errors import AccessDenied
from agent_harness.foundation.identity import Identity, IdentityError
from tests.identity_harnesses import ANA, FIN, harness_fixtures

VALUE_SQL = (
    "SELECT v.ocean_region, COUNT(*) AS lines, SUM(i.quantity * i.unit_value_cents) AS cents"
    " FROM supplychain.voyages v JOIN supplychain.containers c ON c.voyage_id = v.voyage_id"
    " JOIN supplychain.cargo_items i ON i.container_no = c.container_no"
    " GROUP BY v.ocean_region ORDER BY v.ocean_region"
)


folder, owner, ana, fay = harness_fixtures("guardrails")


def sql(h, text: str, **binds) -> dict:
    out = json.loads(h.tools.call("run_sql", {"sql": text, "binds": binds, "max_rows": 1000}))
    assert "error" not in out, out
    return out


def refused(h, text: str) -> str:
    out = json.loads(h.tools.call("run_sql", {"sql": text, "max_rows": 1000}))
    assert "error" in out, f"{text!r} ran as {h.identity.user}: {out}"
    return out["error"]


@pytest.fixture(scope="module")
def truth(owner):
    """What the owner sees: ids by region, every unit value, per-region totals."""
    voyages = sql(owner, "SELECT voyage_id, voyage_code, ocean_region FROM voyages")["rows"]
    items = sql(
        owner,
        "SELECT i.item_id, i.unit_value_cents, v.ocean_region FROM cargo_items i"
        " JOIN containers c ON c.container_no = i.container_no"
        " JOIN voyages v ON v.voyage_id = c.voyage_id",
    )["rows"]
    return {
        "atlantic": {r[0] for r in voyages if r[2] == "ATLANTIC"},
        "hidden": {r[0] for r in voyages if r[2] != "ATLANTIC"},
        "hidden_codes": {r[1] for r in voyages if r[2] != "ATLANTIC"},
        "atlantic_items": {r[0] for r in items if r[2] == "ATLANTIC"},
        "values": {r[1] for r in items if r[1] is not None},
        "by_item": {r[0]: r[1] for r in items},
        "totals": {r[0]: r[2] for r in sql(owner, VALUE_SQL)["rows"]},
    }


# --- the identity itself --------------------------------------------------------------------


def test_an_identity_from_a_dict_a_string_or_json_is_the_same_value():
    a = Identity.of(ANA)
    assert a == Identity.parse("ana:analyst:atlantic") == Identity.parse(json.dumps(ANA))
    assert a.key == "ana:analyst:ATLANTIC" and not a.finance and a.sees_region("atlantic")
    assert Identity.of(None) is None and Identity.of(a) is a


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ({"user": "ana", "regions": ["ARCTIC"]}, "not an ocean region"),
        ({"user": "ana", "roles": "finance"}, "must be a list"),
        ({"user": "ana", "owner": True}, "unknown keys"),
        ({"roles": ["finance"]}, "needs a 'user'"),
        ({"user": "ana'; --"}, "not valid"),
        ("ana:analyst:ATLANTIC:extra", "nor a JSON object"),
    ],
)
def test_a_bad_identity_is_refused_with_what_to_give(value, says):
    with pytest.raises(IdentityError, match=says):
        Identity.of(value)


def test_no_identity_is_the_owner_who_sees_everything(owner, truth):
    assert owner.identity.owner and owner.identity.finance
    regions = {r[0] for r in sql(owner, "SELECT DISTINCT ocean_region FROM voyages")["rows"]}
    assert regions == {"ATLANTIC", "INDIAN", "MEDITERRANEAN", "PACIFIC"}
    assert all(v is not None for v in truth["totals"].values())


def test_the_identity_cannot_be_changed_on_the_harness(ana):
    with pytest.raises(AttributeError):
        ana.identity = Identity.of(FIN)
    with pytest.raises(AttributeError):  # a frozen dataclass
        ana.identity.regions = ("PACIFIC",)
    assert ana.scope.user_id == "ana:analyst:ATLANTIC"


def test_user_id_and_identity_together_are_refused(folder):
    import agent_harness

    with pytest.raises(ValueError, match="not both"):
        agent_harness.connect(data_dir=folder, identity=ANA, user_id="someone")


# --- the same SELECT through every door -----------------------------------------------------


def _expect_ana(rows, truth):
    assert rows == [["ATLANTIC", rows[0][1], None]], rows
    assert rows[0][1] == len(truth["atlantic_items"])


def test_run_sql_returns_only_the_identitys_rows_and_a_masked_column(ana, fay, truth):
    _expect_ana(sql(ana, VALUE_SQL)["rows"], truth)
    fay_rows = sql(fay, VALUE_SQL)["rows"]
    assert [r[0] for r in fay_rows] == ["INDIAN", "PACIFIC"]
    assert {r[0]: r[2] for r in fay_rows} == {k: truth["totals"][k] for k in ("INDIAN", "PACIFIC")}


def test_a_tool_defined_as_sql_rows_obeys_it(ana, truth):
    ana.tools.define(
        "guardrail_region_values",
        "Cargo lines and value per ocean region.",
        {"type": "object", "properties": {}},
        {"type": "sql", "statement": VALUE_SQL, "max_rows": 50},
        category="cargo",
    )
    out = json.loads(ana.tools.call("guardrail_region_values", {}))
    _expect_ana(out["rows"], truth)


def test_the_supplychain_tools_obey_it(ana, owner, truth):
    hidden_code = sorted(truth["hidden_codes"])[0]
    out = json.loads(ana.tools.call("voyage_status", {"voyage": hidden_code}))
    assert "error" in out and hidden_code not in json.dumps(out.get("rows", []))
    code = sql(ana, "SELECT voyage_code FROM voyages ORDER BY voyage_id")["rows"][0][0]
    mine = json.loads(ana.tools.call("cargo_value", {"voyage": code}))
    theirs = json.loads(owner.tools.call("cargo_value", {"voyage": code}))
    assert theirs["value_cents"] > 0 and mine["value_cents"] is None and mine["value_usd"] is None
    assert mine["lines"] == theirs["lines"]
    delayed = json.loads(ana.tools.call("delayed_voyages", {}))
    assert hidden_code not in json.dumps(delayed)


def test_get_document_obeys_it(ana, truth):
    visible = sorted(truth["atlantic"])[0]
    document = json.loads(ana.tools.call("get_document", {"name": "voyage_dv", "key": visible}))
    assert document["oceanRegion"] == "ATLANTIC"
    items = [i for c in document["containers"] for i in c["items"]]
    assert items and all(i["unitValueCents"] is None for i in items)
    hidden = sorted(truth["hidden"])[0]
    out = json.loads(ana.tools.call("get_document", {"name": "voyage_dv", "key": hidden}))
    assert "error" in out


def test_an_mcp_client_gets_the_same(ana, truth):
    from agent_harness.mcp.server import HarnessMcpServer
    from agent_harness.mcp.toolset import McpToolSet

    async def go():
        async with Client(HarnessMcpServer(McpToolSet(ana))) as client:
            rows = await client.call_tool("run_sql", {"sql": VALUE_SQL})
            who = await client.call_tool(
                "run_sql", {"sql": VALUE_SQL, "identity": {"user": "boss", "roles": ["finance"]}}
            )
            return json.loads(rows.content[0].text), who

    result, who = anyio.run(go)
    _expect_ana(result["rows"], truth)
    assert who.is_error  # an argument that is not in the schema is refused, not used


def test_exec_js_does_not_reach_the_database(ana):
    probe = (
        "[typeof require, typeof fetch, typeof process, typeof session, typeof globalThis.db]"
        ".join(',')"
    )
    out = json.loads(ana.tools.call("exec_js", {"code": probe}))
    assert out["result"] == "undefined,undefined,undefined,undefined,undefined", out


def test_the_catalog_describes_the_data_as_the_identity_sees_it(ana, truth):
    facts = {m.subject: m.content for m in ana.memory.list(metadata_filter={"kind": "table"})}
    assert f"({len(truth['atlantic'])} rows visible to ana)" in facts["SUPPLYCHAIN.VOYAGES"]
    column = ana.memory.list(
        metadata_filter={"kind": "column", "subject": "SUPPLYCHAIN.CARGO_ITEMS.UNIT_VALUE_CENTS"}
    )[0]
    assert "Masked for you" in column.content


def test_an_identitys_first_scan_embeds_only_the_facts_that_read_differently(
    folder, owner, monkeypatch
):
    """Issue 28, item 4: a new identity's catalog memories reuse the vectors stored for the
    same facts (the owner's), so its first connection embeds a handful of texts, not the whole
    catalog again (it embedded every fact: 10-31 s in notebook 09 on a busy machine)."""
    import numpy as np

    import agent_harness
    from agent_harness.foundation import embeddings

    embedded: list[str] = []
    model = embeddings.Embedder._embed_batch

    def counted(self, texts):
        embedded.extend(texts)
        return model(self, texts)

    monkeypatch.setattr(embeddings.Embedder, "_embed_batch", counted)
    embeddings.get_embedder().clear_cache()  # what this process embedded before is not reused
    mine = {"user": "ida", "roles": ["analyst"], "regions": ["MEDITERRANEAN"]}
    ida = agent_harness.connect(backend="embedded", data_dir=folder, identity=mine)
    try:
        kinds = ["table", "column", "relationship"]
        facts = ida.memory.list(metadata_filter={"kind": kinds}, limit=10_000)
        owners = {
            (m.subject, m.content)
            for m in owner.memory.list(metadata_filter={"kind": kinds}, limit=10_000)
        }
        differ = {
            f"{m.subject}: {m.content}" for m in facts if (m.subject, m.content) not in owners
        }
        assert len(facts) > 50 and 0 < len(differ) < 15, (len(facts), differ)
        assert set(embedded) <= differ, sorted(set(embedded) - differ)[:3]
        same = next(m for m in facts if (m.subject, m.content) in owners)
        stored = ida.backend.query(
            "SELECT embedding FROM memory_vectors WHERE memory_id = :i", {"i": same.id}
        )[0]["embedding"]
        computed = embeddings.Embedder(cache_size=0).embed([f"{same.subject}: {same.content}"])
        assert np.allclose(np.frombuffer(stored, dtype=np.float32), computed[0], atol=1e-4)
    finally:
        ida.close()


def test_memories_and_offloaded_outputs_of_one_identity_never_reach_another(owner, ana, truth):
    secret = max(truth["values"])
    owner.offload.log("t-guard", "call-guard-1", "run_sql", {}, f"unit value {secret} cents")
    owner.memory.add(f"the priciest line is worth {secret} cents", kind="finding")
    assert "error" in json.loads(
        ana.tools.call("fetch_tool_output", {"tool_call_id": "call-guard-1"})
    )
    found = json.loads(ana.tools.call("search_knowledge", {"query": "priciest line worth cents"}))
    assert all(str(secret) not in hit["content"] for hit in found)


# --- hostile tries ------------------------------------------------------------------------------

#: (what, SQL, "refused" or "filtered"); a filtered try must still show nothing hidden.
HOSTILE = [
    ("base table by its schema name", "SELECT * FROM supplychain.voyages", "filtered"),
    ("odd spacing and case", "SELECT * FROM SupplyChain . VOYAGES", "filtered"),
    ("a comment inside the name", "SELECT * FROM supplychain/**/.voyages", "filtered"),
    ("quoted base table", 'SELECT * FROM "supplychain"."voyages"', "refused"),
    ("bracket-quoted base table", "SELECT * FROM [supplychain].[voyages]", "refused"),
    (
        "UNION into the base table",
        'SELECT voyage_id FROM voyages UNION SELECT voyage_id FROM "supplychain".voyages',
        "refused",
    ),
    (
        "a CTE named like the view, over the quoted base table",
        'WITH voyages AS (SELECT * FROM "supplychain".voyages) SELECT * FROM voyages',
        "refused",
    ),
    (
        "a CTE named like the view, over itself",
        "WITH voyages AS (SELECT * FROM voyages) SELECT * FROM voyages",
        "refused",
    ),
    (
        "a CTE named like a view, over another filtered view",
        "WITH cargo_items AS (SELECT * FROM supplychain.cargo_items) SELECT * FROM cargo_items",
        "refused",
    ),
    (
        "correlated subquery into the base table",
        'SELECT name, (SELECT COUNT(*) FROM "supplychain".voyages x'
        " WHERE x.imo_number = s.imo_number) AS n FROM vessels s",
        "refused",
    ),
    (
        "EXISTS over another region",
        "SELECT s.name FROM vessels s WHERE EXISTS (SELECT 1 FROM supplychain.voyages v"
        " WHERE v.imo_number = s.imo_number AND v.ocean_region = 'PACIFIC')",
        "filtered",
    ),
    (
        "another region by name",
        "SELECT * FROM voyages WHERE ocean_region <> 'ATLANTIC'",
        "filtered",
    ),
    ("containers of every voyage", "SELECT * FROM supplychain.containers", "filtered"),
    ("positions of every voyage", "SELECT * FROM vessel_positions", "filtered"),
    (
        "aggregate side channel: COUNT and MIN over the masked column",
        "SELECT COUNT(unit_value_cents) AS n, MIN(unit_value_cents) AS lo,"
        " MAX(unit_value_cents) AS hi, SUM(unit_value_cents) AS total,"
        " AVG(unit_value_cents) AS mean FROM cargo_items",
        "filtered",
    ),
    (
        "filtering on the masked column",
        "SELECT item_id FROM cargo_items WHERE unit_value_cents > 0",
        "filtered",
    ),
    (
        "bisecting the value with CASE",
        "SELECT COUNT(*) AS n FROM cargo_items"
        " WHERE CASE WHEN unit_value_cents BETWEEN 0 AND 1000000000 THEN 1 END = 1",
        "filtered",
    ),
    (
        "grouping by the masked column",
        "SELECT unit_value_cents, COUNT(*) AS n FROM cargo_items GROUP BY unit_value_cents",
        "filtered",
    ),
    (
        "ranking by the masked column",
        "SELECT item_id, RANK() OVER (ORDER BY unit_value_cents DESC) AS r FROM cargo_items",
        "filtered",
    ),
    (
        "typeof and arithmetic on the masked column",
        "SELECT typeof(unit_value_cents) AS t, quantity * unit_value_cents AS v,"
        " unit_value_cents + 0 AS w FROM cargo_items",
        "filtered",
    ),
    (
        "the value inside a JSON document",
        "SELECT data FROM voyage_dv",
        "filtered",
    ),
    ("PRAGMA that writes", "PRAGMA query_only = 0", "refused"),
    ("PRAGMA that reads the schema cookie", "PRAGMA supplychain.schema_version", "refused"),
    ("ATTACH the file again", "ATTACH DATABASE 'supplychain.db' AS raw", "refused"),
    ("page statistics (dbstat)", "SELECT name, ncell FROM dbstat('supplychain')", "refused"),
    ("creating a view of one's own", "CREATE TEMP VIEW mine AS SELECT * FROM voyages", "refused"),
    ("a second statement", 'SELECT 1; SELECT * FROM "supplychain".voyages', "refused"),
    ("load_extension", "SELECT load_extension('x')", "refused"),
]


def _leaks(result: dict, truth: dict) -> list[str]:
    text = json.dumps(result["rows"])
    found = []
    for row in result["rows"]:
        named = dict(zip(result["columns"], row))
        for key in ("voyage_id",):
            if named.get(key) in truth["hidden"]:
                found.append(f"hidden voyage {named[key]}")
        if named.get("ocean_region") not in (None, "ATLANTIC"):
            found.append(f"region {named['ocean_region']}")
        for key in ("unit_value_cents", "lo", "hi", "total", "mean", "v", "w"):
            if named.get(key) is not None:
                found.append(f"{key}={named[key]}")
        if named.get("item_id") is not None and named["item_id"] not in truth["atlantic_items"]:
            found.append(f"hidden item {named['item_id']}")
        if named.get("t") not in (None, "null"):
            found.append(f"typeof {named['t']}")
        if result["columns"] == ["n"] and named["n"] != 0:  # the bisecting COUNT
            found.append(f"count {named['n']}")
        if "r" in named and named["r"] != 1:  # ranked by a column that is NULL everywhere
            found.append(f"rank {named['r']}")
    if result["columns"][:1] == ["unit_value_cents"] and len(result["rows"]) > 1:
        found.append(f"{len(result['rows'])} groups")
    found += [f"code {c}" for c in truth["hidden_codes"] if c in text]
    if '"unitValueCents": ' in text or '"oceanRegion": "PACIFIC"' in text:
        document_values = [
            v for v in truth["values"] if f'\\"unitValueCents\\":{v}' in text.replace(" ", "")
        ]
        found += [f"document value {v}" for v in document_values]
    return found


@pytest.mark.parametrize(("what", "statement", "outcome"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_tries_show_no_hidden_row_and_no_unmasked_value(
    ana, truth, what, statement, outcome
):
    if outcome == "refused":
        refused(ana, statement)
        return
    result = sql(ana, statement)
    assert _leaks(result, truth) == [], f"{what}: {result['rows'][:5]}"


def test_there_are_at_least_twenty_hostile_tries():
    assert len(HOSTILE) >= 20


def test_the_counts_through_the_filter_are_the_identitys(ana, truth):
    rows = sql(ana, "SELECT COUNT(*) AS n FROM cargo_items WHERE unit_value_cents IS NULL")["rows"]
    assert rows == [[len(truth["atlantic_items"])]]  # every visible line reads as NULL
    ranked = sql(ana, "SELECT item_id FROM cargo_items ORDER BY unit_value_cents DESC")["rows"]
    natural = sql(ana, "SELECT item_id FROM cargo_items")["rows"]
    by_value = sorted(natural, key=lambda r: -truth["by_item"][r[0]])
    assert ranked == natural != by_value  # ORDER BY the masked column orders nothing


def test_a_view_or_table_the_policy_forgot_is_refused(owner, ana, truth):
    owner.backend.execute("CREATE VIEW supplychain.every_voyage AS SELECT * FROM voyages")
    owner.backend.execute("CREATE TABLE supplychain.voyage_copy AS SELECT * FROM voyages")
    try:
        assert "access policy" in refused(ana, "SELECT * FROM supplychain.every_voyage")
        assert "outside the policy view" in refused(ana, "SELECT * FROM every_voyage")
        assert "access policy" in refused(ana, "SELECT * FROM supplychain.voyage_copy")
        assert "does not cover" in refused(ana, "SELECT * FROM voyage_copy")
        assert len(sql(owner, "SELECT * FROM supplychain.voyage_copy")["rows"]) == len(
            truth["atlantic"] | truth["hidden"]
        )
    finally:
        owner.backend.execute("DROP VIEW supplychain.every_voyage")
        owner.backend.execute("DROP TABLE supplychain.voyage_copy")


def test_an_index_on_the_masked_column_closes_the_door_instead_of_leaking_its_order(folder):
    from agent_harness.backends.embedded.readonly import ReadOnlyConnection

    path = folder / "supplychain.db"
    import apsw

    conn = apsw.Connection(str(path))
    conn.execute("CREATE INDEX ix_value ON cargo_items (unit_value_cents, item_id)")
    try:
        with pytest.raises(AccessDenied, match="ix_value"):
            ReadOnlyConnection(path, Identity.of(ANA))
        ReadOnlyConnection(path, Identity.of(FIN)).close()  # finance sees the values anyway
    finally:
        conn.execute("DROP INDEX ix_value")
        conn.close()


def test_a_refusal_says_it_was_the_policy(ana):
    message = refused(ana, 'SELECT * FROM "supplychain"."cargo_items"')
    assert "access policy of ana" in message


# --- two identities ask the agent the same question -------------------------------------------

QUESTION = "What is the declared cargo value per ocean region?"


def _regions_in_answer(answer: str) -> set[str]:
    return {r for r in ("ATLANTIC", "INDIAN", "MEDITERRANEAN", "PACIFIC") if r in answer}


def test_two_identities_get_different_correct_answers_and_the_trail_says_why(ana, fay, truth):
    from agent_harness.agent.agent_loop import agent_turn

    mine = agent_turn(ana, QUESTION, thread_id="guard-ana")
    theirs = agent_turn(fay, QUESTION, thread_id="guard-fay")
    assert mine.answer != theirs.answer
    assert _regions_in_answer(mine.answer) == {"ATLANTIC"}
    ana_rows = json.loads(ana.tools.call("run_sql", {"sql": _scenario_sql()}))["rows"]
    assert [r[0] for r in ana_rows] == ["ATLANTIC"] and ana_rows[0][2] is None
    assert "null" in mine.answer  # the masked value reads as null, not as 0
    assert _regions_in_answer(theirs.answer) == {"INDIAN", "PACIFIC"}
    for region in ("INDIAN", "PACIFIC"):
        dollars = truth["totals"][region] / 100
        assert f'["{region}", ' in theirs.answer and f"{dollars:.2f}" in theirs.answer, region
    for harness, turn, user in ((ana, mine, "ana"), (fay, theirs, "fay")):
        tree = harness.provenance.explain(turn.turn_id)
        assert tree["user_id"] == harness.identity.key
        identity = tree["events"][0]
        assert identity["kind"] == "identity" and identity["name"] == user
        assert identity["detail"]["regions"] == list(harness.identity.regions)
        assert identity["detail"]["policy"] == harness.identity.describe()


def _scenario_sql() -> str:
    from agent_harness.agent.llm.scenarios import _REGION_VALUE_SQL

    return _REGION_VALUE_SQL


def test_workshop_mcp_identity_serves_the_identitys_rows_over_stdio(folder, truth):
    import os
    import sys
    from pathlib import Path

    from mcp import StdioServerParameters

    workshop = Path(sys.executable).with_name("workshop")
    env = {**os.environ, "WORKSHOP_DATA_DIR": str(folder), "WORKSHOP_BACKEND": "embedded"}
    params = StdioServerParameters(
        command=str(workshop),
        args=["mcp", "--tools", "run_sql", "--identity", "ana:analyst:ATLANTIC"],
        env=env,
    )

    async def go():
        with anyio.fail_after(120):
            async with Client(params) as client:
                return await client.call_tool("run_sql", {"sql": VALUE_SQL})

    result = anyio.run(go)
    _expect_ana(json.loads(result.content[0].text)["rows"], truth)


def test_workshop_mcp_refuses_a_bad_identity_before_starting():
    from click.testing import CliRunner

    from agent_harness.interfaces.cli import cli

    out = CliRunner().invoke(cli, ["mcp", "--identity", "ana:analyst:ARCTIC"])
    assert out.exit_code != 0 and "not an ocean region" in out.output
