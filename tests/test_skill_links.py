"""Skills linked to tools and to other skills, agents and their grants (notebook 07).

Parsing is checked offline; the links, the recursive resolution and the agents run on every
backend (the Oracle variants where Oracle is reachable), each test with skill and agent names
of its own.
"""

from __future__ import annotations

import re
import uuid

import pytest

from agent_harness.agent.disclosure import STARTER_TOOLS
from agent_harness.parts.agents import AgentDefinitionError, AgentNotFound
from agent_harness.parts.skill_files import ToolGrant, parse_skill
from agent_harness.parts.skills import PROJECT_SKILLS, SkillNotFound

FILES = sorted(PROJECT_SKILLS.glob("*.md"))


def _skill(text_front: str, title: str = "A Skill", body: str = "Use when testing.") -> str:
    return f"---\n{text_front}\n---\n# {title}\n\n{body}\n\n## Steps\n1. x\n"


# --- parsing --------------------------------------------------------------------------------


def test_front_matter_links_are_parsed():
    skill = parse_skill(
        _skill(
            "tools:\n  - vessel_position\n  - name: remember\n    access: write\n"
            "requires: [Schema Discovery]\noptional: [calc]\nparent: ops"
        ),
        "vessel-things",
    )
    assert skill.tools == (ToolGrant("vessel_position"), ToolGrant("remember", "write"))
    assert skill.requires == ("schema-discovery",) and skill.optional == ("calc",)
    assert skill.parent == "ops" and skill.body.startswith("# A Skill")
    assert skill.description == "Use when testing."


def test_agent_skills_allowed_tools_field_is_read_as_tools():
    skill = parse_skill(_skill("name: x\nallowed-tools: run_sql, exec_js port_info"), "x")
    assert [g.tool for g in skill.tools] == ["run_sql", "exec_js", "port_info"]
    assert {g.access for g in skill.tools} == {"read"}


def test_a_tool_listed_twice_keeps_its_strongest_grant():
    skill = parse_skill(_skill("tools: [exec_js, {name: exec_js, access: execute}]"), "x")
    assert skill.tools == (ToolGrant("exec_js", "execute"),)


def test_imported_libraries_prefix_their_links():
    skill = parse_skill(_skill("requires: [tuning]\nparent: base"), "oracle/slow", source="oracle")
    assert skill.name == "oracle-slow"
    assert skill.requires == ("oracle-tuning",) and skill.parent == "oracle-base"


@pytest.mark.parametrize(
    "front, expected",
    [
        ("tools: [{name: remember, access: admin}]", "access must be one of read, write"),
        ("tools: [{tool: remember}]", "tools"),
        ("requires: not-a-list", "requires"),
        ("tools: [unclosed", "not valid YAML"),
    ],
)
def test_bad_front_matter_is_refused_with_the_field(front, expected):
    with pytest.raises(ValueError, match=re.escape(expected)) as error:
        parse_skill(_skill(front), "broken-skill")
    assert "broken-skill" in str(error.value)


# --- the project's skills -------------------------------------------------------------------


def _prose(text: str) -> str:
    """A playbook without its front matter and code blocks (column aliases are not tools)."""
    body = parse_skill(text, "x").body
    return re.sub(r"```.*?```", "", body, flags=re.S)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_project_skill_maps_the_tools_its_playbook_uses(harness, path):
    """Each tool the playbook names is unlocked by loading it (its own tools and, transitively,
    its required skills'), is always on, or comes with an optional skill it names."""
    tools = set(harness.tools.names())
    named = {t for t in tools if re.search(rf"\b{t}\b", _prose(path.read_text()))}
    skill = parse_skill(path.read_text(), path.stem)
    reachable = set(harness.skills.resolve(skill.name).tools) | set(STARTER_TOOLS)
    for other in skill.optional:
        reachable |= set(harness.skills.resolve(other).tools)
    assert named <= reachable, f"{skill.name} names {sorted(named - reachable)} but never unlocks"
    assert {g.tool for g in skill.tools} <= tools, "a skill maps a tool that does not exist"
    assert skill.body.count("```sql") >= 1


def test_the_project_has_required_chains_parents_and_no_cycles(harness):
    dependencies = harness.skills.dependencies()
    assert any(d["required"] for d in dependencies) and any(not d["required"] for d in dependencies)
    assert len(harness.skills.tree()) > 1  # some skills are grouped under a parent
    for path in FILES:
        resolution = harness.skills.resolve(path.stem)
        assert resolution.cycles == [] and resolution.missing == []


# --- links and resolution, on every backend ---------------------------------------------------


@pytest.fixture(scope="module")
def graph(fresh_harness, tmp_path_factory):
    """Skills of this module: a -> b -> c (required), a -> d (optional), x <-> y (a cycle),
    m -> missing (required), child under a."""
    tag = uuid.uuid4().hex[:6]
    folder = tmp_path_factory.mktemp("skills")
    files = {
        "a": "tools: [port_info]\nrequires: [b]\noptional: [d]",
        "b": "tools: [{name: exec_js, access: execute}]\nrequires: [c]",
        "c": "tools: [{name: remember, access: write}, port_info]",
        "d": "tools: [hazmat_containers]",
        "x": "tools: [find_vessel]\nrequires: [y]",
        "y": "tools: [vessel_position]\nrequires: [x]",
        "m": "tools: [cargo_value]\nrequires: [nowhere]",
        "child": "tools: [voyage_status]\nparent: a",
    }
    for stem, front in files.items():
        (folder / f"{stem}.md").write_text(_skill(front, title=f"Skill {stem}"))
    fresh_harness.skills.ingest(folder, source=f"t{tag}")
    yield fresh_harness, (lambda stem: f"t{tag}-{stem}")
    fresh_harness.backend.delete_indexed("skillbox", [f"t{tag}-{s}" for s in files])


