"""The agent loop: one user turn, with tools, skills and knowledge, and offload.

``agent_turn`` is the reference implementation the workshop's agent-loop notebook asks the
attendee to write, cut into small steps (as smolagents does) that call **turn hooks**:

1. :func:`new_turn`, then :func:`start_turn`: ``on_turn_start``, then the system prompt (an
   agent's own, with its skill manifest) and the context (skills manifest unless an agent
   brings one, relevant knowledge, the question after a ``Question:`` label);
2. :func:`offer_tools`: the tools of the first request, chosen by the turn's **strategy**
   (:mod:`agent_harness.agent.disclosure`: ``all``, ``retrieve`` = top-k plus the always-on set,
   ``disclose`` = skills unlock tools, or ``disclose+retrieve``; open tools are never
   offered) -> ``on_tools_offered``;
3. :func:`model_step`: one request to the model -> ``before_model_step`` / ``on_model_step``;
4. :func:`run_tool_calls`: each call dispatched through ``h.tools.call_detailed`` (a tool not
   offered, an unknown tool, invalid arguments, a failing or open tool all become error
   observations; our own bugs still raise); outputs over 600 characters are stored whole and
   shown as a preview plus a ``fetch_tool_output`` handle (a fetched output and a loaded
   skill's playbook, which the model must read whole, are never cut)
   -> ``on_tool_call``; then the strategy may append tools (a loaded skill unlocks its tools)
   -> ``on_tools_unlocked``;
5. at most ``max_iterations`` tool rounds within ``budget_seconds``, then one request WITHOUT
   tools for a forced final answer;
6. :func:`finish_turn`: the turn is stored as an episodic memory -> ``on_turn_end``.

If the model call (or anything else in the loop) raises, the turn is marked ``failed`` with
its error, ``on_turn_error`` runs once (provenance marks the turn failed, tracing ends its
spans) and the exception is raised to the caller: no turn is left half-open.

Telemetry and the circuit breaker hang from the registry's call hooks, provenance and the
OpenTelemetry turn spans from these turn hooks (:data:`Harness.turn_hooks`): nothing is
written inline.
"""

from __future__ import annotations

import json
import time
import uuid

from agent_harness.agent.turns import HookRunner, ModelStep, ToolCallRecord, TurnHooks, TurnResult
from agent_harness.parts.offload import PREVIEW_CHARS, preview
from agent_harness.parts.token_count import schemas_tokens

__all__ = [
    "agent_turn",
    "TurnResult",
    "ModelStep",
    "ToolCallRecord",
    "TurnHooks",
    "HookRunner",
    "new_turn",
    "start_turn",
    "fail_turn",
    "build_context",
    "agent_system_prompt",
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
#: Outputs shown whole: a fetched output, and a playbook (the model must read all of it).
NEVER_OFFLOADED = ("fetch_tool_output", "load_skill")
FORCE_FINAL = (
    "Stop calling tools now. Give your best final answer from what the tools returned so far, "
    "and say what is still unknown."
)


def build_context(
    harness, question: str, k_skills: int = 5, k_knowledge: int = 5, manifest: bool = True
) -> str:
    """The user message: skills manifest (unless ``manifest=False``: an agent's is in its system
    prompt), relevant knowledge, then the question."""
    knowledge = harness.memory.search(
        question, k=k_knowledge, mode="hybrid", exclude_kinds=["tool_output"]
    )
    lines = []
    if manifest:
        skills = harness.skills.manifest(question, k=k_skills)
        lines = ["Skills you can load with load_skill:"]
        lines += [f"- {s['name']}: {s['description']}" for s in skills] or ["- (none)"]
        lines += [""]
    lines += ["Relevant knowledge:"]
    lines += [f"- [{m.kind}] {m.content[:300]}" for m in knowledge] or ["- (none)"]
    lines += ["", f"Question: {question}"]
    return "\n".join(lines)


def agent_system_prompt(harness, agent) -> str:
    """An agent's system prompt followed by its skill manifest (the same text every turn, so
    a provider's prompt cache keeps it)."""
    return (
        f"{agent.system_prompt}\n\nYour skills (load_skill(name) reads the playbook and unlocks"
        f" the tools in brackets):\n{harness.agents.manifest_text(agent)}"
    )


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
def new_turn(question: str, thread_id: str, model=None, strategy=None) -> TurnResult:
    """An empty turn with a fresh id (nothing sent, no hook called yet)."""
    agent = getattr(strategy, "agent", None)
    return TurnResult(
        turn_id=f"turn_{uuid.uuid4().hex[:16]}",
        thread_id=thread_id,
        question=question,
        model=model,
        strategy=getattr(strategy, "name", "retrieve"),
        agent=agent.name if agent else None,
    )


def start_turn(harness, turn: TurnResult, hooks, strategy=None) -> None:
    """``on_turn_start``, then the turn's first two messages: the system prompt and the
    context."""
    hooks.on_turn_start(turn)
    agent = getattr(strategy, "agent", None)
    system = agent_system_prompt(harness, agent) if agent else SYSTEM_PROMPT
    turn.messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": build_context(harness, turn.question, manifest=agent is None)},
    ]


