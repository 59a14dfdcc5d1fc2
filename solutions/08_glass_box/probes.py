"""Probes of 08_glass_box.

``trail_tree``: the probes write turns of their own into ``agent_turns`` and ``turn_events``
(fixed probe turn ids, removed afterwards): events at one level with every kind of ``ok`` and
``detail``, a turn without events, a question of thousands of characters, another turn's
events beside them, trees five levels deep
with several branches, events written in another order than their ``seq`` with ties at every
level. They record the student's tree as plain data with each event id replaced by the key
the probe wrote it under (ids differ between runs), and compare real turns with
``h.provenance.explain``.

``context_budget``: a pure function of its arguments; the probes call it on probe-only
conversations (manifests in either form, at the start, after text, in the middle of a
paragraph, at the end; assistant messages with several tool calls and content None; system,
user and tool messages with content None; tool messages; real tool schemas) and windows, and
record the returned parts, total, window, free and share.
"""

from dataclasses import replace

from grader.value_checks import Probe

# --- trail_tree ---------------------------------------------------------------------------------
_TRAIL_SETUP = """
from agent_harness.backends.roles import utc_now as _now


def _write(turn_id, events, question="Probe question?", status="answered",
           answer="Probe answer."):
    store = h.backend.provenance
    store.start_turn({"turn_id": turn_id, "thread_id": "probe8", "user_id": "probe8",
                      "agent_id": "probe8", "question": question, "model": "probe",
                      "started_at": _now()})
    ids = {}
    for key, parent, seq, kind, name, ok, detail in events:
        ids[key] = store.add_event({"turn_id": turn_id, "parent_id": ids.get(parent),
                                    "seq": seq, "kind": kind, "name": name, "ok": ok,
                                    "detail": detail, "at": _now()})
    if status != "running":
        store.finish_turn(turn_id, {"status": status, "answer": answer})
    return ids


def _drop(turn_id):
    h.backend.query("DELETE FROM turn_events WHERE turn_id = :t", {"t": turn_id})
    h.backend.query("DELETE FROM agent_turns WHERE turn_id = :t", {"t": turn_id})


def _node(n, keys):
    if type(n) is not dict:
        return {"shape": plain(n)}
    children = n.get("children")
    return {"id": keys.get(n.get("id"), "?") if type(n.get("id")) is int else plain(n.get("id")),
            "kind": plain(n.get("kind")), "name": plain(n.get("name")),
            "ok": plain(n.get("ok")), "detail": plain(n.get("detail")),
            "children": ([_node(c, keys) for c in children] if type(children) is list
                         else {"shape": plain(children)})}


def _named(turn_id, ids):
    try:
        got = trail_tree(turn_id)
    except Exception as e:
        return ["raised", type(e).__name__]
    if got is None or type(got) is not dict:
        return {"shape": plain(got)}
    keys = {v: k for k, v in ids.items()}
    events = got.get("events")
    return {"turn": got.get("turn_id") == turn_id,
            **{k: plain(got.get(k)) for k in ("question", "status", "answer")},
            "events": ([_node(e, keys) for e in events] if type(events) is list
                       else {"shape": plain(events)})}


def _probe(name, events, **turn):
    turn_id = f"probe8_{name}"
    _drop(turn_id)
    try:
        ids = _write(turn_id, events, **turn)
        return _named(turn_id, ids)
    finally:
        _drop(turn_id)
"""

_T_ONE_LEVEL = """
value = [
    _probe("flat", [("q", None, 1, "knowledge", "memory", None, {"count": 2, "hits": [1, 2]}),
                    ("q1", "q", 2, "memory_hit", "episode", None, {"score": 0.031, "kind": "e"}),
                    ("q2", "q", 3, "memory_hit", "column", None, {}),
                    ("o", None, 4, "tools_offered", "disclose", None, {"tokens": None}),
                    ("s", None, 5, "model_step", "gpt", None, {"usage": {"total": 9}}),
                    ("c", "s", 6, "tool_call", "cargo_value", False, {"error_type": "x"}),
                    ("d", "s", 7, "tool_call", "cargo_value", True, {}),
                    ("a", None, 8, "answer", None, True, {"forced": True})],
           question="What is the cargo worth?", status="forced", answer="About 2 million."),
    _probe("lonely", [], question="Nothing yet", status="running"),
    _probe("one", [("x", None, 3, "answer", "only", False, {"n": "é"})], question="Q?",
           status="failed", answer=None),
    _probe("long", [("y", None, 2, "answer", "long", True, {})],
           question="Where are the probe vessels of the northern routes now? " * 40),
]
_write("probe8_neighbour", [("n", None, 1, "answer", "neighbour", True, {})])
try:
    value.append(_probe("beside", [("b", None, 1, "model_step", "beside", None, {})]))
finally:
    _drop("probe8_neighbour")
"""

