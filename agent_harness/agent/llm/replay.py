"""What the offline model answers: the next scripted step of a demo question, or a final answer.

The pure part of :mod:`agent_harness.agent.llm.offline` (no HTTP): read the conversation of a chat
completion request, find the scenario (:mod:`agent_harness.agent.llm.scenarios`) and the step it is
at, plan that step's tool calls among the tools the request offers (or the skill loads that
would unlock them: :mod:`agent_harness.agent.llm.skill_choice`), else write a final answer that
quotes what the tools returned; and shape it all as an OpenAI ``chat.completion``.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from typing import Any

from agent_harness.agent.llm.scenarios import (
    ANSWER_NO_TOOL,
    QUESTION,
    Scenario,
    ScriptedCall,
    StepContext,
    ToolMessage,
    find_scenario,
    knowledge_lines,
    no_suitable_tool,
)
from agent_harness.agent.llm.skill_choice import (
    DISCLOSURE_ID,
    is_disclosure,
    loaded_skills,
    read_manifest,
    skill_for,
)

__all__ = ["MODEL_NAME", "ANSWER_PREFIX", "replay", "completion", "call_id", "text_of"]

MODEL_NAME = "offline-replay"
ANSWER_PREFIX = "[offline replay]"
_EXCERPT_CHARS = 160
# The agent loop may put context (memories, skills) before the question; prefer a labelled one.
_QUESTION_LABEL = re.compile(r"(?:^|\n)\s*question\s*:\s*", re.IGNORECASE)


def text_of(content: Any) -> str:
    """Message content as text (it may be a list of content parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def _question(message: dict[str, Any]) -> str:
    text = text_of(message.get("content"))
    labelled = _QUESTION_LABEL.split(text)
    # After a "Question:" label, the question is the paragraph that follows it.
    return labelled[-1].strip().split("\n\n")[0].strip() if len(labelled) > 1 else text.strip()


def call_id(
    scenario: str, step: int, index: int, messages: list[Any], prefix: str = "call_"
) -> str:
    users = [text_of(m.get("content")) for m in messages if m.get("role") == "user"]
    # The user-turn count keeps ids unique when a conversation asks the same question twice.
    key = f"{scenario}|{len(users)}|{step}|{index}|{users[0] if users else ''}"
    return prefix + hashlib.sha256(key.encode()).hexdigest()[:20]


def _offered_tools(body: dict[str, Any]) -> set[str]:
    names = set()
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.add(function["name"])
    choice = body.get("tool_choice")
    if choice == "none":
        return set()
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        names &= {choice["function"].get("name")}
    return names


def _anchor(messages: list[dict]) -> int | None:
    """The index of the message holding the question (None: no user message)."""
    users = [i for i, message in enumerate(messages) if message.get("role") == "user"]
    if not users:
        return None
    anchor = users[-1]
    # A user message right after tool results is an instruction (the agent loop's "answer
    # now"), not a new question: keep the question before it and the tool rounds since then.
    if len(users) > 1 and anchor > 0 and messages[anchor - 1].get("role") == "tool":
        anchor = users[-2]
    return anchor


def _conversation(messages: list[dict]) -> tuple[str | None, list[list[ToolMessage]]]:
    """Return the last user question and the tool results since it, one list per round."""
    anchor = _anchor(messages)
    if anchor is None:
        return None, []
    rounds: list[list[ToolMessage]] = []
    calls: dict[str, tuple[str, str]] = {}
    for message in messages[anchor + 1 :]:
        if message.get("role") == "assistant" and message.get("tool_calls"):
            rounds.append([])
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                calls[call.get("id")] = (function.get("name", "?"), function.get("arguments", ""))
        elif message.get("role") == "tool" and rounds:
            call_id = message.get("tool_call_id", "")
            name, arguments = calls.get(call_id, (message.get("name", "?"), ""))
            rounds[-1].append(
                ToolMessage(call_id, name, arguments, text_of(message.get("content")))
            )
    return _question(messages[anchor]), rounds


def _plan_step(
    scenario: Scenario | None,
    step: int,
    ctx: StepContext,
    offered: set[str],
    skills: dict | None = None,
) -> tuple[list[tuple[str, dict[str, Any]]], bool]:
    """The (tool, arguments) pairs to call next, and whether they are a disclosure round
    (``load_skill`` calls that unlock the scripted tools); empty means "write the final answer".
    ``skills`` holds the manifest (``read_manifest``) and the skills already loaded."""
    if scenario is None:
        planned = (
            [ScriptedCall("search_knowledge", {"query": QUESTION, "k": 5})] if step == 0 else []
        )
    else:
        planned = scenario.steps[step] if step < len(scenario.steps) else []
    manifest, loaded = (skills or {}).get("manifest", {}), (skills or {}).get("loaded", set())
    can_load = "load_skill" in offered and bool(manifest)
    calls: list[tuple[str, dict[str, Any]]] = []
    unlock: list[str] = []
    for call in planned:
        if call.name == "list_skills" and "list_skills" not in offered and manifest:
            continue  # the manifest in the prompt already lists the skills
        arguments = call.arguments_for(ctx)
        if arguments is None:
            continue
        needed = skill_for(call.name, manifest, loaded) if can_load else None
        if call.name in offered:
            calls.append((call.name, arguments))
        elif needed:
            unlock.append(needed)
        elif call.fallback and call.fallback in offered:
            calls.append((call.fallback, arguments))
        elif call.fallback and can_load and skill_for(call.fallback, manifest, loaded):
            unlock.append(skill_for(call.fallback, manifest, loaded))
        elif "search_knowledge" in offered and ctx.latest("search_knowledge") is None:
            # The scripted tool is not available this turn: look the question up instead.
            calls.append(("search_knowledge", {"query": ctx.question, "k": 5}))
    if unlock:
        return [("load_skill", {"name": name}) for name in dict.fromkeys(unlock)], True
    return list({json.dumps(call, sort_keys=True): call for call in calls}.values()), False


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _EXCERPT_CHARS else flat[: _EXCERPT_CHARS - 1] + "…"


def _final_answer(scenario: Scenario | None, results: list[ToolMessage]) -> str:
    scripted = [] if scenario is None else [c.name for step in scenario.steps for c in step]
    if scenario is None:
        lead = "No scripted scenario for this question;"
    else:
        lead = f"Scripted for this question: {', '.join(dict.fromkeys(scripted))};"
    if not results:
        return f"{ANSWER_PREFIX} {lead} no tool was called, so there is no tool output to quote."
    if scenario is None or not any(result.name in scripted for result in results):
        lead += " here is what the tools returned:"
    else:
        lead = scenario.answer_hint
    names = ", ".join(dict.fromkeys(result.name for result in results))
    lines = [f"{ANSWER_PREFIX} {lead}", f"Tools called: {names}."]
    lines += [f'- {result.name}: "{_excerpt(result.content)}"' for result in results]
    return "\n".join(lines)


def replay(body: dict[str, Any]) -> tuple[str | None, list[tuple[str, str, str]]]:
    """Play the next scripted step: (answer text, []) or (None, [(id, name, arguments)])."""
    messages = body["messages"]
    question, rounds = _conversation(messages)
    if question is None:
        return f"{ANSWER_PREFIX} There is no user message to answer.", []
    # Skill loads the model made to unlock tools are not steps of the script.
    step = sum(1 for r in rounds if not is_disclosure([c.call_id for c in r]))
    found = find_scenario(question)
    scenario, groups = found if found is not None else (None, {})
    if scenario is None and not rounds and no_suitable_tool(_offered_tools(body)):
        return f"{ANSWER_PREFIX} No scripted scenario for this question; {ANSWER_NO_TOOL}", []
    results = [result for round_ in rounds for result in round_]
    manifest = read_manifest(messages)
    offered = _offered_tools(body)
    if scenario is not None and manifest and "list_skills" not in offered:
        # The manifest in the prompt lists the skills: skip the script's list_skills steps.
        skip = 0
        while skip < len(scenario.steps) and {c.name for c in scenario.steps[skip]} == {
            "list_skills"
        }:
            skip += 1
        step += skip
    ctx = StepContext(
        question,
        groups,
        tuple(results),
        tuple(rounds[-1] if rounds else ()),
        manifest,
        knowledge_lines(text_of(messages[_anchor(messages)].get("content"))),
    )
    skills = {"manifest": manifest, "loaded": loaded_skills(messages)}
    # No tools (or tool_choice "none") is how the agent loop asks for its forced final answer.
    planned, disclosure = _plan_step(scenario, step, ctx, offered, skills) if offered else ([], 0)
    if not planned:
        return _final_answer(scenario, results), []
    name = scenario.name if scenario is not None else "unknown"
    return None, [
        (
            call_id(name, step, index, messages, DISCLOSURE_ID if disclosure else "call_"),
            tool,
            json.dumps(arguments),
        )
        for index, (tool, arguments) in enumerate(planned)
    ]


def _tokens(value: Any) -> int:
    # About four characters per token: good enough for a usage block nobody bills.
    return max(1, len(json.dumps(value, default=str)) // 4)


def completion(
    body: dict[str, Any], content: str | None, calls: list[tuple[str, str, str]]
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
            for call_id, name, args in calls
        ]
    prompt = _tokens(body.get("messages")) + _tokens(body.get("tools") or [])
    completion = _tokens(message)
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
    usage = {"prompt_tokens": prompt, "completion_tokens": completion}
    return {
        "id": "chatcmpl-offline-" + digest[:24],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL_NAME,
        "choices": [choice],
        "usage": {**usage, "total_tokens": prompt + completion},
    }
