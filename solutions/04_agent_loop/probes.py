"""Probes of 04_agent_loop.

The hidden tests of ``agent_turn`` script the offline model: an unknown tool, a real tool that
was not offered, bad arguments + malformed JSON + a good call in one reply, a model that always
calls tools (max_iterations, then ONE forced request without tools), ``budget_seconds=0`` and
one stored episode per turn on its thread. The probes run the same scenarios (and a few
variations) and record what the model was sent and what the function returned as plain data:
numbers of requests, offered tool names, roles, whether each observation is an error,
whether tool_call_ids match, answers, tool names, forced_final and the episodes of
the thread. Error wording and call ids are never compared (the docstring does not ask for an
error that names the tool, so no probe checks it).
"""

from grader.value_checks import Probe

_SETUP = """
import json as _json

offline = h.llm.offline
_QUESTION = "Which voyages are delayed in the Pacific?"


def _tool_names(request):
    return [t["function"]["name"] for t in request.get("tools") or []]


def _is_error(content):
    try:
        found = _json.loads(content)
    except (TypeError, ValueError):
        return False
    return type(found) is dict and type(found.get("error")) is str and bool(found["error"])


def _episodes(thread_id):
    return h.memory.list(metadata_filter={"kind": "episode", "thread_id": thread_id}, limit=20)


def _request(request, named=()):
    # What one request sent: roles, offered tools, and each tool message of it (for the tools
    # in ``named``, also whether the message names the tool).
    messages = request["messages"]
    calls = {c["id"]: c["function"]["name"] for m in messages if m.get("role") == "assistant"
             for c in m.get("tool_calls") or []}
    observations = []
    for m in messages:
        if m.get("role") == "tool":
            name = calls.get(m.get("tool_call_id"))
            content = m.get("content")
            observations.append([name, _is_error(content)] + (
                [type(content) is str and name in content] if name in named else []))
    return {"roles": [m.get("role") for m in messages],
            "tools": sorted(_tool_names(request)),
            "observations": observations}


def _turn(result, thread_id):
    # What agent_turn returned, as plain data, and what it stored.
    result = plain(result)
    if type(result) is not dict:
        return {"not a dict": result}
    messages = result.get("messages") if type(result.get("messages")) is list else []
    answer = result.get("answer")
    episodes = _episodes(thread_id)
    return {
        "answer": answer,
        "tool_calls": result.get("tool_calls"),
        "forced_final": result.get("forced_final"),
        "roles": [m.get("role") if type(m) is dict else None for m in messages],
        "last": messages[-1].get("content") if messages and type(messages[-1]) is dict else None,
        "episode id": type(result.get("episode_id")).__name__,
        "episodes": len(episodes),
        "episode is this turn": bool(episodes) and episodes[0].id == result.get("episode_id"),
        "episode text": [type(answer) is str and answer in e.content and _question in e.content
                         for e in episodes],
    }


def _scenario(queued, question=_QUESTION, thread_id="probe-04", named=(), **kwargs):
    # Run one scripted turn; returns what was sent and what came back (then tidies up).
    global _question
    _question = question
    for old in _episodes(thread_id):
        h.memory.delete(old.id)
    offline.reset()
    for item in queued:
        offline.enqueue(item)
    try:
        try:
            result = agent_turn(question, thread_id=thread_id, **kwargs)
        except Exception as e:
            return {"raised": type(e).__name__}
        requests = list(offline.requests)
        sent = [_request(r, named) for r in requests]
        return {"requests": sent, "turn": _turn(result, thread_id)}
    finally:
        offline.reset()
        for old in _episodes(thread_id):
            h.memory.delete(old.id)
"""

