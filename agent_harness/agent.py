"""The agent loop: one user turn, with retrieved tools, skills and knowledge, and offload.

``agent_turn`` is the reference implementation the workshop's agent-loop notebook asks the
attendee to write, cut into small steps (as smolagents does) that call **turn hooks**:

1. :func:`start_turn`: the context (skills manifest, relevant knowledge, the question after a
   ``Question:`` label) -> ``on_turn_start``;
2. :func:`offer_tools`: the top-k tools for the question plus the always-on set (open tools
   are never offered) -> ``on_tools_offered``;
3. :func:`model_step`: one request to the model -> ``before_model_step`` / ``on_model_step``;
4. :func:`run_tool_calls`: each call dispatched through ``h.tools.call_detailed`` (a tool not
   offered, an unknown tool, invalid arguments, a failing or open tool all become error
   observations; our own bugs still raise); outputs over 600 characters are stored whole and
   shown as a preview plus a ``fetch_tool_output`` handle (a fetched output is never cut again)
   -> ``on_tool_call``;
5. at most ``max_iterations`` tool rounds within ``budget_seconds``, then one request WITHOUT
   tools for a forced final answer;
6. :func:`finish_turn`: the turn is stored as an episodic memory -> ``on_turn_end``.

Telemetry and the circuit breaker hang from the registry's call hooks, provenance and the
OpenTelemetry turn spans from these turn hooks (:data:`Harness.turn_hooks`): nothing is
written inline.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field

from agent_harness.offload import PREVIEW_CHARS, preview
from agent_harness.tools.dispatch import HookFailures, ToolResult

__all__ = [
    "agent_turn",
    "TurnResult",
    "ModelStep",
    "ToolCallRecord",
    "TurnHooks",
    "build_context",
    "SYSTEM_PROMPT",
    "FORCE_FINAL",
]

SYSTEM_PROMPT = (
    "You are a supply-chain data agent for the SUPPLYCHAIN database (carriers, ports, vessels, "
    "voyages, vessel_positions, containers, cargo_items). Use the tools to look things up; "
    "never guess numbers. capacity_teu is in TEU (never tons); unit_value_cents is in US cents "
    "(never dollars). When a skill in the manifest fits, load it with load_skill first. Answer "
    "briefly and say which tools you used."
)
FORCE_FINAL = (
    "Stop calling tools now. Give your best final answer from what the tools returned so far, "
    "and say what is still unknown."
)


@dataclass
class ToolCallRecord:
    """One tool call of a model step.

    Attributes:
        id: The model's tool call id.
        name: The tool the model asked for.
        arguments: The arguments as the model wrote them (JSON text).
        result: What the dispatch returned (output, success, error_type, telemetry_id, ...).
        shown: What the model was sent (a preview when offloaded).
        offloaded: True when the whole output was stored and a preview shown.
        memory_id: The stored output's memory id when offloaded.
    """

    id: str
    name: str
    arguments: str
    result: ToolResult
    shown: str
    offloaded: bool = False
    memory_id: int | None = None

    @property
    def ok(self) -> bool:
        """True when the tool ran and returned a result."""
        return self.result.ok

    @property
    def output_chars(self) -> int:
        """Length of the whole output."""
        return self.result.output_chars


@dataclass
class ModelStep:
    """One request to the model and what came of it.

    Attributes:
        index: 0 for the first request of the turn.
        request_chars: Characters of the messages sent (context size).
        tools_sent: How many tool schemas went with the request (0 for a forced answer).
        content: The reply's text.
        tool_calls: The calls the reply asked for, with their results.
        usage: Token counts reported by the API (prompt_tokens, completion_tokens, ...).
        duration_ms: Time of the model request.
        forced: True for the final request without tools.
        reply: The model's message as the client returned it.
    """

    index: int
    request_chars: int
    tools_sent: int
    content: str = ""
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    duration_ms: float = 0.0
    forced: bool = False
    reply: object = field(default=None, repr=False)


@dataclass
class TurnResult:
    """What happened in one turn (filled in step by step; hooks read it as it grows).

    Attributes:
        turn_id: This turn's id (provenance and telemetry use it).
        thread_id: The conversation.
        question: The user's question.
        answer: The final answer text.
        messages: Every message sent to or received from the model, in order.
        offered: The tool schemas offered this turn.
        steps: One :class:`ModelStep` per model request.
        forced_final: True when the answer was forced because the budget ran out.
        episode_id: The id of the episodic memory stored for this turn.
        model: The model that answered.
        duration_ms: Wall-clock time of the whole turn.
    """

    turn_id: str
    thread_id: str
    question: str
    answer: str = ""
    messages: list[dict] = field(default_factory=list)
    offered: list[dict] = field(default_factory=list)
    steps: list[ModelStep] = field(default_factory=list)
    forced_final: bool = False
    episode_id: int | None = None
    model: str | None = None
    duration_ms: float = 0.0

    @property
    def tool_calls(self) -> list[ToolCallRecord]:
        """Every tool call of the turn, in order."""
        return [c for s in self.steps for c in s.tool_calls]

    @property
    def iterations(self) -> int:
        """How many model replies asked for tools."""
        return sum(1 for s in self.steps if s.tool_calls)

    @property
    def request_chars(self) -> list[int]:
        """Characters of messages sent on each model request."""
        return [s.request_chars for s in self.steps]

    @property
    def offered_names(self) -> list[str]:
        """Names of the tools offered this turn."""
        return [t["function"]["name"] for t in self.offered]

    def usage(self) -> dict:
        """Token counts summed over the turn's model requests."""
        total: dict[str, int] = {}
        for step in self.steps:
            for key, value in step.usage.items():
                if isinstance(value, int):
                    total[key] = total.get(key, 0) + value
        return total