def offer_tools(harness, turn: TurnResult, k_tools: int, hooks, strategy=None) -> None:
    """The tools of the first request, as the strategy picks them (default: the top-k by rank
    plus the always-on set)."""
    if strategy is None:
        turn.offered = harness.tools.retrieve(turn.question, k=k_tools)
    else:
        turn.unlocks += strategy.start(turn)
    hooks.on_tools_offered(turn)
    for unlock in turn.unlocks:
        hooks.on_tools_unlocked(turn, None, None, unlock)


def model_step(llm, turn: TurnResult, hooks, tools: list[dict] | None) -> ModelStep:
    """One model request (with ``tools``, or without for a forced answer)."""
    tools = list(tools or [])  # what this request sends, even if the turn's offer grows later
    step = ModelStep(
        index=len(turn.steps),
        request_chars=len(json.dumps(turn.messages, ensure_ascii=False)),
        tools_sent=len(tools),
        tool_tokens=schemas_tokens(tools),
        forced=not tools,
    )
    hooks.before_model_step(turn, step)
    started = time.perf_counter()
    completion = llm.complete(turn.messages, tools=tools or None)
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


def run_tool_calls(
    harness, turn: TurnResult, step: ModelStep, offload: bool, hooks, strategy=None
) -> None:
    """Dispatch each call of the step; append one tool message per call, in order. A
    strategy may then append tools (a loaded skill unlocks its tools)."""
    for call in step.reply.tool_calls or []:
        name, arguments = call.function.name, call.function.arguments or "{}"
        rules = strategy.call_rules(turn) if strategy else {"offered": turn.offered_names}
        result = harness.tools.call_detailed(
            name,
            arguments,
            call_id=call.id,
            thread_id=turn.thread_id,
            turn_id=turn.turn_id,
            **rules,
        )
        record = ToolCallRecord(call.id, name, arguments, result, shown=result.output)
        if offload and name not in NEVER_OFFLOADED and result.output_chars > PREVIEW_CHARS:
            record.memory_id = harness.offload.log(
                turn.thread_id, call.id, name, arguments, result.output
            )
            record.shown, record.offloaded = preview(result.output, call.id), True
        unlocks = strategy.after_call(turn, record) if strategy else []
        turn.unlocks += unlocks
        turn.messages.append({"role": "tool", "tool_call_id": call.id, "content": record.shown})
        step.tool_calls.append(record)
        hooks.on_tool_call(turn, step, record)
        for unlock in unlocks:
            hooks.on_tools_unlocked(turn, step, record, unlock)


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
    turn.status = "forced" if turn.forced_final else "answered"
    hooks.on_turn_end(turn)


def fail_turn(turn: TurnResult, error: BaseException, hooks, started: float) -> None:
    """Mark the turn failed with its error and tell the hooks (``on_turn_error``, once)."""
    turn.status = "failed"
    turn.error = f"{type(error).__name__}: {error}"[:1000]
    turn.duration_ms = round((time.monotonic() - started) * 1000, 2)
    hooks.on_turn_error(turn, error)
    if hasattr(error, "add_note"):  # Python 3.11+: the traceback names the turn
        error.add_note(
            f"agent turn {turn.turn_id} failed; h.provenance.explain({turn.turn_id!r}) shows it"
        )


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
    strategy="retrieve",
    agent=None,
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
        strategy: How tools are offered: ``"all"``, ``"retrieve"`` (default), ``"disclose"``
            (skills unlock tools), ``"disclose+retrieve"``, or a
            :class:`~agent_harness.agent.disclosure.ToolStrategy`.
        agent: The agent (name or :class:`~agent_harness.parts.agents.Agent`): its system prompt
            and skill manifest, and its access grants at dispatch. Disclosing strategies use
            ``supplychain-analyst`` when none is given.

    Returns:
        A :class:`TurnResult`.

    Raises:
        Whatever the model call (or the loop itself) raised, after the turn was marked
        ``failed`` and ``on_turn_error`` ran.
    """
    from agent_harness.agent.disclosure import make_strategy

    llm = llm or harness.llm
    run = HookRunner(harness.turn_hooks if hooks is None else hooks, harness.tools.hook_failures)
    chooser = make_strategy(harness, strategy, agent, k_tools)
    started = time.monotonic()
    turn = new_turn(question, thread_id, getattr(llm, "model", None), chooser)
    try:
        start_turn(harness, turn, run, chooser)
        offer_tools(harness, turn, k_tools, run, chooser)
        answer = None
        while turn.iterations < max_iterations and time.monotonic() - started < budget_seconds:
            step = model_step(llm, turn, run, turn.offered)
            if not step.reply.tool_calls:
                answer = step.content
                break
            run_tool_calls(harness, turn, step, offload, run, chooser)
        if answer is None:
            turn.messages.append({"role": "user", "content": FORCE_FINAL})
            step = model_step(llm, turn, run, None)  # no tools offered: the model must answer
            answer = step.content or "(the model gave no final answer within the budget)"
            turn.forced_final = True
        turn.answer = answer
        turn.duration_ms = round((time.monotonic() - started) * 1000, 2)
        finish_turn(harness, turn, run)
    except BaseException as e:  # the model's API, our own bug, Ctrl+C: close the turn, re-raise
        fail_turn(turn, e, run, started)
        raise
    return turn
