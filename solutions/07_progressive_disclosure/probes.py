"""Probes of 07_progressive_disclosure.

``resolve_skill_tools``: the probes ingest skill graphs of their own (names ``probe7?-<stem>``,
removed afterwards: chains, missing dependencies, optional edges, diamonds, grants of every
access level, cycles of every shape) and record the student's answer as plain data: the tools
with their access and the cycles, sorted (any order is accepted); the walk probe also records
how many statements were sent.

``disclose``: a pure function; the probes call it on probe-only tool lists and skill maps and
record, per call, ``run``, whether ``error`` is None, the next offer, whether the argument was
left unchanged and a new list returned, and which of the probe's names the error mentions (the
wording is free).

``define_sql_tool``: the probes define tools with probe-only names and arguments (removed
afterwards) and record the stored schema (properties, the required set), the rows of calls
(with and without optional arguments, and a refused one), and for mismatched statements
whether a ValueError was raised, which names its message mentions and whether anything was
stored.
"""

from dataclasses import replace

from grader.value_checks import Probe

# --- resolve_skill_tools --------------------------------------------------------------------------
_SKILLS_SETUP = """
import pathlib as _pathlib
import tempfile as _tempfile


def _ingest(tag, files):
    with _tempfile.TemporaryDirectory() as folder:
        for stem, front in files.items():
            _pathlib.Path(folder, f"{stem}.md").write_text(
                f"---\\n{front}\\n---\\n# Probe skill {stem}\\n\\nUse for a probe ({stem}).\\n",
                encoding="utf-8")
        h.skills.ingest(folder, source=tag)


def _drop(tag, files):
    h.backend.delete_indexed("skillbox", [f"{tag}-{stem}" for stem in files])


def _of(skill, count=False):
    sent, real = [], h.backend.query

    def counting(sql, binds=None):
        sent.append(sql)
        return real(sql, binds)

    h.backend.query = counting
    try:
        got = plain(resolve_skill_tools(skill))
    except Exception as e:
        return ["raised", type(e).__name__]
    finally:
        try:
            del h.backend.query
        except AttributeError:
            pass
    if type(got) is not dict or set(got) != {"tools", "cycles"}:
        return {"shape": got}
    cycles = got["cycles"]
    try:
        cycles = sorted(cycles)
    except TypeError:
        pass
    found = {"tools": got["tools"], "cycles": cycles}
    if count:
        found["statements"] = [len(sent), bool(sent) and "WITH" in str(sent[0]).upper()]
    return found


def _probe(tag, files, starts, count=False):
    _ingest(tag, files)
    try:
        return [_of(f"{tag}-{s}" if s else "probe7-not-stored", count) for s in starts]
    finally:
        _drop(tag, files)
"""

_CHAIN = """
value = _probe("probe7w", {
    "a": "tools: [pw_a1, pw_a2]\\nrequires: [b, e]",
    "b": "tools: [pw_b1]\\nrequires: [c]",
    "c": "tools: [pw_c1]\\nrequires: [d, lost]",
    "d": "tools: [pw_d1, pw_d2]\\nrequires: [f]",
    "e": "tools: []\\nrequires: [g]",
    "f": "tools: [pw_f1]",
    "g": "tools: [pw_g1]\\nrequires: [gone]",
    "h": "tools: [pw_h1]",
}, ["a", "c", "e", "h", None], count=True)
"""

_PROJECT = """
value = []
for _s in [r["name"] for r in h.skills.list()]:
    _mine = _of(_s)
    value.append(type(_mine) is dict and _mine.get("tools") == plain(h.skills.resolve(_s).tools))
"""

_OPTIONAL = """
value = _probe("probe7o", {
    "a": "tools: [po_a]\\nrequires: [b]\\noptional: [c, d]",
    "b": "tools: [po_b]\\nrequires: [d]\\noptional: [e]",
    "c": "tools: [po_c]\\nrequires: [e]",
    "d": "tools: [po_d]\\noptional: [f]",
    "e": "tools: [po_e]",
    "f": "tools: [po_f]\\nrequires: [e]",
}, ["a", "b", "c", "d", "f"])
"""

