"""The agent loop: one user turn, with retrieved tools, skills and knowledge, and offload.

``agent_turn`` is the reference implementation the workshop's agent-loop notebook asks the
attendee to write. One turn:

1. Build the context: the skills manifest (top-k names + one-line descriptions), relevant
   knowledge from memory, then the question (after a ``Question:`` label).
2. Offer the top-k tools for the question plus the always-on set.
3. Loop while the model asks for tools, at most ``max_iterations`` times and within
   ``budget_seconds``: dispatch each call; an unknown or not-offered tool, invalid arguments or
   a tool that raises become error observations the model sees (our own bugs still raise).
   Outputs longer than 600 characters are stored whole and shown as a preview plus a
   ``fetch_tool_output`` handle; a fetched output is never cut again.
4. When the iterations or the time budget run out, ask once more WITHOUT tools for a final
   answer (a forced final answer).
5. Store the turn as an episodic memory.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from agent_harness.offload import PREVIEW_CHARS, preview

__all__ = ["agent_turn", "TurnResult", "build_context", "SYSTEM_PROMPT", "FORCE_FINAL"]

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
class TurnResult:
    """What happened in one turn.

    Attributes:
        answer: The final answer text.
        messages: Every message sent to or received from the model, in order.
        tool_calls: Each dispatched call: id, name, arguments, ok, output_chars, offloaded.
        iterations: How many model calls asked for tools.
        forced_final: True when the answer was forced because the budget ran out.
        request_chars: Characters of messages sent on each model request (context size).
        episode_id: The id of the episodic memory stored for this turn.
    """

    answer: str
    messages: list[dict] = field(default_factory=list)
    tool_calls: list[dict] = field(default_factory=list)
    iterations: int = 0
    forced_final: bool = False
    request_chars: list[int] = field(default_factory=list)
    episode_id: int | None = None


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


def agent_turn(
    harness,
    question: str,
    thread_id: str = "default",
    max_iterations: int = 8,
    budget_seconds: float = 60.0,
    k_tools: int = 5,
    offload: bool = True,
    llm=None,
) -> TurnResult:
    """Answer one question with tools; see the module docstring for the steps.

    Args:
        harness: The harness (memory, tools, skills, LLM).
        question: The user's question.
        thread_id: The conversation this turn belongs to.
        max_iterations: Most model calls that may ask for tools.
        budget_seconds: Wall-clock budget for the tool loop.
        k_tools: Tools picked by similarity (the always-on set comes on top).
        offload: Replace outputs over 600 characters by a preview and a fetch handle.
        llm: The chat model (default: ``harness.llm``).

    Returns:
        A :class:`TurnResult`.
    """
    llm = llm or harness.llm
    tools = harness.tools.retrieve(question, k=k_tools)
    offered = {t["function"]["name"] for t in tools}
    messages: list[dict] = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": build_context(harness, question)},
    ]
    result = TurnResult(answer="", messages=messages)
    started = time.monotonic()
    answer = None
    while result.iterations < max_iterations and time.monotonic() - started < budget_seconds:
        result.request_chars.append(len(json.dumps(messages, ensure_ascii=False)))
        reply = llm.chat(messages, tools=tools)
        messages.append(_assistant_message(reply))
        if not reply.tool_calls:
            answer = reply.content or ""
            break
        result.iterations += 1
        for call in reply.tool_calls:
            name, arguments = call.function.name, call.function.arguments or "{}"
            if name in offered:
                outcome = harness.tools.call_detailed(name, arguments)
                output, ok = outcome["output"], outcome["ok"]
            else:
                output = json.dumps(
                    {
                        "error": f"tool {name!r} is not available in this turn; "
                        f"use one of: {', '.join(sorted(offered))}"
                    }
                )
                ok = False
            shown, offloaded = output, False
            if offload and name != "fetch_tool_output" and len(output) > PREVIEW_CHARS:
                harness.offload.log(thread_id, call.id, name, arguments, output)
                shown, offloaded = preview(output, call.id), True
            messages.append({"role": "tool", "tool_call_id": call.id, "content": shown})
            result.tool_calls.append(
                {
                    "id": call.id,
                    "name": name,
                    "arguments": arguments,
                    "ok": ok,
                    "output_chars": len(output),
                    "offloaded": offloaded,
                }
            )
    if answer is None:
        messages.append({"role": "user", "content": FORCE_FINAL})
        result.request_chars.append(len(json.dumps(messages, ensure_ascii=False)))
        reply = llm.chat(messages)  # no tools offered: the model must answer
        messages.append(_assistant_message(reply))
        answer = reply.content or "(the model gave no final answer within the budget)"
        result.forced_final = True
    result.answer = answer
    result.episode_id = harness.memory.add(
        f"Question: {question}\nAnswer: {answer}",
        kind="episode",
        subject="agent_turn",
        metadata={
            "tools": [c["name"] for c in result.tool_calls],
            "forced_final": result.forced_final,
        },
        thread_id=thread_id,
    )
    return result