_NOT_OFFERED = (
    "a tool that was not offered this turn (or does not exist) gets a JSON "
    '``{"error": "..."}`` observation instead'
)
_NEVER_RAISE = "Never raise for the model's mistakes."
_REFUSED = "the name of every tool call the model made, in order, refused ones included"
_ONE_PER_CALL = (
    'then one tool message per call (``{"role": "tool", "tool_call_id": id, "content": output}``)'
)
_CALL_DICTS = '(dicts: id, type "function", function name + arguments)'
_OFFERED_RUNS = "An offered tool runs with ``h.tools.call(name, arguments)``"
_ROUNDS = "at most ``max_iterations`` rounds"
_FORCED = (
    'If the rounds or the budget ran out first, append ``{"role": "user", "content": '
    "FORCE_FINAL}`` and ask once more WITHOUT tools: that reply is the (forced) answer."
)
_FORCED_FLAG = "True when the answer was forced by the limits"
_BUDGET = "Wall-clock budget of the tool loop, in seconds (0: answer at once)."
_STORE = (
    'Store the turn: ``h.memory.add("Question: <question>\\nAnswer: <answer>", '
    'kind="episode", thread_id=thread_id)``'
)
_EPISODE_ID = "the id of the stored episode"
_RETRIEVE = "Offer the tools of ``h.tools.retrieve(question, k=5)`` (top 5 + the always-on set)."