_ACCESS = """
value = _probe("probe7a", {
    "a": "tools: [{name: pa_x, access: write}, pa_y]\\nrequires: [b, c]",
    "b": "tools: [{name: pa_x, access: read}, {name: pa_y, access: execute}, pa_z]"
         "\\nrequires: [d]",
    "c": "tools: [{name: pa_z, access: write}, {name: pa_w, access: write}]\\nrequires: [d]",
    "d": "tools: [{name: pa_w, access: execute}, {name: pa_x, access: read}]",
    "e": "tools: [{name: pa_v, access: execute}]\\nrequires: [f]",
    "f": "tools: [{name: pa_v, access: write}, {name: pa_u, access: write}]\\nrequires: [g]",
    "g": "tools: [{name: pa_u, access: read}, {name: pa_v, access: read}]",
}, ["a", "b", "c", "d", "e", "f"])
"""

_CYCLES = """
value = _probe("probe7c", {
    "a": "tools: [pc_a]\\nrequires: [b]",
    "b": "tools: [pc_b]\\nrequires: [c]",
    "c": "tools: [pc_c]\\nrequires: [a, b, d]",
    "d": "tools: [pc_d]\\nrequires: [d]",
    "m": "tools: [pc_m]\\nrequires: [mm, n]",
    "mm": "tools: [pc_mm]\\nrequires: [m]",
    "n": "tools: [pc_n]",
    "nn": "tools: [pc_nn]\\nrequires: [n]",
    "top": "tools: [pc_top]\\nrequires: [l, r]",
    "l": "requires: [base]", "r": "requires: [base]",
    "base": "tools: [pc_base]\\nrequires: [top]",
}, ["a", "c", "d", "m", "nn", "top", "base"])
"""

# --- disclose -------------------------------------------------------------------------------------
_DISCLOSE_SETUP = """
import copy as _copy

# One call as plain data: run, the error (None or text, whether it names the tool, which
# skills of unlocks it names), the next offer, the argument unchanged, a new list returned.
def _call(offered, tool_name, arguments, unlocks):
    before = list(offered)
    try:
        got = disclose(offered, tool_name, arguments, _copy.deepcopy(unlocks))
    except Exception as e:
        return ["raised", type(e).__name__]
    if type(got) is not dict or set(got) != {"run", "error", "offered"}:
        return {"shape": plain(got)}
    error = got["error"]
    text = error if type(error) is str else ""
    return {"run": plain(got["run"]), "error_is_none": error is None,
            "error_is_text": bool(text.strip()),
            "names_tool": str(tool_name) in text,
            "names_skills": sorted(s for s in unlocks if s in text),
            "offered": plain(got["offered"]),
            "argument_unchanged": offered == before,
            "new_list": got["offered"] is not offered}


_U = {"sk-alpha": ["tool_one", "tool_two", "tool_one"],
      "sk-bravo": ["tool_three", "tool_two", "tool_four"],
      "sk-charlie": [],
      "sk-delta": ["tool_five"],
      "sk-echo": ["tool_four", "run_sql", "tool_one"]}
_BASE = ["load_skill", "run_sql"]


def _pick(got, *keys):
    return {k: got.get(k) for k in keys} if type(got) is dict and "run" in got else got
"""

_D_RUNS = """
value = [_pick(_call(*args), "run", "error_is_none", "offered") for args in [
    (_BASE, "run_sql", {"sql": "x"}, _U),
    (_BASE + ["tool_five"], "tool_five", {}, _U),
    (["tool_two", "load_skill"], "tool_two", {"name": "sk-alpha"}, _U),
    (["x_only"], "x_only", {}, {}),
]]
"""