class TurnHooks:
    """Base class of turn hooks: override what you need (every method is a no-op here)."""

    def on_turn_start(self, turn: TurnResult) -> None: ...

    def on_tools_offered(self, turn: TurnResult) -> None: ...

    def before_model_step(self, turn: TurnResult, step: ModelStep) -> None: ...

    def on_model_step(self, turn: TurnResult, step: ModelStep) -> None: ...

    def on_tool_call(self, turn: TurnResult, step: ModelStep, record: ToolCallRecord) -> None: ...

    def on_turn_end(self, turn: TurnResult) -> None: ...


class _Hooks:
    """Calls every hook; a failing hook is counted and logged once, the turn goes on."""

    def __init__(self, hooks, failures: HookFailures) -> None:
        self.hooks, self.failures = list(hooks), failures

    def __getattr__(self, stage: str):
        def call(*args) -> None:
            for hook in self.hooks:
                try:
                    getattr(hook, stage)(*args)
                except Exception as e:  # provenance or tracing must not break the turn
                    self.failures.record(hook, stage, e)

        return call


def build_context(harness, question: str, k_skills: int = 5, k_knowledge: int = 5) -> str:
    """The user message: skills manifest, relevant knowledge, then the question."""
    manifest = harness.skills.manifest(question, k=k_skills)
    knowledge = harness.memory.search(
        question, k=k_knowledge, mode="hybrid", exclude_kinds=["tool_output"]
    )
    lines = ["Skills you can load with load_skill:"]
    lines += [f"- {s['name']}: {s['description']}" for s in manifest] or ["- (none)"]
    lines += ["", "Relevant knowledge:"]
    lines += [f"- [{m.kind}] {m.content[:300]}" for m in knowledge] or ["- (none)"]
    lines += ["", f"Question: {question}"]
    return "\n".join(lines)


def _assistant_message(message) -> dict:
    entry: dict = {"role": "assistant", "content": message.content or ""}
    if message.tool_calls:
        entry["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.function.name, "arguments": c.function.arguments or "{}"},
            }
            for c in message.tool_calls
        ]
    return entry


# --- the steps -------------------------------------------------------------------------------
def start_turn(harness, question: str, thread_id: str, hooks, model=None) -> TurnResult:
    """A new turn with its first two messages: the system prompt and the context."""
    turn = TurnResult(
        turn_id=f"turn_{uuid.uuid4().hex[:16]}", thread_id=thread_id, question=question, model=model
    )
    turn.messages = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": build_context(harness, question)},
    ]
    hooks.on_turn_start(turn)
    return turn


def offer_tools(harness, turn: TurnResult, k_tools: int, hooks) -> None:
    """The tools for this turn: top-k by rank plus the always-on set."""
    turn.offered = harness.tools.retrieve(turn.question, k=k_tools)
    hooks.on_tools_offered(turn)


