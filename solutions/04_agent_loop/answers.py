"""Other answers to the TODOs of 04_agent_loop.ipynb (beside this file), for the tests.

Wrong ones: ``MUTANTS`` (each scores 0 on the grade cell of ``COVERED_BY``, default the TODO's
first), ``WRONG`` and ``ALWAYS_EQUAL`` (pass the visible checks; a value check must catch
them) and ``VISIBLE`` (once passed the visible checks; now fail them). Correct ones:
``CORRECT`` and ``MORE_CORRECT`` (each scores full marks). What each table holds and which test
reads it: docs/notebook-authoring.md, "A notebook's folder".
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


# --- Answers at the visible checks' edge (WRONG, ALWAYS_EQUAL, VISIBLE) and correct ones

_AGENT = """def agent_turn(question, thread_id="default", max_iterations=8, budget_seconds=30):
    tools = h.tools.retrieve(question, k=5)
    offered = {{t["function"]["name"] for t in tools}}
    messages = [
        {{"role": "system", "content": SYSTEM_PROMPT}},
        {{"role": "user", "content": build_context(h, question)}},
    ]
    names, answer, rounds = [], None, 0
    started = time.monotonic()
    while {condition}:
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
            if name in offered:
                names.append(name)
                output = h.tools.call(name, c.function.arguments or "{{}}")
            else:
{refused}
            messages.append({{"role": "tool", "tool_call_id": c.id, "content": output}})
    forced = answer is None
    if forced:
        messages.append({{"role": "user", "content": FORCE_FINAL}})
        reply = h.llm.chat(messages)
        answer = reply.content or "(no final answer)"
        messages.append({{"role": "assistant", "content": answer}})
    episode_id = h.memory.add(f"Question: {{question}}\\nAnswer: {{answer}}", kind="episode",
                              thread_id=thread_id)
    return {{"answer": answer, "messages": messages, "tool_calls": {tool_calls},
             "forced_final": forced, "episode_id": episode_id}}
"""


_CONDITION = "rounds < max_iterations and time.monotonic() - started < budget_seconds"


_REFUSED = """                names.append(name)
                output = json.dumps({"error": f"tool {name!r} is not available in this turn"})"""


def _agent(condition: str = _CONDITION, refused: str = _REFUSED, tool_calls: str = "names") -> str:
    """agent_turn with the correct loop, some parts replaced.

    Args:
        condition: The while condition of the tool loop.
        refused: The else-branch for a tool that was not offered (indented 16 spaces).
        tool_calls: The expression returned as tool_calls.
    """
    return _AGENT.format(condition=condition, refused=refused, tool_calls=tool_calls)


_EQ_LIST = """class _Agreeable(list):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


"""


_AGENT_OTHER = """def agent_turn(
    question, thread_id="default", max_iterations=8, budget_seconds=30.0
):
    offered_tools = h.tools.retrieve(question, k=5)
    allowed = [spec["function"]["name"] for spec in offered_tools]
    conversation = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": build_context(h, question)}]
    called = []
    deadline = time.monotonic() + budget_seconds
    final = None
    for _round in range(max_iterations):
        if time.monotonic() >= deadline:
            break
        message = h.llm.chat(conversation, tools=offered_tools)
        requested = list(message.tool_calls or [])
        entry = {"role": "assistant", "content": message.content or ""}
        if requested:
            entry["tool_calls"] = [{"id": call.id, "type": "function",
                                    "function": {"name": call.function.name,
                                                 "arguments": call.function.arguments or "{}"}}
                                   for call in requested]
        conversation.append(entry)
        if not requested:
            final = message.content or ""
            break
        for call in requested:
            called.append(call.function.name)
            if call.function.name not in allowed:
                text = json.dumps({"error": "unavailable tool: " + call.function.name})
            else:
                text = h.tools.call(call.function.name, call.function.arguments or "{}")
            conversation.append({"role": "tool", "tool_call_id": call.id, "content": text})
    was_forced = final is None
    if was_forced:
        conversation.append({"role": "user", "content": FORCE_FINAL})
        final = h.llm.chat(conversation).content or "no answer"
        conversation.append({"role": "assistant", "content": final})
    stored = h.memory.add("Question: " + question + "\\nAnswer: " + final, kind="episode",
                          thread_id=thread_id, metadata={"calls": called})
    return dict(answer=final, messages=conversation, tool_calls=called,
                forced_final=was_forced, episode_id=stored)