_D_REFUSE = """
value = [_pick(_call(*args), "run", "error_is_text", "names_tool", "names_skills", "offered")
         for args in [(_BASE, name, {}, _U) for name in
                      ["tool_two", "tool_four", "tool_five", "mystery_tool", "tool_one"]]
         + [(["run_sql"], "load_skill", {"name": "sk-delta"}, _U)]]
"""

_D_LOAD = """
value = []
_now = list(_BASE)
for _skill in ["sk-bravo", "sk-alpha", "sk-charlie", "sk-echo", "sk-delta", "sk-bravo"]:
    _got = _call(_now, "load_skill", {"name": _skill}, _U)
    value.append(_pick(_got, "run", "error_is_none", "offered"))
    if type(_got) is dict and type(_got.get("offered")) is list:
        _now = list(_got["offered"])
value.append(_pick(_call(["load_skill", "tool_four"], "load_skill", {"name": "sk-echo"}, _U),
                   "run", "error_is_none", "offered"))
"""

_D_UNKNOWN = """
_five = {"sk-alpha": ["tool_one"], "sk-bravo": ["tool_two"], "sk-charlie": ["tool_three"],
         "sk-delta": ["tool_four"], "sk-echo": ["tool_five"]}
value = [_pick(_call(_BASE, "load_skill", arguments, _five),
               "run", "error_is_text", "names_skills", "offered")
         for arguments in [{"name": "sk-zulu"}, {"name": "SK-ALPHA"}, {"name": ""},
                           {"name": None}, {"name": "tool_one"}, {"other": "sk-alpha"}]]
"""

_D_MUTATION = """
value = [_pick(_call(*args), "argument_unchanged", "new_list") for args in [
    (list(_BASE), "load_skill", {"name": "sk-bravo"}, _U),
    (list(_BASE), "load_skill", {"name": "sk-charlie"}, _U),
    (list(_BASE), "run_sql", {}, _U),
    (list(_BASE), "tool_one", {}, _U),
    (list(_BASE), "load_skill", {"name": "sk-zulu"}, _U),
    (["load_skill", "tool_one", "tool_two"], "load_skill", {"name": "sk-alpha"}, _U),
]]
"""

# --- define_sql_tool ------------------------------------------------------------------------------
_DEFINE_SETUP = """
import json as _json

_SQL = ("SELECT voyage_code, origin_port, distance_nm FROM supplychain.voyages"
        " WHERE ocean_region = :region AND distance_nm >= :min_nm AND status <> :skip_status"
        " ORDER BY voyage_code")


def _gone(name):
    if name in h.tools.names():
        h.tools.undefine(name)


def _schema(name):
    if name not in h.tools.names():
        return "not defined"
    schema = plain(h.tools.get(name).parameters)
    return {"properties": schema.get("properties"),
            "required": sorted(schema.get("required") or [])}


def _rows(name, arguments):
    answer = _json.loads(h.tools.call(name, arguments))
    return "error" if "error" in answer else answer.get("rows")


def _define(name, description, sql, params):
    try:
        made = define_sql_tool(name, description, sql, params)
    except Exception as e:
        return ["raised", isinstance(e, ValueError)]
    return ["ok", plain(getattr(made, "name", None))]
"""

_DEF_TOOL = """
value = []
try:
    value.append(_define("probe7_voyages", "Voyages of a region.", _SQL, {
        "skip_status": ("string", "A status left out, e.g. CANCELLED"),
        "region": ("string", "PACIFIC, ATLANTIC or INDIAN"),
        "min_nm": ("number", "The shortest distance in nautical miles")}))
    value.append(_schema("probe7_voyages"))
    value.append(_rows("probe7_voyages", {"region": "ATLANTIC", "min_nm": 3500.5,
                                          "skip_status": "COMPLETED"}))
    value.append(_rows("probe7_voyages", {"region": "INDIAN", "min_nm": 0, "skip_status": "x"}))
    value.append(_rows("probe7_voyages", {"region": "INDIAN", "min_nm": "far", "skip_status": "x"}))
    value.append(_rows("probe7_voyages", {"region": 7, "min_nm": 1, "skip_status": "x"}))
    value.append(plain(h.backend.query(
        "SELECT implementation_type FROM tool_definitions WHERE name = 'probe7_voyages'")))
finally:
    _gone("probe7_voyages")
try:
    value.append(_define("probe7_flag", "Carriers founded before a year.",
                         "SELECT name FROM supplychain.carriers WHERE founded_year < :year"
                         " ORDER BY name", {"year": ("integer", "A year")}))
    value.append(_schema("probe7_flag"))
    value.append(_rows("probe7_flag", {"year": 1950}))
finally:
    _gone("probe7_flag")
"""

