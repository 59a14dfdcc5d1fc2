"""Probes of 05_tool_output_offload.

``log_tool``: the hidden tests store outputs of 0, 1, 599, 600 and 601 characters (unicode,
CR/LF, tab and NUL among them) and a multi-megabyte one, and read them back byte for byte with
the library's ``h.offload.fetch``; check kind, subject, metadata chars/empty, tool_args as a
dict and as JSON text, that two calls do not mix and that stored outputs never show up in
search_knowledge. ``fetch_tool_output``: the same sizes stored with ``h.offload.log``, tool_args
as stored JSON text, ids that do not mix (newest-first lists), other kinds with the same subject
and unknown ids (the exact error text). The probes use fixed call ids, so whole results can be
compared; big outputs are compared by SHA-256 and length.
"""

from dataclasses import replace

from grader.probes import Probe

_TEXTS = """
import hashlib as _hashlib
import json as _json

_pattern = "ab🚢e\\u0301ü漢\\r\\n\\t\\x00"
_big = "a" * 598 + "🚢" + "e\\u0301" + "ü" * 3 + ("漢字🧭 cargo e\\u0301\\r\\n" * 150_000)


def _digest(text):
    # A str as [length, sha256]; anything else as plain data.
    if type(text) is not str:
        return plain(text)
    return [len(text), _hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()]


def _tidy(prefix):
    for m in h.memory.list(metadata_filter={"kind": ["tool_output", "note"]}, limit=100_000):
        if type(m.subject) is str and m.subject.startswith(prefix):
            h.memory.delete(m.id)
"""

_LOG = (
    _TEXTS
    + """

def _logged(call_id, output, args=None, name="some_tool", thread="probe-thread"):
    # Log with the student's log_tool; read back with the library and the store.
    memory_id = log_tool(thread, call_id, name, {} if args is None else args, output)
    back = h.offload.fetch(call_id)
    m = h.memory.get(memory_id) if type(memory_id) is int else None
    return {
        "id": type(memory_id).__name__,
        "fetched": {key: _digest(value) for key, value in back.items()},
        "same": type(back.get("tool_output")) is str and back["tool_output"] == output,
        "memory": None if m is None else [m.kind, m.subject == call_id, m.thread_id,
                                         plain(m.metadata.get("tool_name")),
                                         plain(m.metadata.get("chars")),
                                         bool(m.metadata.get("empty"))],
    }
"""
)

_FETCH = (
    _TEXTS
    + """

def _fetched(call_id):
    # The student's answer for one id, big strings as [length, sha256].
    try:
        got = fetch_tool_output(call_id)
    except Exception as e:
        return ["raised", type(e).__name__]
    if type(got) is not dict:
        return ["not a dict", plain(got)]
    return {key: _digest(value) for key, value in got.items()}


def _stored(call_id, output, args=None, name="some_tool"):
    h.offload.log("probe-thread", call_id, name, {} if args is None else args, output)
    return call_id
"""
)


def _tidy_after(prefix: str, body: str) -> str:
    """``body`` in a try whose finally deletes the memories the probe made (subject prefix)."""
    indented = "".join(f"    {line}\n" if line else "\n" for line in body.strip().splitlines())
    return f"_tidy({prefix!r})\ntry:\n{indented}finally:\n    _tidy({prefix!r})\n"


