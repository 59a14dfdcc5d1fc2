"""Probes of 05_tool_output_offload.

``log_tool`` is graded in three cells: ``_checks`` (the whole output stored as a memory of kind
tool_output, subject = the call id, its thread and tool name, the id returned, never found by
search_knowledge), ``_args`` (tool_args as JSON text: a dict encoded, a str unchanged) and
``_empty`` (metadata chars = len(output) and empty; an empty output stored as EMPTY_OUTPUT).
``fetch_tool_output`` likewise: ``_checks`` (the whole stored call for that id), ``_missing``
(the exact error for an id with no tool output, other kinds with that subject included) and
``_empty`` (an output logged empty comes back as ""). The probes use fixed call ids, so whole
results can be compared; big outputs are compared by SHA-256 and length.
"""

from dataclasses import replace

from grader.value_checks import Probe

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
        "fetched": {key: _digest(back.get(key)) for key in ("tool_name", "tool_output")},
        "same": type(back.get("tool_output")) is str and back["tool_output"] == output,
        "memory": None if m is None else [m.kind, m.subject == call_id, m.thread_id,
                                         plain(m.metadata.get("tool_name"))],
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
                "         for n in (1, 2, 8, 10, 599, 600, 601, 1200)]",
            ),
            "for outputs of other sizes (1 up to 1200 characters: emoji, combining accents, "
            "CR/LF, tabs and NUL among them) expected each stored whole, read back byte for "
            "byte by h.offload.fetch, in a memory of kind tool_output with subject = the "
            "tool_call_id, its thread_id and metadata tool_name, and the int id returned",
        ),
        Probe(
            "multi-megabyte",
            _LOG + _tidy_after("call_probe_big_", "value = _logged('call_probe_big_1', _big)"),
            "for an output of more than 2,000,000 characters expected it stored whole, unchanged",
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
value = [_a, _b, _c, _digest(h.offload.fetch("call_probe_mix_a").get("tool_output"))]
""",
            ),
            "for three calls logged one after the other (two threads) expected each in its own "
            "memory, with its own subject (the tool_call_id), tool name and thread",
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
            "for an output logged with a rare word 80 times expected no hit of search_knowledge "
            "for that word in any mode (keyword, hybrid, vector): its kind must be tool_output",
        ),
    ],
    "log_tool_args": [
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
]
""",
            ),
            "for other arguments (a dict with unicode, nested and empty ones; raw JSON text) "
            "expected JSON text in metadata tool_args: a dict as json.dumps(tool_args, "
            "sort_keys=True) (read back equal), a str unchanged",
        ),
    ],
    "log_tool_empty": [
        Probe(
            "chars and empty",
            _LOG
            + _tidy_after(
                "call_probe_chars_",
                """
value = []
for _n in (0, 1, 2, 8, 10, 599, 600, 601, 1200):
    _mid = log_tool("probe-thread", f"call_probe_chars_{_n}", "some_tool", {},
                    (_pattern * 200)[:_n])
    _m = h.memory.get(_mid) if type(_mid) is int else None
    value.append(None if _m is None else [plain(_m.metadata.get("chars")),
                                          plain(_m.metadata.get("empty")),
                                          _m.content == EMPTY_OUTPUT if _n == 0 else None])
value.append(_digest(h.offload.fetch("call_probe_chars_0").get("tool_output")))
""",
            ),
            "for outputs of 0 up to 1200 characters (emoji, combining accents, CR/LF, tabs, "
            "NUL) expected metadata chars = len(output) (characters, not bytes), empty True "
            "only for '', and an empty output stored as EMPTY_OUTPUT and read back as ''",
        ),
    ],
    "fetch_tool_output_checks": [
        Probe(
            "sizes",
            _FETCH
            + _tidy_after(
                "call_probe_fetch_",
                "value = [_fetched(_stored(f'call_probe_fetch_{n}', (_pattern * 200)[:n]))\n"
                "         for n in (1, 2, 8, 10, 599, 600, 601, 1200)]",
            ),
            "for outputs of other sizes (1 up to 1200 characters: emoji, combining accents, "
            "CR/LF, tabs and NUL among them) logged by h.offload.log expected each back whole, "
            "byte for byte, with its tool_name and tool_args",
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
            "for an output of more than 2,000,000 characters expected it back whole, in a "
            "JSON-serialisable result",
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
            "for other stored arguments (a dict with unicode, raw JSON text, {}) expected "
            "tool_args back as the stored JSON text (a str, not decoded), with the stored "
            "tool_name",
        ),
        Probe(
            "ids do not mix",
            _FETCH
            + _tidy_after(
                "call_probe_fmix_",
                """
_first = _stored("call_probe_fmix_first", "F" * 800, name="first_tool")
_later = [_stored(f"call_probe_fmix_{i}", f"{i}" * 800, name=f"later_{i}") for i in range(3)]
value = [_fetched(_first), [_fetched(c) for c in _later]]
""",
            ),
            "for an older call followed by three newer ones expected each id to fetch its own "
            "call: the tool_output memory whose subject is exactly this tool_call_id",
        ),
    ],
    "fetch_tool_output_missing": [
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
            "for ids whose only memory is a note or an episode (not a tool output) expected "
            "{'error': \"no tool call with id <the id as repr() quotes it>\"}: filter on kind "
            "tool_output AND subject",
        ),
        Probe(
            "unknown ids",
            _FETCH
            + _tidy_after(
                "call_probe_funk_",
                """
_stored("call_probe_funk_real", "a real output " * 60)
value = [_fetched(x) for x in ("", "call_' OR 1=1 --", "ünïcode-id-🚢", 'say "hi"',
                                "call_does_not_exist_either", "it's", "call_probe_funk_",
                                "call_probe_funk_rea", "%", "call_probe_funk_%")]
""",
            ),
            "for other unknown ids (empty, quotes, SQL, unicode, a prefix of a real id) expected "
            "{'error': \"no tool call with id <the id as repr() quotes it>\"} and nothing else",
        ),
    ],
    "fetch_tool_output_empty": [
        Probe(
            "empty outputs",
            _FETCH
            + _tidy_after(
                "call_probe_fempty_",
                """
def _output(call_id):
    got = _fetched(call_id)
    return got.get("tool_output") if type(got) is dict else got


value = [_output(_stored("call_probe_fempty_1", "")),
         _output(_stored("call_probe_fempty_2", "", args={"port": "X"}, name="port_info")),
         _output(_stored("call_probe_fempty_3", EMPTY_OUTPUT)),
         _output(_stored("call_probe_fempty_4", " " + EMPTY_OUTPUT))]
""",
            ),
            "for outputs logged empty expected tool_output '' (metadata empty true); for an "
            "output that is the text of EMPTY_OUTPUT itself (not empty) expected that text",
        ),
    ],
}

