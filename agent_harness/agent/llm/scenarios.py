"""Scripted tool-call scenarios replayed by the offline model.

Each `Scenario` recognises one of the workshop's demo questions and says which tools a model
would call, step by step. `agent_harness.agent.llm.offline` plays them back: step 0 is answered to
the
first request after the user's question, step 1 after the first round of tool results, and so on;
when the steps run out the server writes a final answer that quotes the tool results.

Arguments are plain values, `Ref` placeholders that the server fills in at replay time (the
question, a named regex group, the previous step's tool call id), or a small callable that builds
the arguments from a `StepContext`. A callable returning ``None`` means "this call does not apply",
which ends the scenario early with a final answer.

Scenarios are tried in list order and the first match wins: requests phrased as an action
("remember ...", "compute the 90th percentile ...", "which skills ...") come first, whatever data
they mention, and the catch-all about column meanings and units comes last.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ANSWER_NO_TOOL",
    "BASIC_TOOLS",
    "PREVIOUS_CALL_ID",
    "QUESTION",
    "SCENARIOS",
    "Ref",
    "Scenario",
    "StepContext",
    "ScriptedCall",
    "ToolMessage",
    "find_scenario",
    "group",
    "knowledge_lines",
    "no_suitable_tool",
]


@dataclass(frozen=True)
class Ref:
    """A placeholder argument value that the server fills in when it plays a step.

    Attributes:
        source: ``"question"``, ``"previous_call_id"`` or ``"group:<name>"`` for a named group of
            the scenario's regex.
    """

    source: str


QUESTION = Ref("question")
PREVIOUS_CALL_ID = Ref("previous_call_id")


def group(name: str) -> Ref:
    """Return a placeholder for the named group ``name`` of the scenario's regex."""
    return Ref(f"group:{name}")


@dataclass(frozen=True)
class ToolMessage:
    """One tool message found in the conversation, joined with the call that produced it."""

    call_id: str
    name: str
    arguments: str
    content: str


@dataclass(frozen=True)
class StepContext:
    """What a step can look at when it builds its arguments.

    Attributes:
        question: The user's question as matched.
        groups: Named groups of the scenario's regex (empty for keyword scenarios).
        results: Every tool result since the question, oldest first.
        previous: The tool results of the latest round only.
        manifest: The skills in the system prompt (name -> description and unlocked tools),
            when the turn runs as an agent.
        knowledge: The lines under "Relevant knowledge:" in the question's message (the
            memories the agent loop gave the model, e.g. ``"- [note] our hub is ..."``).
    """

    question: str
    groups: Mapping[str, str] = field(default_factory=dict)
    results: tuple[ToolMessage, ...] = ()
    previous: tuple[ToolMessage, ...] = ()
    manifest: Mapping[str, Mapping] = field(default_factory=dict)
    knowledge: tuple[str, ...] = ()

    def latest(self, name: str) -> ToolMessage | None:
        """Return the most recent result of the tool ``name``, or None if it was not called."""
        for result in reversed(self.results):
            if result.name == name:
                return result
        return None


Arguments = Mapping[str, Any] | Callable[[StepContext], Mapping[str, Any] | None]


@dataclass(frozen=True)
class ScriptedCall:
    """A tool call the scripted model makes.

    Attributes:
        name: The tool's name; it is only called when the request offers it.
        arguments: Argument values (may hold `Ref` placeholders) or a callable building them.
        when: Optional condition; the call is dropped when it returns False.
        fallback: A tool to call with the same arguments when ``name`` is not offered (a
            model picks the next best tool it sees).
    """

    name: str
    arguments: Arguments = field(default_factory=dict)
    when: Callable[[StepContext], bool] | None = None
    fallback: str | None = None

    def arguments_for(self, ctx: StepContext) -> dict[str, Any] | None:
        """Return the call's arguments with placeholders filled, or None if it does not apply."""
        if self.when is not None and not self.when(ctx):
            return None
        arguments = self.arguments(ctx) if callable(self.arguments) else self.arguments
        return None if arguments is None else {k: _fill(v, ctx) for k, v in arguments.items()}