PROBES = {
    "log_tool_checks": [
        Probe(
            "sizes",
            _LOG
            + _tidy_after(
                "call_probe_log_",
                "value = [_logged(f'call_probe_log_{n}', (_pattern * 200)[:n])\n"
                "         for n in (0, 1, 2, 8, 10, 599, 600, 601, 1200)]",
            ),
            "an output of some size did not round-trip byte for byte through h.offload.fetch, "
            "or its memory is not right (kind tool_output, subject = the tool_call_id, "
            "thread_id, metadata tool_name, chars = len(output), empty = output == '')",
        ),
        Probe(
            "multi-megabyte",
            _LOG + _tidy_after("call_probe_big_", "value = _logged('call_probe_big_1', _big)"),
            "a multi-megabyte output must be stored whole, unchanged",
        ),
        Probe(
            "tool_args",
            _LOG
            + _tidy_after(
                "call_probe_args_",
                """
_raw = '{"container_no": "ABCU1234567", "note": "ü"}'
_a = _logged("call_probe_args_1", "x" * 700, args={"b": 2, "a": "ü", "c": [1, None]})
_b = _logged("call_probe_args_2", "y" * 700, args=_raw)
_c = _logged("call_probe_args_3", "z" * 10, args={})
value = [
    _json.loads(h.offload.fetch("call_probe_args_1")["tool_args"]),
    h.offload.fetch("call_probe_args_2")["tool_args"] == _raw,
    _json.loads(h.offload.fetch("call_probe_args_3")["tool_args"]),
    [type(h.offload.fetch(c)["tool_args"]).__name__
     for c in ("call_probe_args_1", "call_probe_args_2", "call_probe_args_3")],
    _a["memory"], _b["memory"], _c["memory"],
]
""",
            ),
            "tool_args must be stored as JSON text: a dict with json.dumps(tool_args, "
            "sort_keys=True), a str unchanged",
        ),
        Probe(
            "calls do not mix",
            _LOG
            + _tidy_after(
                "call_probe_mix_",
                """
_a = _logged("call_probe_mix_a", "A" * 900, name="tool_a", thread="t-a")
_b = _logged("call_probe_mix_b", "B" * 900, name="tool_b", thread="t-b")
_c = _logged("call_probe_mix_c", "C" * 300, name="tool_c", thread="t-a")
value = [_a, _b, _c, {k: _digest(v) for k, v in h.offload.fetch("call_probe_mix_a").items()}]
""",
            ),
            "two logged calls got mixed up: each is its own memory, with its own subject "
            "(the tool_call_id), tool name and thread",
        ),
        Probe(
            "not in search",
            _LOG
            + _tidy_after(
                "call_probe_search_",
                """
_word = "zanzibarquokka7c31"
_mid = log_tool("probe-thread", "call_probe_search_1", "some_tool", {},
                f"{_word} {_word} secret manifest line " * 40)
value = []
for _mode in ("keyword", "hybrid", "vector"):
    _hits = _json.loads(h.tools.call("search_knowledge", {"query": _word, "k": 20, "mode": _mode}))
    value.append(all(hit["id"] != _mid and hit["kind"] != "tool_output" for hit in _hits))
""",
            ),
            "a stored tool output showed up in search_knowledge: its kind must be tool_output",
        ),
    ],
    "fetch_tool_output_checks": [
        Probe(
            "sizes",
            _FETCH
            + _tidy_after(
                "call_probe_fetch_",
                "value = [_fetched(_stored(f'call_probe_fetch_{n}', (_pattern * 200)[:n]))\n"
                "         for n in (0, 1, 2, 8, 10, 599, 600, 601, 1200)]",
            ),
            "an output of some size did not come back byte for byte (an empty output comes "
            "back as '')",
        ),
        Probe(
            "multi-megabyte",
            _FETCH
            + _tidy_after(
                "call_probe_fbig_",
                """
_got = _fetched(_stored("call_probe_fbig_1", _big))
_raw = fetch_tool_output("call_probe_fbig_1")
try:
    _json.dumps(_raw, ensure_ascii=False)
    _serialisable = True
except (TypeError, ValueError):
    _serialisable = False
value = [_got, _serialisable]
""",
            ),
            "a multi-megabyte output must come back whole, and the result must be "
            "JSON-serialisable",
        ),
        Probe(
            "tool_args",
            _FETCH
            + _tidy_after(
                "call_probe_fargs_",
                """
value = [_fetched(_stored("call_probe_fargs_1", "z" * 700, args={"b": 2, "a": "ü"})),
         _fetched(_stored("call_probe_fargs_2", "w" * 700, args='{"container_no": "ABCU1234567"}')),
         _fetched(_stored("call_probe_fargs_3", "v" * 20, args={}, name="other_tool"))]
""",
            ),
            "tool_args must come back as the stored JSON text (a str, not decoded), with the "
            "stored tool_name",
        ),
        Probe(
            "ids do not mix",
            _FETCH
            + _tidy_after(
                "call_probe_fmix_",
                """
_first = _stored("call_probe_fmix_first", "F" * 800, name="first_tool")
_later = [_stored(f"call_probe_fmix_{i}", f"{i}" * 800, name=f"later_{i}") for i in range(3)]
value = [_fetched(_first), [_fetched(c) for c in _later], _fetched("call_probe_fmix_"),
         _fetched("call_probe_fmix")]
""",
            ),
            "fetched the wrong call: return the tool_output memory whose subject is exactly "
            "this tool_call_id",
        ),
        Probe(
            "only tool outputs",
            _FETCH
            + _tidy_after(
                "call_probe_fnote_",
                """
h.memory.add("a note that happens to use a call id as subject", kind="note",
             subject="call_probe_fnote_1")
h.memory.add("an episode with a call id as subject", kind="episode",
             subject="call_probe_fnote_2", thread_id="probe-thread")
value = [_fetched("call_probe_fnote_1"), _fetched("call_probe_fnote_2")]
for _m in h.memory.list(metadata_filter={"subject": "call_probe_fnote_2"}, limit=10):
    h.memory.delete(_m.id)
""",
            ),
            "a memory of another kind with that subject is not a tool call: filter on kind "
            "tool_output AND subject",
        ),
        Probe(
            "unknown ids",
            _FETCH
            + """
value = [_fetched(x) for x in ("", "call_' OR 1=1 --", "ünïcode-id-🚢", 'say "hi"',
                                "call_does_not_exist_either", "it's")]
""",
            "an unknown id must return {'error': \"no tool call with id <the id as repr() "
            'quotes it>"} and nothing else',
        ),
    ],
}