_T_DEEP = """
value = [
    _probe("deep", [("a", None, 1, "x", "a", None, {}), ("b", "a", 2, "x", "b", None, {}),
                    ("c", "b", 3, "x", "c", True, {}), ("d", "c", 4, "x", "d", None, {}),
                    ("e", "d", 5, "x", "e", False, {"k": [1]}), ("f", "b", 6, "x", "f", None, {}),
                    ("g", "a", 7, "x", "g", None, {}), ("h", "g", 8, "x", "h", None, {}),
                    ("i", None, 9, "x", "i", None, {}), ("j", "i", 10, "x", "j", None, {})]),
    _probe("branches", [("s", None, 1, "model_step", "m", None, {}),
                        ("c1", "s", 2, "tool_call", "load_skill", True, {}),
                        ("k", "c1", 3, "skill_loaded", "k", True, {}),
                        ("t1", "k", 4, "tool_offered", "t1", None, {}),
                        ("c2", "s", 5, "tool_call", "container_manifest", True, {}),
                        ("off", "c2", 6, "offload", "container_manifest", None, {"chars": 9})]),
]


def _project(nodes):
    return [{"id": n["id"], "kind": n["kind"], "name": n["name"], "ok": n["ok"],
             "detail": n["detail"], "children": _project(n["children"])} for n in nodes]


for _t in h.provenance.turns(6):
    try:
        _mine = trail_tree(_t["turn_id"])
        value.append(type(_mine) is dict and type(_mine.get("events")) is list
                     and plain(_project(_mine["events"]))
                     == plain(_project(h.provenance.explain(_t["turn_id"])["events"])))
    except Exception as e:
        value.append(["raised", type(e).__name__])
value.append(len(value) > 2)
"""

_T_ORDER = """
value = [
    _probe("shuffled", [("z", None, 9, "answer", None, True, {}),
                        ("m", None, 4, "model_step", "m1", None, {}),
                        ("m2", None, 4, "model_step", "m2", None, {}),
                        ("k", None, 0, "knowledge", "memory", None, {}),
                        ("k2", None, 0, "knowledge", "second", None, {}),
                        ("c9", "m", 8, "tool_call", "late", True, {}),
                        ("c5", "m", 5, "tool_call", "early", True, {}),
                        ("c5b", "m", 5, "tool_call", "early_too", True, {}),
                        ("o", "c9", 11, "offload", "second", None, {}),
                        ("o1", "c9", 10, "offload", "first", None, {})]),
    _probe("ties", [("b", None, 2, "x", "zz", None, {}), ("a", None, 2, "x", "aa", None, {}),
                    ("c", None, 1, "x", "mm", None, {}), ("b1", "b", 3, "x", "b1", None, {}),
                    ("b0", "b", 3, "x", "b0", None, {}), ("b2", "b", 2, "x", "b2", None, {})]),
]
"""

_T_UNKNOWN = """
value = []
for _id in ["turn_" + "f" * 16, "probe8_never_written", "", "TURN_NOPE"]:
    try:
        value.append(plain(trail_tree(_id)))
    except Exception as e:
        value.append(["raised", type(e).__name__])
"""

# --- context_budget -----------------------------------------------------------------------------
_BUDGET_SETUP = """
_KEYS = ("system", "manifest", "tool_schemas", "history", "tool_outputs", "total", "window",
         "free", "share")


def _b(messages, tools, window):
    try:
        got = context_budget(messages, tools, window)
    except Exception as e:
        return ["raised", type(e).__name__]
    if type(got) is not dict:
        return {"shape": plain(got)}
    return {k: plain(got.get(k)) for k in _KEYS}


def _call(name, arguments):
    return {"id": "p_" + name, "type": "function",
            "function": {"name": name, "arguments": arguments}}


_SKILLS = ("Skills you can load with load_skill:\\n- probe-skill: does probes\\n"
           "- other-skill: does others")
_OWN = "Your skills (load_skill(name) unlocks the tools in brackets):\\n- s1: d [unlocks: t1]"
"""

_B_PARTS = """
value = [
    _b([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Ports?"},
        {"role": "assistant", "content": "Twenty-five ports."},
        {"role": "tool", "content": "[1, 2, 3] " * 40}, {"role": "user", "content": "Why?"},
        {"role": "system", "content": "Answer in English."}], [], 4096),
    _b([{"role": "tool", "content": "x"}, {"role": "tool", "content": "y y"}], None, 100),
    _b([], [], 10),
    _b([{"role": "user", "content": "Relevant knowledge:\\n- [note] é ü 中文\\n\\nQuestion: ?"}],
       [], 300),
]
"""