_DEF_REQUIRED = """
value = []
try:
    value.append(_define("probe7_opt", "Voyages of a region.", _SQL, {
        "region": ("string", "The region"),
        "min_nm": ("number", "Shortest distance", 0),
        "skip_status": ("string", "A status left out", "")}))
    value.append(_schema("probe7_opt"))
    value.append(_rows("probe7_opt", {"region": "PACIFIC"}))
    value.append(_rows("probe7_opt", {"region": "PACIFIC", "min_nm": 9000}))
    value.append(_rows("probe7_opt", {"min_nm": 9000}))
finally:
    _gone("probe7_opt")
try:
    value.append(_define("probe7_all_opt", "Voyages of a region.", _SQL, {
        "min_nm": ("number", "Shortest distance", 8000.0),
        "skip_status": ("string", "A status left out", "DELAYED"),
        "region": ("string", "The region", "ATLANTIC")}))
    value.append(_schema("probe7_all_opt"))
    value.append(_rows("probe7_all_opt", {}))
    value.append(_rows("probe7_all_opt", {"region": "INDIAN", "skip_status": "ACTIVE"}))
finally:
    _gone("probe7_all_opt")
"""

_DEF_BINDS = """
def _mismatch(sql, params, differences):
    name = "probe7_bad"
    try:
        made = define_sql_tool(name, "Must not be defined.", sql, params)
        outcome = ["no error", plain(getattr(made, "name", None))]
    except Exception as e:
        outcome = ["raised", isinstance(e, ValueError), all(n in str(e) for n in differences)]
    stored = name in h.tools.names() or bool(h.backend.query(
        "SELECT name FROM tool_definitions WHERE name = :n", {"n": name}))
    _gone(name)
    return outcome + [stored]


_r = ("region", ("string", "The region"))
_m = ("min_nm", ("number", "Shortest"))
_s = ("skip_status", ("string", "Left out"))
_quoted = _SQL.replace("status <> :skip_status", "status <> ':quoted'")
value = [
    _mismatch(_SQL, dict([_r, _m]), ["skip_status"]),
    _mismatch(_SQL, dict([_r, _m, _s, ("limit_n", ("integer", "How many"))]), ["limit_n"]),
    _mismatch(_SQL.replace(":region", ":zone"), dict([_r, _m, _s]), ["zone", "region"]),
    _mismatch(_quoted, dict([_r, _m]), []),
    _mismatch(_quoted, dict([_r, _m, ("quoted", ("string", "q"))]), ["quoted"]),
    _mismatch(_SQL, {}, ["region", "min_nm", "skip_status"]),
]
"""