def model_step(llm, turn: TurnResult, hooks, tools: list[dict] | None) -> ModelStep:
    """One model request (with ``tools``, or without for a forced answer)."""
    step = ModelStep(
        index=len(turn.steps),
        request_chars=len(json.dumps(turn.messages, ensure_ascii=False)),
        tools_sent=len(tools or []),
        forced=not tools,
    )
    hooks.before_model_step(turn, step)
    started = time.perf_counter()
    completion = llm.complete(turn.messages, tools=tools)
    step.duration_ms = round((time.perf_counter() - started) * 1000, 2)
    reply = completion.choices[0].message
    usage = getattr(completion, "usage", None)
    step.usage = usage.model_dump(exclude_none=True) if hasattr(usage, "model_dump") else {}
    step.content = reply.content or ""
    turn.model = getattr(completion, "model", None) or turn.model
    turn.messages.append(_assistant_message(reply))
    turn.steps.append(step)
    step.reply = reply
    hooks.on_model_step(turn, step)
    return step


def run_tool_calls(harness, turn: TurnResult, step: ModelStep, offload: bool, hooks) -> None:
    """Dispatch each call of the step; append one tool message per call, in order."""
    offered = turn.offered_names
    for call in step.reply.tool_calls or []:
        name, arguments = call.function.name, call.function.arguments or "{}"
        result = harness.tools.call_detailed(
            name,
            arguments,
            call_id=call.id,
            thread_id=turn.thread_id,
            turn_id=turn.turn_id,
            offered=offered,
        )
        record = ToolCallRecord(call.id, name, arguments, result, shown=result.output)
        if offload and name != "fetch_tool_output" and result.output_chars > PREVIEW_CHARS:
            record.memory_id = harness.offload.log(
                turn.thread_id, call.id, name, arguments, result.output
            )
            record.shown, record.offloaded = preview(result.output, call.id), True
        turn.messages.append({"role": "tool", "tool_call_id": call.id, "content": record.shown})
        step.tool_calls.append(record)
        hooks.on_tool_call(turn, step, record)


def finish_turn(harness, turn: TurnResult, hooks) -> None:
    """Store the turn as an episodic memory."""
    turn.episode_id = harness.memory.add(
        f"Question: {turn.question}\nAnswer: {turn.answer}",
        kind="episode",
        subject="agent_turn",
        metadata={
            "tools": [c.name for c in turn.tool_calls],
            "forced_final": turn.forced_final,
            "turn_id": turn.turn_id,
        },
        thread_id=turn.thread_id,
    )
    hooks.on_turn_end(turn)


def agent_turn(
    harness,
    question: str,
    thread_id: str = "default",
    max_iterations: int = 8,
    budget_seconds: float = 60.0,
    k_tools: int = 5,
    offload: bool = True,
    llm=None,
    hooks=None,
) -> TurnResult:
    """Answer one question with tools; see the module docstring for the steps.

    Args:
        harness: The harness (memory, tools, skills, LLM).
        question: The user's question.
        thread_id: The conversation this turn belongs to.
        max_iterations: Most model calls that may ask for tools.
        budget_seconds: Wall-clock budget for the tool loop.
        k_tools: Tools picked by rank (the always-on set comes on top).
        offload: Replace outputs over 600 characters by a preview and a fetch handle.
        llm: The chat model (default: ``harness.llm``); anything with ``complete``.
        hooks: Turn hooks (default: ``harness.turn_hooks``: provenance and tracing).

    Returns:
        A :class:`TurnResult`.
    """
    llm = llm or harness.llm
    run = _Hooks(harness.turn_hooks if hooks is None else hooks, harness.tools.hook_failures)
    started = time.monotonic()
    turn = start_turn(harness, question, thread_id, run, getattr(llm, "model", None))
    offer_tools(harness, turn, k_tools, run)
    answer = None
    while turn.iterations < max_iterations and time.monotonic() - started < budget_seconds:
        step = model_step(llm, turn, run, turn.offered)
        if not step.reply.tool_calls:
            answer = step.content
            break
        run_tool_calls(harness, turn, step, offload, run)
    if answer is None:
        turn.messages.append({"role": "user", "content": FORCE_FINAL})
        step = model_step(llm, turn, run, None)  # no tools offered: the model must answer
        answer = step.content or "(the model gave no final answer within the budget)"
        turn.forced_final = True
    turn.answer = answer
    turn.duration_ms = round((time.monotonic() - started) * 1000, 2)
    finish_turn(harness, turn, run)
    return turn