_ALL = {
    "agent_turn_checks": [
        Probe(
            "unknown tool",
            _SETUP
            + """
value = _scenario([{"tool_calls": [{"name": "teleport_vessel", "arguments": {"to": "Mars"}}]},
                   "done after an unknown tool"])
""",
            "when the model called a tool that does not exist (and then answered), expected the "
            'next request to hold an {"error": ...} tool message with the call\'s tool_call_id, '
            "the loop to go on to that answer, and tool_calls to list the refused call too",
            (_NOT_OFFERED, _NEVER_RAISE, _REFUSED),
        ),
        Probe(
            "tool not offered",
            _SETUP
            + """
value = [_scenario([{"tool_calls": [{"name": "hazmat_containers", "arguments": {}}]},
                    "done after a tool that was not offered"]),
         _scenario([{"tool_calls": [{"name": "scan_database", "arguments": {}},
                                    {"name": "reefer_containers", "arguments": {}}]},
                    "done after two tools that were not offered"])]
""",
            "when the model called other registered tools that were not offered this turn (one "
            'alone, two in one reply) expected them not to run: one {"error": ...} tool '
            "message each, the loop going on to the answer, the calls listed in tool_calls",
            (_NOT_OFFERED, _NEVER_RAISE, _REFUSED),
        ),
        Probe(
            "bad arguments",
            _SETUP
            + """
value = _scenario([
    {"tool_calls": [
        {"name": "run_sql", "arguments": {"sql": "SELECT 'ok' AS status"}},
        {"name": "port_info", "arguments": {"harbour": "NLRTM"}},
        {"name": "run_sql", "arguments": "[1, 2"},
        {"name": "delayed_voyages", "arguments": {"ocean_region": "ARCTIC"}},
        {"name": "run_sql", "arguments": {"query": "SELECT 1"}},
    ]},
    "done after other bad arguments",
])
""",
            "for other calls in one reply (unknown or missing arguments, malformed JSON, a bad "
            "value, between good calls) expected one tool message per call, in the calls' "
            'order: an {"error": ...} for each bad one, the output for the good one; never raise',
            (_ONE_PER_CALL, _OFFERED_RUNS, _NEVER_RAISE),
        ),
        Probe(
            "tool results",
            _SETUP
            + """
offline.reset()
offline.enqueue({"tool_calls": [
    {"name": "run_sql", "arguments": {"sql": "SELECT 41 + 1 AS answer"}},
    {"name": "run_sql", "arguments": {"sql": "SELECT 'b' AS second"}},
]})
offline.enqueue("done after two queries")
try:
    _result = agent_turn(_QUESTION, thread_id="probe-04-results")
    _sent = list(offline.requests)
    _assistant = [m for m in _sent[-1]["messages"] if m.get("role") == "assistant"]
    _tools = [m for m in _sent[-1]["messages"] if m.get("role") == "tool"]
    _ids = [c.get("id") for c in _assistant[-1].get("tool_calls") or []] if _assistant else []
    value = [
        len(_sent),
        [_json.loads(m["content"]) if not _is_error(m["content"]) else "error" for m in _tools],
        [m.get("tool_call_id") for m in _tools] == _ids and len(set(_ids)) == len(_ids),
        [[c.get("type"), c.get("function", {}).get("name"),
          _json.loads(c.get("function", {}).get("arguments") or "null")]
         for c in _assistant[-1].get("tool_calls") or []] if _assistant else None,
        plain(_result.get("tool_calls")),
        sorted(_tool_names(_sent[0])) if _sent else None,
    ]
finally:
    offline.reset()
    for _m in _episodes("probe-04-results"):
        h.memory.delete(_m.id)
""",
            "the assistant message must carry its tool_calls as dicts (id, type 'function', "
            "function name and arguments) and each tool message the whole output of "
            "h.tools.call with the id of the call it answers; the tools offered are those of "
            "h.tools.retrieve(question, k=5)",
            (_ONE_PER_CALL, _CALL_DICTS, _OFFERED_RUNS, _RETRIEVE),
        ),
        Probe(
            "max_iterations",
            _SETUP
            + """
value = []
for _n in (3, 1):
    value.append(_scenario(
        [{"tool_calls": [{"name": "run_sql", "arguments": {"sql": f"SELECT {i} AS i"}}]}
         for i in range(_n)] + ["forced answer"],
        question="Keep querying the database forever", max_iterations=_n))
""",
            "a model that keeps calling tools must get at most max_iterations requests with "
            "tools, then ONE request without tools (after a FORCE_FINAL user message); that "
            "reply is the answer, forced_final is True, and the turn is stored as an episode",
            (_ROUNDS, _FORCED, _FORCED_FLAG, _STORE),
        ),
        Probe(
            "budget",
            _SETUP
            + """
value = [_scenario([], budget_seconds=0), _scenario(["answered at once"], budget_seconds=0),
         _scenario([{"tool_calls": [{"name": "run_sql", "arguments": {"sql": "SELECT 1 AS one"}}]},
                    "answered in time"], budget_seconds=60)]
if "turn" in value[0]:  # the offline model's own wording of a forced answer: only non-empty
    _turn0 = value[0]["turn"]
    for _key in ("answer", "last"):
        _turn0[_key] = type(_turn0[_key]) is str and bool(_turn0[_key])
""",
            "budget_seconds is not honoured: with 0 seconds there is no tool round at all, one "
            "request without tools and a forced, non-empty answer",
            (_BUDGET, _FORCED, _FORCED_FLAG),
        ),
        Probe(
            "episodes",
            _SETUP
            + """
_thread = "probe-04-episodes"
for _old in _episodes(_thread):
    h.memory.delete(_old.id)
try:
    _answers = []
    for _text in ("first answer", "second answer", "third answer"):
        offline.reset()
        offline.enqueue(_text)
        _r = agent_turn(f"Question number {len(_answers) + 1}", thread_id=_thread)
        _answers.append(plain(_r.get("answer")))
    _eps = _episodes(_thread)
    _texts = ("first answer", "second answer", "third answer")
    value = [_answers, len(_eps), sorted(e.kind for e in _eps), sorted(e.thread_id for e in _eps),
             sorted([[i for i in (1, 2, 3) if f"Question number {i}" in e.content],
                     [t for t in _texts if t in e.content]] for e in _eps)]
finally:
    offline.reset()
    for _old in _episodes(_thread):
        h.memory.delete(_old.id)
""",
            "each turn must be stored once as a memory of kind 'episode' on its own thread_id, "
            "with the question and the answer in its content",
            (_STORE, _EPISODE_ID),
        ),
    ],
}

_BY_NAME = {probe.name: probe for probe in _ALL["agent_turn_checks"]}

#: One grade cell per behaviour: the happy path, the model's mistakes, the limits, episodes.
PROBES = {
    "agent_turn_checks": [_BY_NAME["tool results"]],
    "agent_turn_tool_errors": [
        _BY_NAME[name] for name in ("unknown tool", "tool not offered", "bad arguments")
    ],
    "agent_turn_limits": [_BY_NAME["max_iterations"], _BY_NAME["budget"]],
    "agent_turn_episodes": [_BY_NAME["episodes"]],
}