# The sentences of the TODOs each probe enforces (tests/test_grading_fairness.py).
_WHOLE = "The output text, any size, any unicode: stored whole as the content"
_EMPTY = 'with metadata "chars" = len(tool_output) and "empty" = (tool_output == "")'
_ARGS = "a dict as json.dumps(tool_args, sort_keys=True), a str unchanged"
_SUBJECT = "The model's id for the call: the memory's subject, the handle to fetch it."
_KIND = "Store one tool call's WHOLE output as a memory of kind tool_output."
_EXACT = 'with the output exactly as it was logged (any size; "" when it was empty'
_SHAPE = '``{"tool_name": str, "tool_args": str (the stored JSON text), "tool_output": str}``'
_UNKNOWN = "(the id quoted as repr() does) when nothing is stored under that id."
_RELIES = {
    ("log_tool_checks", "sizes"): (_WHOLE, _EMPTY),
    ("log_tool_checks", "multi-megabyte"): (_WHOLE,),
    ("log_tool_checks", "tool_args"): (_ARGS,),
    ("log_tool_checks", "calls do not mix"): (_SUBJECT,),
    ("log_tool_checks", "not in search"): (_KIND,),
    ("fetch_tool_output_checks", "sizes"): (_EXACT,),
    ("fetch_tool_output_checks", "multi-megabyte"): (_EXACT,),
    ("fetch_tool_output_checks", "tool_args"): (_SHAPE,),
    ("fetch_tool_output_checks", "ids do not mix"): (_SHAPE, _EXACT),
    ("fetch_tool_output_checks", "only tool outputs"): (_UNKNOWN,),
    ("fetch_tool_output_checks", "unknown ids"): (_UNKNOWN,),
}
PROBES = {
    grade_id: [replace(p, relies_on=_RELIES[grade_id, p.name]) for p in probes]
    for grade_id, probes in PROBES.items()
}