def test_resolution_follows_required_dependencies_transitively(graph):
    h, name = graph
    found = h.skills.resolve(name("a"))
    assert found.skills == [name("a"), name("b"), name("c")]  # breadth first, d not followed
    assert found.tools == {"port_info": "read", "exec_js": "execute", "remember": "write"}
    assert found.via == {"port_info": name("a"), "exec_js": name("b"), "remember": name("c")}
    assert found.cycles == [] and found.missing == []


def test_a_cycle_is_reported_and_walked_once(graph):
    h, name = graph
    found = h.skills.resolve(name("x"))
    assert found.skills == [name("x"), name("y")]
    assert found.tools == {"find_vessel": "read", "vessel_position": "read"}
    assert found.cycles == [[name("x"), name("y"), name("x")]]


def test_a_missing_dependency_is_reported_not_fatal(graph):
    h, name = graph
    found = h.skills.resolve(name("m"))
    assert found.tools == {"cargo_value": "read"} and found.missing == [name("nowhere")]


def test_resolving_an_unknown_skill_names_close_ones(graph):
    h, name = graph
    with pytest.raises(SkillNotFound, match="Did you mean"):
        h.skills.resolve(name("a") + "z")


def test_parents_group_skills(graph):
    h, name = graph
    assert h.skills.tree()[name("a")] == [name("child")]
    assert name("voyage_status") not in h.skills.resolve(name("a")).tools  # not inherited


def test_re_ingesting_replaces_the_links(graph, tmp_path):
    h, name = graph
    stem = name("a").split("-", 1)[0]
    (tmp_path / "d.md").write_text(_skill("tools: [reefer_containers]", title="Skill d"))
    h.skills.ingest(tmp_path, source=stem)
    assert h.skills.resolve(name("d")).tools == {"reefer_containers": "read"}
    assert name("d") in h.skills.unlockers("reefer_containers")
    assert h.skills.unlockers("reefer_containers", among=[name("a")]) == []


# --- agents --------------------------------------------------------------------------------


def test_agents_are_defined_with_skills_in_manifest_order(graph):
    h, name = graph
    agent_name = f"tester-{uuid.uuid4().hex[:6]}"
    agent = h.agents.define(
        agent_name,
        "Tests things.",
        "You test.",
        [name("x"), {"name": name("a"), "priority": 5}, name("child")],
    )
    assert agent.skill_names() == [name("a"), name("x"), name("child")]  # priority first
    manifest = h.agents.manifest(agent_name)
    assert [(e["name"], e["depth"]) for e in manifest] == [
        (name("a"), 0),
        (name("child"), 1),  # grouped under its parent
        (name("x"), 0),
    ]
    assert manifest[0]["unlocks"] == ["port_info", "exec_js", "remember"]
    text = h.agents.manifest_text(agent_name)
    assert f"  - {name('child')}: Use when testing. [unlocks: voyage_status]" in text
    assert h.agents.grants(agent_name)["exec_js"] == "execute"
    assert h.agents.delete(agent_name) and agent_name not in h.agents.names()


def test_max_access_caps_what_an_agent_may_run(graph):
    h, name = graph
    agent_name = f"viewer-{uuid.uuid4().hex[:6]}"
    h.agents.define(agent_name, "Reads.", "You read.", [name("a")], config={"max_access": "read"})
    access = h.agents.access(agent_name)[name("a")]["tools"]
    assert access == {"port_info": "read", "exec_js": None, "remember": None}
    assert h.agents.manifest(agent_name)[0]["unlocks"] == ["port_info"]
    assert h.agents.grants(agent_name) == {"port_info": "read"}
    h.agents.delete(agent_name)


@pytest.mark.parametrize(
    "name, skills, config, message",
    [
        ("Bad Name", ["x"], None, "lower-case words"),
        ("ok-name", [], None, "at least one skill"),
        ("ok-name", ["no-such-skill-anywhere"], None, "no skill named"),
        ("ok-name", ["vessel-lookup"], {"max_access": "root"}, "max_access must be one of"),
        ("ok-name", [{"name": "vessel-lookup", "rank": 1}], None, "bad skill entry"),
    ],
)
def test_bad_agent_definitions_are_refused(harness, name, skills, config, message):
    with pytest.raises(AgentDefinitionError, match=message):
        harness.agents.define(name, "d", "p", skills, config=config)
    assert "ok-name" not in harness.agents.names()


def test_an_unknown_agent_lists_the_agents(harness):
    with pytest.raises(AgentNotFound, match="supplychain-analyst"):
        harness.agents.get("nobody")


def test_the_project_agents_are_stored_by_setup(harness):
    assert {"supplychain-analyst", "supplychain-viewer"} <= set(harness.agents.names())
    analyst = harness.agents.get("supplychain-analyst")
    assert set(analyst.skill_names()) == {p.stem for p in FILES}
    viewer_grants = harness.agents.grants("supplychain-viewer")
    assert "remember" not in viewer_grants and "exec_js" not in viewer_grants
    assert harness.agents.grants("supplychain-analyst")["remember"] == "write"