_B_MANIFEST = """
value = [
    _b([{"role": "user", "content": _SKILLS + "\\n\\nRelevant knowledge:\\n- [x] y\\n\\nQ"}],
       [], 1000),
    _b([{"role": "user", "content": "Intro line.\\n" + _SKILLS + "\\n\\nQuestion: q"}], [], 1000),
    _b([{"role": "user", "content": "Intro.\\n\\n" + _SKILLS}], [], 1000),
    _b([{"role": "system", "content": "You are the analyst.\\n\\n" + _OWN}], [], 1000),
    _b([{"role": "system", "content": _OWN + "\\n\\nThen the rules."}], [], 1000),
    _b([{"role": "assistant", "content": _SKILLS}, {"role": "tool", "content": _OWN}], [], 1000),
    _b([{"role": "user", "content": "Mention: Skills you can load are many."}], [], 1000),
    _b([{"role": "system", "content": "S."}, {"role": "user", "content": _SKILLS + "\\n\\nQ"},
        {"role": "user", "content": "Next question, no manifest."}], [], 1000),
]
"""

_B_TOOLS = """
value = [
    _b([{"role": "system", "content": "S."}], h.tools.schemas(["cargo_value", "hs_code_lookup",
                                                                "remember", "exec_js"]), 5000),
    _b([{"role": "assistant", "content": None,
         "tool_calls": [_call("a_tool", '{"x": 1}'), _call("b_tool", "{}"),
                        _call("c_tool", '{"q": "é"}')]}], [], 1000),
    _b([{"role": "assistant", "content": "", "tool_calls": [_call("run_sql", '{"sql": "S"}')]},
        {"role": "tool", "content": "ok"}], h.tools.schemas(["run_sql"]), 1000),
    _b([{"role": "assistant", "content": "Checking.", "tool_calls": []},
        {"role": "assistant", "content": "Done.", "tool_calls": [_call("z", "{}")]}], None, 50),
    _b([{"role": "assistant", "content": None}], [], 50),
    _b([{"role": "system", "content": None}, {"role": "user", "content": None},
        {"role": "tool", "content": None}, {"role": "user", "content": "And now?"}], None, 64),
]
"""

_B_WINDOW = """
value = [
    _b([{"role": "user", "content": "one two three four five"}], [], 7),
    _b([{"role": "user", "content": "hello"}], [], 128_000),
    _b([{"role": "system", "content": "S " * 100}], [], 64),
    _b([{"role": "user", "content": "x"}], h.tools.schemas(["port_info"]), 1_047_576),
]
"""

PROBES = {
    "trail_tree_checks": [
        Probe(
            "turn and events",
            _TRAIL_SETUP + _T_ONE_LEVEL,
            "a probe turn's tree is wrong at its first level (turns with events of every kind "
            "of ok and detail, a turn without events that is still running, a failed turn "
            "without an answer, a question of thousands of characters, another turn's events "
            "beside it): expected the turn's whole question, its status and answer and its "
            "top-level events, each with its id, kind, name, ok (True, False or None), detail "
            "parsed from JSON and its children",
        ),
    ],
    "trail_tree_nesting": [
        Probe(
            "deep trees",
            _TRAIL_SETUP + _T_DEEP,
            "a probe tree several levels deep with several branches is nested wrongly, or "
            "your tree of a real turn differs from h.provenance.explain's: expected every "
            "event under its parent, at any depth",
        ),
    ],
    "trail_tree_order": [
        Probe(
            "order",
            _TRAIL_SETUP + _T_ORDER,
            "probe events written in another order than their seq (with equal seq at several "
            "levels) come back in the wrong order: expected every list of events in seq "
            "order, equal seq in id order",
        ),
    ],
    "trail_tree_unknown": [
        Probe(
            "unknown turns",
            _T_UNKNOWN,
            "for turn ids that are not in agent_turns (other forms than the check's) expected None",
        ),
    ],
    "context_budget_checks": [
        Probe(
            "parts",
            _BUDGET_SETUP + _B_PARTS,
            "for probe conversations without a manifest or tools (several system, user, "
            "assistant and tool messages, none at all, text beyond ASCII) the parts or the "
            "total are wrong: system messages in system, user and assistant messages in "
            "history, tool messages in tool_outputs, each piece counted with count_tokens",
        ),
    ],
    "context_budget_manifest": [
        Probe(
            "manifest",
            _BUDGET_SETUP + _B_MANIFEST,
            "the manifest is found or cut wrongly in a probe message (at the start, after a "
            "line of text, at the end, followed by more text, in an agent's system prompt, in "
            "a message of another role, a phrase that only mentions it)",
        ),
    ],
    "context_budget_tools": [
        Probe(
            "tools",
            _BUDGET_SETUP + _B_TOOLS,
            "tool schemas or tool calls are counted wrongly for probe requests (real schemas, "
            "assistant messages with several calls, content None or empty in messages of "
            "every role, no calls)",
        ),
    ],
    "context_budget_window": [
        Probe(
            "window",
            _BUDGET_SETUP + _B_WINDOW,
            "window, free or share are wrong for probe windows (smaller than the request, "
            "the size of real models' windows)",
        ),
    ],
}