def _fill(value: Any, ctx: StepContext) -> Any:
    """Replace `Ref` placeholders (also inside lists and dicts) by their values."""
    if isinstance(value, dict):
        return {key: _fill(item, ctx) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_fill(item, ctx) for item in value]
    if not isinstance(value, Ref):
        return value
    if value.source == "question":
        return ctx.question
    if value.source == "previous_call_id":
        # Prefer the call whose output was offloaded: its id is the one to fetch.
        marked = [r for r in ctx.previous if _OFFLOAD_MARKER in r.content] or list(ctx.previous)
        return marked[0].call_id if marked else None
    if value.source.startswith("group:"):
        return ctx.groups.get(value.source.removeprefix("group:"))
    raise ValueError(
        f"Unknown placeholder {value.source!r}; use QUESTION, PREVIOUS_CALL_ID or group()."
    )


@dataclass(frozen=True)
class Scenario:
    """A scripted conversation for one kind of demo question.

    Attributes:
        name: Short unique name, also mixed into the tool call ids.
        keywords: Words that must all appear in the question (case-insensitive).
        pattern: A regex searched in the question (case-insensitive) instead of keywords; its
            named groups are available to the steps.
        steps: Rounds of tool calls, played one per request.
        answer_hint: First sentence of the final answer.
    """

    name: str
    keywords: tuple[str, ...] = ()
    pattern: str | None = None
    steps: list[list[ScriptedCall]] = field(default_factory=list)
    answer_hint: str = ""

    def match(self, question: str) -> dict[str, str] | None:
        """Return the regex groups (empty for keywords) if ``question`` fits, else None."""
        if self.pattern is not None:
            found = re.search(self.pattern, question, re.IGNORECASE | re.DOTALL)
            if found is None:
                return None
            return {key: value.strip() for key, value in found.groupdict().items() if value}
        lowered = question.lower()
        if self.keywords and all(word.lower() in lowered for word in self.keywords):
            return {}
        return None


def find_scenario(question: str) -> tuple[Scenario, dict[str, str]] | None:
    """Return the first scenario matching ``question`` and its regex groups, or None."""
    for scenario in SCENARIOS:
        groups = scenario.match(question)
        if groups is not None:
            return scenario, groups
    return None


# --- small argument builders -------------------------------------------------------------------

_REGIONS = ("PACIFIC", "ATLANTIC", "INDIAN", "MEDITERRANEAN")
_OFFLOAD_MARKER = "fetch_tool_output("
_CARRIER_SQL = (
    "SELECT c.name, COUNT(*) AS vessels FROM supplychain.vessels v "
    "JOIN supplychain.carriers c ON c.carrier_id = v.carrier_id "
    "GROUP BY c.name ORDER BY vessels DESC"
)
# Notebook 09: one question, two identities; the database decides what each one sees.
_REGION_VALUE_SQL = (
    "SELECT v.ocean_region, COUNT(DISTINCT v.voyage_id) AS voyages,"
    " SUM(i.quantity * i.unit_value_cents) / 100.0 AS value_usd"
    " FROM supplychain.voyages v"
    " JOIN supplychain.containers c ON c.voyage_id = v.voyage_id"
    " JOIN supplychain.cargo_items i ON i.container_no = c.container_no"
    " GROUP BY v.ocean_region ORDER BY v.ocean_region"
)
# Used when the question names no numbers: a week of port waiting times in hours.
_SAMPLE_VALUES = (12, 5, 33, 8, 21, 17, 9, 40, 3, 27)


def _region_arguments(ctx: StepContext) -> dict[str, Any]:
    lowered = ctx.question.lower()
    for region in _REGIONS:
        if region.lower() in lowered:
            return {"ocean_region": region}
    return {}