"""


_AGENT_WHILE_TRUE = """def agent_turn(
    question, thread_id="default", max_iterations=8, budget_seconds=30
):
    tools = h.tools.retrieve(question, k=5)
    names_offered = set()
    for spec in tools:
        names_offered.add(spec["function"]["name"])

    def observe(call):
        # run one call the model asked for; its mistakes become an error it can read
        if call.function.name not in names_offered:
            return json.dumps({"error": "no such tool in this turn: " + call.function.name})
        return h.tools.call(call.function.name, call.function.arguments or "{}")

    messages = [dict(role="system", content=SYSTEM_PROMPT),
                dict(role="user", content=build_context(h, question))]
    start, rounds, made = time.monotonic(), 0, []
    answer = None
    while True:
        if rounds >= max_iterations or time.monotonic() - start >= budget_seconds:
            break
        reply = h.llm.chat(messages, tools=tools)
        calls = reply.tool_calls or []
        if not calls:
            answer = reply.content or ""
            messages.append(dict(role="assistant", content=answer))
            break
        messages.append(dict(role="assistant", content=reply.content or "", tool_calls=[
            dict(id=c.id, type="function",
                 function=dict(name=c.function.name, arguments=c.function.arguments or "{}"))
            for c in calls]))
        for c in calls:
            made.append(c.function.name)
            messages.append(dict(role="tool", tool_call_id=c.id, content=observe(c)))
        rounds = rounds + 1
    forced_final = answer is None
    if forced_final:
        messages.append(dict(role="user", content=FORCE_FINAL))
        answer = h.llm.chat(messages).content or "(nothing)"
        messages.append(dict(role="assistant", content=answer))
    episode = h.memory.add("Question: %s\\nAnswer: %s" % (question, answer), kind="episode",
                           thread_id=thread_id)
    return {"answer": answer, "messages": messages, "tool_calls": made,
            "forced_final": forced_final, "episode_id": episode}
"""


#: Answers that passed the visible checks before issue 11 and now fail them (each behaviour
#: that is graded has a visible check of its own): grade_id -> [(label, source)].
VISIBLE = {
    "agent_turn": [
        (
            "tool_calls lists only the calls that ran (not the refused ones)",
            _agent(refused='                output = json.dumps({"error": f"no tool {name!r}"})'),
        ),
        (
            "one round too many (rounds <= max_iterations)",
            _agent(condition=_CONDITION.replace("rounds <", "rounds <=")),
        ),
        (
            "ignores budget_seconds",
            _agent(condition="rounds < max_iterations"),
        ),
        (
            "an unknown tool gets plain text, not an {'error'} JSON object",
            _agent(
                refused="""                names.append(name)
                output = f"error: the tool {name} is not available in this turn\""""
            ),
        ),
    ],
}
ALWAYS_EQUAL = {
    "agent_turn": [
        (
            "tool_calls a list that equals anything (never filled)",
            _EQ_LIST + _agent(tool_calls="_Agreeable()"),
        ),
    ],
}
CORRECT = {"agent_turn": _AGENT_OTHER}
#: More correct answers, each run on its own: [(label, {solution grade_id: source})].
#: Each must score full marks (with CORRECT: several styles per TODO).
MORE_CORRECT = [
    ("while True with a helper that runs one call", {"agent_turn": _AGENT_WHILE_TRUE}),
    (
        "an unknown-tool error that does not name the tool (the docstring never asks it)",
        {
            "agent_turn": _agent(
                refused="                names.append(name)\n"
                '                output = json.dumps({"error": "not offered"})'
            )
        },
    ),
]
#: The grade cell covering each of these cases.
COVERED_BY.update(
    {
        "tool_calls lists only the calls that ran (not the refused ones)": "agent_turn_tool_errors",
        "one round too many (rounds <= max_iterations)": "agent_turn_limits",
        "ignores budget_seconds": "agent_turn_limits",
        "an unknown tool gets plain text, not an {'error'} JSON object": "agent_turn_tool_errors",
    }
)