# The sentences of the TODOs each probe enforces (tests/test_grading_fairness.py).
_READ = (
    "Read the turn's row of ``agent_turns`` and its rows of ``turn_events`` with "
    "``h.backend.query``"
)
_NONE = "None when ``agent_turns`` has no row with this ``turn_id``."
_SHAPE = (
    "Otherwise a dict with the turn's ``turn_id``, ``question``, ``status`` and ``answer``, and "
    "``events``: the turn's events whose ``parent_id`` is NULL. Each event is a dict with the "
    "keys ``id``, ``kind``, ``name``, ``ok``, ``detail`` and ``children``;"
)
_CHILDREN = (
    "``children`` holds the events whose ``parent_id`` is this event's ``id``, as dicts of the "
    "same shape, at any depth."
)
_OK = (
    "``ok`` is True, False or None (the column holds 1, 0 or NULL); ``detail`` is the column's "
    "JSON text parsed into a dict."
)
_ORDER = (
    "Every list of events (``events`` and each ``children``) is in ``seq`` order; events with "
    "equal ``seq`` are in ``id`` order."
)
_ROW_SYSTEM = "| `system` | the text of the `system` messages, without the manifest in them |"
_ROW_MANIFEST = (
    "| `manifest` | the skill manifest: in a `system` or `user` message, from the start of a "
    "line that begins with `Skills you can load` or `Your skills` up to the next empty line "
    '(`"\\n\\n"`, not included) or the end of the message |'
)
_ROW_SCHEMAS = "| `tool_schemas` | each tool schema as sent: `count_tokens(compact_json(schema))` |"
_ROW_HISTORY = (
    "| `history` | the text of the `user` messages without the manifest, and of the "
    "`assistant` messages |"
)
_ROW_OUTPUTS = "| `tool_outputs` | the content of the `tool` messages |"
_TEXT = (
    "A message's text is its `content` (None counts as empty text); an `assistant` message that "
    'calls tools adds, for each call, a line `"\\n" + name + " " + arguments` from its '
    '`tool_calls` (`call["function"]["name"]`, `call["function"]["arguments"]`).'
)
_PIECES = (
    "Count each piece with `count_tokens(text)` (from `agent_harness.parts.token_count`, as "
    "`compact_json`) and add up: a message with a manifest is two pieces, the manifest and the "
    "rest (the text before the manifest followed by the text after it)."
)
_TOTAL = (
    "``total`` (their sum), ``window`` (as given), ``free`` (``window - total``; negative when "
    "the request does not fit) and ``share`` (``total / window``, a fraction)."
)
_RELIES = {
    ("trail_tree_checks", "turn and events"): (_READ, _NONE, _SHAPE, _OK),
    ("trail_tree_nesting", "deep trees"): (_SHAPE, _CHILDREN),
    ("trail_tree_order", "order"): (_ORDER,),
    ("trail_tree_unknown", "unknown turns"): (_NONE,),
    ("context_budget_checks", "parts"): (
        _ROW_SYSTEM,
        _ROW_HISTORY,
        _ROW_OUTPUTS,
        _TEXT,
        _PIECES,
        _TOTAL,
    ),
    ("context_budget_manifest", "manifest"): (_ROW_MANIFEST, _ROW_SYSTEM, _ROW_HISTORY, _PIECES),
    ("context_budget_tools", "tools"): (_ROW_SCHEMAS, _ROW_HISTORY, _TEXT, _TOTAL),
    ("context_budget_window", "window"): (_TOTAL,),
}
PROBES = {
    grade_id: [replace(p, relies_on=_RELIES[grade_id, p.name]) for p in probes]
    for grade_id, probes in PROBES.items()
}