def _percentile_arguments(ctx: StepContext) -> dict[str, Any]:
    # The result is both logged and the last expression: engines differ in which one they return.
    percent = int(ctx.groups.get("percent", "90"))
    numbers = re.findall(r"-?\d+(?:\.\d+)?", ctx.groups.get("values", ""))
    values = ", ".join(numbers) if len(numbers) >= 2 else ", ".join(map(str, _SAMPLE_VALUES))
    code = (
        f"const values = [{values}];\n"
        f"const p = {percent};\n"
        "const sorted = [...values].sort((a, b) => a - b);\n"
        "const rank = (p / 100) * (sorted.length - 1);\n"
        "const lo = Math.floor(rank);\n"
        "const hi = Math.ceil(rank);\n"
        "const value = sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);\n"
        "const result = JSON.stringify({ percentile: p, value: value });\n"
        'if (typeof console !== "undefined") console.log(result);\n'
        "result;\n"
    )
    return {"code": code}


def _skills_query(ctx: StepContext) -> dict[str, Any]:
    return {"query": ctx.groups.get("topic") or ctx.question}


def _first_name(value: Any) -> str | None:
    """Depth-first search for the first string under a "name" key."""
    if isinstance(value, dict):
        if isinstance(value.get("name"), str):
            return value["name"]
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            name = _first_name(item)
            if name:
                return name
    return None


def _load_first_skill(ctx: StepContext) -> dict[str, Any] | None:
    listed = ctx.latest("list_skills")
    if listed is None and ctx.manifest:
        # No list_skills call: the manifest in the prompt lists the skills; take the one whose
        # name shares most words with the topic (the first listed on a tie).
        topic = set(re.findall(r"[a-z]+", (ctx.groups.get("topic") or ctx.question).lower()))
        best = max(ctx.manifest, key=lambda n: len(topic & set(n.split("-"))))
        return {"name": best}
    if listed is None:
        return None
    try:
        name = _first_name(json.loads(listed.content))
    except ValueError:
        # The output may have been cut short by the offload step; look for the first name anyway.
        found = re.search(r'"name"\s*:\s*"([^"]+)"', listed.content)
        name = found.group(1) if found else None
    return {"name": name} if name else None


def _live_feed_failed(ctx: StepContext) -> bool:
    live = ctx.latest("ais_live_position")
    return live is not None and '"error"' in live.content


def _was_offloaded(ctx: StepContext) -> bool:
    return any(_OFFLOAD_MARKER in result.content for result in ctx.previous)


#: The harness's always-on tools (every strategy's): offered whatever the question, so a
#: request that offers nothing else has no tool for a question no scenario knows.
BASIC_TOOLS = frozenset(
    ("run_sql", "search_knowledge", "remember", "exec_js", "load_skill", "list_skills")
    + ("fetch_tool_output",)
)
_KNOWLEDGE = re.compile(r"(?:^|\n)Relevant knowledge:\n(.*?)(?:\n\n|$)", re.DOTALL)
_ENTRY = re.compile(r"\n(?=- \[)")
_LOCODE = re.compile(r"\(([A-Z]{5})\)")
#: What the offline model says when no domain tool is offered for a question it does not know.
ANSWER_NO_TOOL = (
    "I have no tool for that: none of the tools I was offered fits this question (only the "
    "harness's basic tools), so I will not guess or call a tool at random."
)
#: The port a model assumes "our European hub" is without being told: Europe's largest.
_ASSUMED_HUB = "NLRTM"


def knowledge_lines(text: str) -> tuple[str, ...]:
    """The ``- [kind] ...`` entries under "Relevant knowledge:" in a message's text (an entry
    may span lines: an episode holds its question and answer)."""
    found = _KNOWLEDGE.search(text or "")
    return tuple(e for e in _ENTRY.split(found.group(1)) if e.strip()) if found else ()