PROBES = {
    "resolve_skill_tools_checks": [
        Probe(
            "walk",
            _SKILLS_SETUP + _CHAIN,
            "the walk is wrong on a probe graph (a chain of required skills several steps deep, "
            "a branch, required skills that are not stored, a skill that is not stored): "
            "expected every tool of the skill and of the skills it requires, directly or "
            "through other required skills, from ONE statement (a recursive WITH) sent through "
            "h.backend.query",
        ),
        Probe(
            "project skills",
            _SKILLS_SETUP + _PROJECT,
            "on some project skill the tools differ from h.skills.resolve(skill).tools",
        ),
    ],
    "resolve_skill_tools_optional": [
        Probe(
            "optional",
            _SKILLS_SETUP + _OPTIONAL,
            "optional dependencies are handled wrong on a probe graph: an optional edge is not "
            "followed, but a skill reached through a required edge counts even when another "
            "skill only suggests it",
        ),
    ],
    "resolve_skill_tools_access": [
        Probe(
            "access",
            _SKILLS_SETUP + _ACCESS,
            "the access of a tool granted by several skills of a probe graph (read, write and "
            "execute in several orders, through several paths) is wrong: the strongest wins, "
            "read < write < execute",
        ),
    ],
    "resolve_skill_tools_cycles": [
        Probe(
            "cycles",
            _SKILLS_SETUP + _CYCLES,
            "cycles are wrong on a probe graph (a longer cycle, a cycle met on several paths, a "
            "skill that requires itself, names that are part of other names, a diamond): expected "
            "one path per step that reaches a skill already on its path, that skill at its end, "
            "not walked further, and the tools of every skill walked",
        ),
    ],
    "disclose_checks": [
        Probe(
            "offered tools run",
            _DISCLOSE_SETUP + _D_RUNS,
            "a call of a tool that is offered (probe tool lists and skills) does not give run "
            "True, error None and the offer unchanged",
        ),
    ],
    "disclose_refuse": [
        Probe(
            "not offered",
            _DISCLOSE_SETUP + _D_REFUSE,
            "a call of a tool that is not offered (probe tools unlocked by one skill, by several, "
            "by none, and load_skill itself not offered) is not refused with an error naming the "
            "tool and exactly the skills whose list holds it, the offer unchanged",
        ),
    ],
    "disclose_load": [
        Probe(
            "load_skill",
            _DISCLOSE_SETUP + _D_LOAD,
            "load_skill gives a wrong offer on a probe sequence of loads (skills whose tools are "
            "partly offered already, listed twice, or none): expected the offer, then the "
            "skill's tools not offered yet, in the skill's order, each once",
        ),
    ],
    "disclose_unknown_skill": [
        Probe(
            "unknown skill",
            _DISCLOSE_SETUP + _D_UNKNOWN,
            "load_skill with a name that is not a key of unlocks (another name, another case, "
            "an empty name, none, a tool's name) is not refused with an error listing every "
            "skill of unlocks, the offer unchanged",
        ),
    ],
    "disclose_no_mutation": [
        Probe(
            "new lists",
            _DISCLOSE_SETUP + _D_MUTATION,
            "for some probe call the offered argument (or unlocks) was changed, or the returned "
            "offer is the argument itself rather than a new list",
        ),
    ],
    "define_sql_tool_checks": [
        Probe(
            "tool",
            _DEFINE_SETUP + _DEF_TOOL,
            "a tool defined with probe arguments (string, number and integer ones) has a wrong "
            "schema, is not of type sql, or its calls give wrong rows or accept an argument of "
            "the wrong type; or define_sql_tool did not return the tool",
        ),
    ],
    "define_sql_tool_required": [
        Probe(
            "defaults",
            _DEFINE_SETUP + _DEF_REQUIRED,
            "with probe defaults (0, an empty text, a float, every argument optional) the "
            "required set, the defaults in the schema or the rows of calls that leave optional "
            "arguments out are wrong",
        ),
    ],
    "define_sql_tool_binds": [
        Probe(
            "binds",
            _DEFINE_SETUP + _DEF_BINDS,
            "a probe statement whose bind variables and arguments differ (an argument missing, "
            "one too many, a renamed bind, a ':name' inside quotes, no arguments at all) is not "
            "refused with a ValueError naming every difference before anything is stored, or a "
            "matching one is refused",
        ),
    ],
}

