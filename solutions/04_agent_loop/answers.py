"""Plausible wrong implementations of the TODO in solutions/04_agent_loop.ipynb.

Each entry replaces the whole source of the solution cell with that ``grade_id``; the TODO's
grade cell must then fail (score 0) while the untouched solution passes.
"""

_HEAD = '''def agent_turn(question, thread_id="default", max_iterations=8, budget_seconds=30):
    """Wrong on purpose: see the mutant's description."""
'''

# The correct loop, with named holes the mutants fill differently.
_LOOP = """    tools = {TOOLS}
    offered = {{t["function"]["name"] for t in tools}}
    messages = [
        {{"role": "system", "content": SYSTEM_PROMPT}},
        {{"role": "user", "content": build_context(h, question)}},
    ]
    names, answer, rounds = [], None, 0
    started = time.monotonic()
    while {CONDITION}:
        reply = h.llm.chat(messages, tools=tools)
        calls = reply.tool_calls or []
        assistant = {{"role": "assistant", "content": reply.content or ""}}
        if calls:
            assistant["tool_calls"] = [
                {{"id": c.id, "type": "function",
                  "function": {{"name": c.function.name,
                               "arguments": c.function.arguments or "{{}}"}}}}
                for c in calls
            ]
        messages.append(assistant)
        if not calls:
            answer = reply.content or ""
            break
        rounds += 1
        for c in calls:
            name = c.function.name
            names.append(name)
{DISPATCH}
            messages.append({{"role": "tool", "tool_call_id": c.id, "content": output}})
    forced = answer is None
    if forced:
{FORCED}
    episode_id = {EPISODE}
    return {{"answer": answer, "messages": messages, "tool_calls": names,
             "forced_final": forced, "episode_id": episode_id}}
"""

_GOOD = {
    "TOOLS": "h.tools.retrieve(question, k=5)",
    "CONDITION": "rounds < max_iterations and time.monotonic() - started < budget_seconds",
    "DISPATCH": """            if name in offered:
                output = h.tools.call(name, c.function.arguments or "{}")
            else:
                output = json.dumps({"error": f"tool {name!r} is not available in this turn"})""",
    "FORCED": """        messages.append({"role": "user", "content": FORCE_FINAL})
        reply = h.llm.chat(messages)
        answer = reply.content or "(no final answer)"
        messages.append({"role": "assistant", "content": answer})""",
    "EPISODE": """h.memory.add(f"Question: {question}\\nAnswer: {answer}", kind="episode",
                              thread_id=thread_id)""",
}


def _loop(**holes: str) -> str:
    return _HEAD + _LOOP.format(**{**_GOOD, **holes})


MUTANTS = {
    "agent_turn": [
        (
            "no tool dispatch: one chat call, its content is the answer",
            _HEAD
            + """    tools = h.tools.retrieve(question, k=5)
    messages = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": build_context(h, question)},
    ]
    reply = h.llm.chat(messages, tools=tools)
    answer = reply.content or ""
    messages.append({"role": "assistant", "content": answer})
    episode_id = h.memory.add(f"Question: {question}\\nAnswer: {answer}", kind="episode",
                              thread_id=thread_id)
    return {"answer": answer, "messages": messages, "tool_calls": [], "forced_final": False,
            "episode_id": episode_id}
""",
        ),
        (
            "ignores max_iterations (loops until the model stops or the budget runs out)",
            _loop(CONDITION="time.monotonic() - started < budget_seconds"),
        ),
        (
            "no forced final answer: returns the last content when the limits are hit",
            _loop(
                FORCED="""        answer = messages[-1].get("content") or ""
        forced = False"""
            ),
        ),
        (
            "the forced final request still offers the tools",
            _loop(
                FORCED="""        messages.append({"role": "user", "content": FORCE_FINAL})
        reply = h.llm.chat(messages, tools=tools)
        answer = reply.content or "(no final answer)"
        messages.append({"role": "assistant", "content": answer})"""
            ),
        ),
        (
            "does not store the episode",
            _loop(EPISODE="None"),
        ),
        (
            "episode stored without the thread_id",
            _loop(
                EPISODE="""h.memory.add(f"Question: {question}\\nAnswer: {answer}",
                              kind="episode")"""
            ),
        ),
        (
            "dispatches unknown tools by raising (h.tools.get)",
            _loop(
                DISPATCH="""            h.tools.get(name)  # KeyError for a tool that does not exist
            output = h.tools.call(name, c.function.arguments or "{}")"""
            ),
        ),
        (
            "runs any registered tool, even one not offered this turn",
            _loop(
                DISPATCH="""            output = h.tools.call(name, c.function.arguments or "{}")"""
            ),
        ),
        (
            "parses the arguments itself: malformed JSON raises",
            _loop(
                DISPATCH="""            arguments = json.loads(c.function.arguments or "{}")
            if name in offered:
                output = h.tools.call(name, arguments)
            else:
                output = json.dumps({"error": f"tool {name!r} is not available in this turn"})"""
            ),
        ),
        (
            "sends the whole registry instead of the retrieved tools",
            _loop(TOOLS="h.tools.schemas()"),
        ),
    ],
}

#: The grade cell covering each mutant's broken behaviour (default: agent_turn_checks).
COVERED_BY = {
    "ignores max_iterations (loops until the model stops or the budget runs out)": (
        "agent_turn_limits"
    ),
    "no forced final answer: returns the last content when the limits are hit": (
        "agent_turn_limits"
    ),
    "the forced final request still offers the tools": "agent_turn_limits",
    "does not store the episode": "agent_turn_episodes",
    "episode stored without the thread_id": "agent_turn_episodes",
    "dispatches unknown tools by raising (h.tools.get)": "agent_turn_tool_errors",
    "runs any registered tool, even one not offered this turn": "agent_turn_tool_errors",
    "parses the arguments itself: malformed JSON raises": "agent_turn_tool_errors",
}