def no_suitable_tool(offered: set[str]) -> bool:
    """True when a request offers tools but none beyond :data:`BASIC_TOOLS`: the relevance
    floor left no domain tool for the question."""
    return bool(offered) and offered <= BASIC_TOOLS


def _hub_port(ctx: StepContext) -> dict[str, Any]:
    """The port of "our European hub": the UN/LOCODE a memory about the hub names (a note or a
    correction, not an episode: what was said, not what was answered), else the assumption."""
    for line in ctx.knowledge:
        if "hub" in line.lower() and not line.startswith("- [episode]"):
            code = _LOCODE.search(line)
            if code:
                return {"port": code.group(1)}
    return {"port": _ASSUMED_HUB}


# --- the demo questions ------------------------------------------------------------------------

SCENARIOS: list[Scenario] = [
    Scenario(
        # The user corrects the agent: the correction is stored, so later turns find it.
        name="correction",
        pattern=r"^\s*(?:no|wrong|that's wrong|that is wrong|not quite)\s*[,.:;!]\s*"
        r"(?P<fact>.+?)\s*\.?\s*$",
        steps=[[ScriptedCall("remember", {"content": group("fact"), "kind": "correction"})]],
        answer_hint="Thanks for the correction: I stored it with remember and will use it.",
    ),
    Scenario(
        name="remember",
        pattern=r"^\s*(?:please\s+)?remember\s+(?:that\s+)?(?P<fact>.+?)\s*\.?\s*$",
        steps=[[ScriptedCall("remember", {"content": group("fact"), "kind": "note"})]],
        answer_hint="Noted: the fact was stored with remember.",
    ),
    Scenario(
        name="percentile",
        pattern=r"\b(?P<percent>\d{1,2})(?:st|nd|rd|th)\s+percentile\b(?:\s+of\s+(?P<values>.*))?",
        steps=[[ScriptedCall("exec_js", _percentile_arguments)]],
        answer_hint="The percentile was computed by a JavaScript snippet run with exec_js.",
    ),
    Scenario(
        name="skills",
        pattern=r"\bskills?\b(?:.*?\b(?:help\s+with|for|about|on)\s+(?P<topic>[^?]+))?",
        steps=[
            [ScriptedCall("list_skills", _skills_query)],
            [ScriptedCall("load_skill", _load_first_skill)],
        ],
        answer_hint="I looked up the skills library with list_skills and loaded the best match.",
    ),
    Scenario(
        name="delayed_voyages",
        pattern=r"\bvoyages?\b.*\bdelay|\bdelayed\b.*\bvoyages?\b",
        steps=[[ScriptedCall("delayed_voyages", _region_arguments)]],
        answer_hint="These are the delayed voyages reported by delayed_voyages.",
    ),
    Scenario(
        # The flaky live feed first; when it fails (or is not offered because its circuit is
        # open) the reliable stored track answers instead.
        name="live_position",
        pattern=r"(?=.*\blive\b).*?\bvessel\s+(?P<vessel>.+?)\s+"
        r"(?:right\s+now|now|according|from|on)\b",
        steps=[
            [
                ScriptedCall(
                    "ais_live_position", {"vessel": group("vessel")}, fallback="vessel_position"
                )
            ],
            [ScriptedCall("vessel_position", {"vessel": group("vessel")}, when=_live_feed_failed)],
        ],
        answer_hint="The ship's position: from the live AIS feed when it answered, else from the "
        "stored track (vessel_position).",
    ),
    Scenario(
        name="vessel_position",
        pattern=r"\bwhere\b.*?\bvessel\s+(?P<vessel>[^?]+?)\s*(?:\bnow\b|\?|$)",
        steps=[[ScriptedCall("vessel_position", {"vessel": group("vessel")})]],
        answer_hint="This is the vessel's latest position from vessel_position.",
    ),
    Scenario(
        name="vessels_per_carrier",
        keywords=("how many", "vessels", "carrier"),
        steps=[[ScriptedCall("run_sql", {"sql": _CARRIER_SQL})]],
        answer_hint="Vessel counts per carrier, from a run_sql query.",
    ),
    Scenario(
        name="cargo_value_by_region",
        pattern=r"\bcargo\s+value\b.*\b(?:per|by|in\s+each)\s+(?:ocean\s+)?region\b",
        steps=[[ScriptedCall("run_sql", {"sql": _REGION_VALUE_SQL})]],
        answer_hint="Declared cargo value per ocean region, from one run_sql query (value_usd "
        "is null where your identity may not see unit values; regions you may not see are "
        "absent).",
    ),
    Scenario(
        name="cargo_value",
        pattern=r"\bcargo\s+value\b.*?\bvoyage\s+(?P<voyage>[\w-]+)",
        steps=[[ScriptedCall("cargo_value", {"voyage": group("voyage")})]],
        answer_hint="The voyage's total cargo value from cargo_value (unit values are US cents).",
    ),
    Scenario(
        name="containers_on_hold",
        keywords=("container", "customs", "hold"),
        steps=[[ScriptedCall("containers_on_hold", {})]],
        answer_hint="Containers currently on customs hold, from containers_on_hold.",
    ),
    Scenario(
        name="hazmat_containers",
        pattern=r"\b(?:hazardous|hazmat|dangerous)\b.*\bcontainers?\b",
        steps=[[ScriptedCall("hazmat_containers", {})]],
        answer_hint="Hazardous (HAZMAT) containers, from hazmat_containers.",
    ),
    Scenario(
        name="container_manifest",
        pattern=r"\bmanifest\b.*?\bcontainer\s+(?P<container_no>[\w-]+)",
        steps=[
            [ScriptedCall("container_manifest", {"container_no": group("container_no")})],
            # The agent offloads big outputs and leaves a fetch_tool_output(...) hint: follow it.
            [
                ScriptedCall(
                    "fetch_tool_output",
                    {"tool_call_id": PREVIOUS_CALL_ID},
                    when=_was_offloaded,
                )
            ],
        ],
        answer_hint="The container's manifest, from container_manifest.",
    ),
    Scenario(
        # The agent explains itself: a past turn's trail (the latest finished one).
        name="explain_turn",
        pattern=r"\b(?:explain|why did you)\b.*\b(?:last|previous|earlier)\s+"
        r"(?:turn|answer|question|decision)\b",
        steps=[[ScriptedCall("explain_turn", {})]],
        answer_hint="Here is what I did, from my provenance trail (explain_turn).",
    ),
    Scenario(
        name="registry_health",
        pattern=r"\b(?:health|healthy)\b.*\b(?:registry|tools)\b"
        r"|\b(?:registry|tools)\b.*\b(?:health|healthy|failing|slow)\b",
        steps=[[ScriptedCall("registry_health", {})]],
        answer_hint="The registry's health, from registry_health (an OODA dry run).",
    ),
    Scenario(
        # Which port is "our European hub" is not in the data: the model takes it from what
        # its context's knowledge says (a stored correction), else assumes Rotterdam.
        name="european_hub",
        pattern=r"\bour\s+europe(?:an)?\s+hub\b",
        steps=[[ScriptedCall("port_info", _hub_port)]],
        answer_hint="Our European hub's details from port_info (the hub is the port my "
        "knowledge names, else Europe's largest port, Rotterdam).",
    ),
    Scenario(
        name="column_meaning",
        pattern=r"\bwhat\s+does\s+\S+\s+mean\b|\bunits?\b|\bcolumns?\b|\bmeaning\b",
        steps=[[ScriptedCall("search_knowledge", {"query": QUESTION, "k": 5})]],
        answer_hint="This is what the catalog knowledge says, from search_knowledge.",
    ),
]