# The sentences of the TODOs each probe enforces (tests/test_grading_fairness.py).
_ONE = 'Run one statement with ``h.backend.query(sql, {"skill": skill})``'
_WALK = (
    '``"tools"``: {tool: access} for every tool mapped to ``skill`` or to a skill it requires, '
    "directly or through other required skills;"
)
_NOT_STORED = (
    "A required dependency that is not stored unlocks nothing (no error); so does a ``skill`` "
    'that is not stored: ``{"tools": {}, "cycles": []}``.'
)
_OPTIONAL_TEXT = "(optional edges are not followed)"
_STRONGEST = (
    "when several of those skills map the same tool, the strongest access wins (read < write < "
    "execute)."
)
_CYCLE_TEXT = (
    '``"cycles"``: one list per step of the walk that reaches a skill already on its path: the '
    'skills of that path from ``skill``, then the skill reached again (e.g. ``["a", "b", '
    '"a"]``), in any order. Such a step is not walked further.'
)
_RULES = "Decide one tool call of a disclosing turn before it runs (the rules in the table above)."
_ROW_RUN = "| any other tool in `offered` | True | None | unchanged |"
_ROW_REFUSE = (
    "| a tool that is not in `offered` (`load_skill` included) | False | names the tool and "
    "every skill of `unlocks` whose list holds it, and no other skill | unchanged |"
)
_ROW_LOAD = (
    '| `load_skill` whose `arguments.get("name")` is a key of `unlocks` | True | None | '
    "`offered`, then that skill's tools that are not offered yet, in the skill's order, each "
    "once |"
)
_ROW_UNKNOWN = (
    "| `load_skill` with any other name, or none | False | lists every skill of `unlocks` | "
    "unchanged |"
)
_NEW_LIST = (
    'The returned ``"offered"`` is always a new list; the ``offered`` argument is never changed.'
)
_SCHEMA = (
    'an argument given a default (any value, 0, False and "" included) has `"default": default` '
    'in its property and is optional; every other argument is in `"required"`;'
)
_SCHEMA_SHAPE = (
    'the schema is `{"type": "object", "properties": {argument: {"type": json_type, '
    '"description": description}}, "required": [...]}`'
)
_PARAMS = (
    "`params` maps each argument to `(json_type, description)` or `(json_type, description, "
    "default)`;"
)
_DEFINE = (
    'then call `h.tools.define(name, description, schema, {"type": "sql", "statement": sql})` '
    "and return what it returns."
)
_BINDS = (
    "the bind variables of `sql` (the names `sql_binds(sql)` returns, imported below: each "
    "`:name` outside quoted text and comments) must be exactly the arguments of `params`; when "
    "they are not, raise `ValueError` naming every bind variable without an argument and every "
    "argument without a bind variable, before anything is stored"
)
_RELIES = {
    ("resolve_skill_tools_checks", "walk"): (_ONE, _WALK, _NOT_STORED),
    ("resolve_skill_tools_checks", "project skills"): (_WALK, _STRONGEST),
    ("resolve_skill_tools_optional", "optional"): (_OPTIONAL_TEXT, _WALK),
    ("resolve_skill_tools_access", "access"): (_STRONGEST,),
    ("resolve_skill_tools_cycles", "cycles"): (_CYCLE_TEXT, _WALK),
    ("disclose_checks", "offered tools run"): (_RULES, _ROW_RUN),
    ("disclose_refuse", "not offered"): (_RULES, _ROW_REFUSE),
    ("disclose_load", "load_skill"): (_RULES, _ROW_LOAD),
    ("disclose_unknown_skill", "unknown skill"): (_RULES, _ROW_UNKNOWN),
    ("disclose_no_mutation", "new lists"): (_NEW_LIST,),
    ("define_sql_tool_checks", "tool"): (_PARAMS, _SCHEMA_SHAPE, _DEFINE),
    ("define_sql_tool_required", "defaults"): (_PARAMS, _SCHEMA),
    ("define_sql_tool_binds", "binds"): (_BINDS,),
}
PROBES = {
    grade_id: [replace(p, relies_on=_RELIES[grade_id, p.name]) for p in probes]
    for grade_id, probes in PROBES.items()
}