# The sentences of the TODOs each probe enforces (tests/test_grading_fairness.py).
_WHOLE = "The output text, any size, any unicode: stored whole as the content"
_EMPTY = 'with metadata "chars" = len(tool_output) and "empty" = (tool_output == "")'
_ARGS = "a dict as json.dumps(tool_args, sort_keys=True), a str unchanged"
_SUBJECT = "The model's id for the call: the memory's subject, the handle to fetch it."
_KIND = "Store one tool call's WHOLE output as a memory of kind tool_output."
_THREAD = "The conversation the call belongs to (the memory's thread_id)."
_NAME = 'The tool that ran (metadata "tool_name").'
_RETURNS = "The new memory's id (an int)."
_EXACT = 'with the output exactly as it was logged (any size; "" when it was empty'
_SHAPE = '``{"tool_name": str, "tool_args": str (the stored JSON text), "tool_output": str}``'
_UNKNOWN = "(the id quoted as repr() does) when nothing is stored under that id."
_EMPTY_FLAG = '"" when it was empty, i.e. metadata "empty" is true'

_RELIES = {
    ("log_tool_checks", "sizes"): (_WHOLE, _SUBJECT, _KIND, _THREAD, _NAME, _RETURNS),
    ("log_tool_checks", "multi-megabyte"): (_WHOLE,),
    ("log_tool_checks", "calls do not mix"): (_SUBJECT, _THREAD, _NAME),
    ("log_tool_checks", "not in search"): (_KIND,),
    ("log_tool_args", "tool_args"): (_ARGS,),
    ("log_tool_empty", "chars and empty"): (_WHOLE, _EMPTY),
    ("fetch_tool_output_checks", "sizes"): (_EXACT,),
    ("fetch_tool_output_checks", "multi-megabyte"): (_EXACT,),
    ("fetch_tool_output_checks", "tool_args"): (_SHAPE,),
    ("fetch_tool_output_checks", "ids do not mix"): (_SHAPE, _EXACT),
    ("fetch_tool_output_missing", "only tool outputs"): (_UNKNOWN,),
    ("fetch_tool_output_missing", "unknown ids"): (_UNKNOWN,),
    ("fetch_tool_output_empty", "empty outputs"): (_EXACT, _EMPTY_FLAG),
}
PROBES = {
    grade_id: [replace(p, relies_on=_RELIES[grade_id, p.name]) for p in probes]
    for grade_id, probes in PROBES.items()
}
