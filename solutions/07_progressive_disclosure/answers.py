"""Other answers to the TODOs of 07_progressive_disclosure.ipynb (beside this file), for the tests.

Wrong ones: ``MUTANTS`` (each scores 0 on the grade cell of ``COVERED_BY``, default the TODO's
first), ``WRONG`` and ``ALWAYS_EQUAL`` (pass the visible checks; a value check must catch
them) and ``VISIBLE`` (once passed the visible checks; now fail them). Correct ones:
``CORRECT`` and ``MORE_CORRECT`` (each scores full marks). What each table holds and which test
reads it: docs/notebook-authoring.md, "A notebook's folder".
"""

_RESOLVE = '''def resolve_skill_tools(skill):
    """Wrong on purpose: see the mutant's description."""
    sql = """
    WITH walk (skill, path) AS (
        SELECT name, CAST('|' || name || '|' AS VARCHAR(4000))
        FROM skillbox
        WHERE name = :skill
        UNION ALL
        SELECT d.depends_on, w.path || d.depends_on || '|'
        FROM walk w
        JOIN skill_dependencies d ON d.skill_name = w.skill
        WHERE d.required = 1 AND INSTR(w.path, '|' || d.depends_on || '|') = 0
    )
    SELECT 'tool' AS kind, t.tool_name AS item, t.access_level AS access_level
    FROM walk w
    JOIN skill_tools t ON t.skill_name = w.skill
    UNION ALL
    SELECT 'cycle', w.path || d.depends_on || '|', NULL
    FROM walk w
    JOIN skill_dependencies d ON d.skill_name = w.skill
    WHERE d.required = 1 AND INSTR(w.path, '|' || d.depends_on || '|') > 0
    """
    strength = {"read": 1, "write": 2, "execute": 3}
    tools, cycles = {}, []
    for row in h.backend.query(sql, {"skill": skill}):
        if row["kind"] == "cycle":
            cycles.append([name for name in row["item"].split("|") if name])
            continue
        old = tools.get(row["item"])
        if old is None or strength[row["access_level"]] > strength[old]:
            tools[row["item"]] = row["access_level"]
    return {"tools": tools, "cycles": cycles}
'''


def _resolve(old: str, new: str, count: int = 1) -> str:
    assert _RESOLVE.count(old) == count, old
    return _RESOLVE.replace(old, new)


_STEP = "WHERE d.required = 1 AND INSTR(w.path, '|' || d.depends_on || '|') = 0"
_CYCLE_ROWS = """    UNION ALL
    SELECT 'cycle', w.path || d.depends_on || '|', NULL
    FROM walk w
    JOIN skill_dependencies d ON d.skill_name = w.skill
    WHERE d.required = 1 AND INSTR(w.path, '|' || d.depends_on || '|') > 0
"""

_RESOLVE_DIRECT_ONLY = '''def resolve_skill_tools(skill):
    """Wrong on purpose: the skill and its direct required dependencies, no recursion."""
    rows = h.backend.query("""
    WITH walk (skill) AS (
        SELECT name FROM skillbox WHERE name = :skill
        UNION ALL
        SELECT depends_on FROM skill_dependencies WHERE skill_name = :skill AND required = 1
    )
    SELECT t.tool_name, t.access_level FROM walk w JOIN skill_tools t ON t.skill_name = w.skill
    """, {"skill": skill})
    strength = {"read": 1, "write": 2, "execute": 3}
    tools = {}
    for row in rows:
        old = tools.get(row["tool_name"])
        if old is None or strength[row["access_level"]] > strength[old]:
            tools[row["tool_name"]] = row["access_level"]
    return {"tools": tools, "cycles": []}
'''

_RESOLVE_PYTHON_WALK = '''def resolve_skill_tools(skill):
    """Wrong on purpose: a walk in Python, one query per skill (not one statement)."""
    strength = {"read": 1, "write": 2, "execute": 3}
    tools, cycles = {}, []
    if not h.backend.query("SELECT name FROM skillbox WHERE name = :s", {"s": skill}):
        return {"tools": {}, "cycles": []}
    todo = [[skill]]
    while todo:
        path = todo.pop(0)
        for row in h.backend.query(
                "SELECT tool_name, access_level FROM skill_tools WHERE skill_name = :s",
                {"s": path[-1]}):
            old = tools.get(row["tool_name"])
            if old is None or strength[row["access_level"]] > strength[old]:
                tools[row["tool_name"]] = row["access_level"]
        for row in h.backend.query(
                "SELECT depends_on FROM skill_dependencies WHERE skill_name = :s AND required = 1",
                {"s": path[-1]}):
            if row["depends_on"] in path:
                cycles.append(path + [row["depends_on"]])
            else:
                todo.append(path + [row["depends_on"]])
    return {"tools": tools, "cycles": cycles}
'''

_RESOLVE_MAX_TEXT = '''def resolve_skill_tools(skill):
    """Wrong on purpose: MAX(access_level) in SQL compares the words, not the levels."""
    rows = h.backend.query("""
    WITH walk (skill, path) AS (
        SELECT name, CAST('|' || name || '|' AS VARCHAR(4000)) FROM skillbox WHERE name = :skill
        UNION ALL
        SELECT d.depends_on, w.path || d.depends_on || '|'
        FROM walk w JOIN skill_dependencies d ON d.skill_name = w.skill
        WHERE d.required = 1 AND INSTR(w.path, '|' || d.depends_on || '|') = 0
    )
    SELECT 'tool' AS kind, t.tool_name AS item, MAX(t.access_level) AS access_level
    FROM walk w JOIN skill_tools t ON t.skill_name = w.skill
    GROUP BY t.tool_name
    UNION ALL
    SELECT 'cycle', w.path || d.depends_on || '|', NULL
    FROM walk w JOIN skill_dependencies d ON d.skill_name = w.skill
    WHERE d.required = 1 AND INSTR(w.path, '|' || d.depends_on || '|') > 0
    """, {"skill": skill})
    tools = {r["item"]: r["access_level"] for r in rows if r["kind"] == "tool"}
    cycles = [[s for s in r["item"].split("|") if s] for r in rows if r["kind"] == "cycle"]
    return {"tools": tools, "cycles": cycles}
'''

_RESOLVE_DEPTH_LIMIT = '''def resolve_skill_tools(skill):
    """Wrong on purpose: a depth limit instead of the path test (no cycle is ever reported)."""
    rows = h.backend.query("""
    WITH walk (skill, depth) AS (
        SELECT name, 0 FROM skillbox WHERE name = :skill
        UNION ALL
        SELECT d.depends_on, w.depth + 1
        FROM walk w JOIN skill_dependencies d ON d.skill_name = w.skill
        WHERE d.required = 1 AND w.depth < 6
    )
    SELECT t.tool_name, t.access_level FROM walk w JOIN skill_tools t ON t.skill_name = w.skill
    """, {"skill": skill})
    strength = {"read": 1, "write": 2, "execute": 3}
    tools = {}
    for row in rows:
        old = tools.get(row["tool_name"])
        if old is None or strength[row["access_level"]] > strength[old]:
            tools[row["tool_name"]] = row["access_level"]
    return {"tools": tools, "cycles": []}
'''

_DISCLOSE = '''def disclose(offered, tool_name, arguments, unlocks):
    """Wrong on purpose: see the mutant's description."""
    now = list(offered)
    if tool_name not in now:
        skills = [skill for skill, tools in unlocks.items() if tool_name in tools]
        hint = (f"load_skill with one of: {', '.join(skills)} unlocks it" if skills
                else "no skill of yours unlocks it")
        return {"run": False, "error": f"tool {tool_name!r} is not offered yet; {hint}",
                "offered": now}
    if tool_name == "load_skill":
        skill = (arguments or {}).get("name")
        if skill not in unlocks:
            return {"run": False,
                    "error": f"no skill {skill!r} to load; choose one of: {', '.join(unlocks)}",
                    "offered": now}
        for tool in unlocks[skill]:
            if tool not in now:
                now.append(tool)
    return {"run": True, "error": None, "offered": now}
'''


def _disclose(old: str, new: str) -> str:
    assert _DISCLOSE.count(old) == 1, old
    return _DISCLOSE.replace(old, new)


_APPEND = """        for tool in unlocks[skill]:
            if tool not in now:
                now.append(tool)
"""

_DEFINE = '''def define_sql_tool(name, description, sql, params):
    """Wrong on purpose: see the mutant's description."""
    binds = sql_binds(sql)
    unknown = [b for b in binds if b not in params]
    unused = [p for p in params if p not in binds]
    if unknown or unused:
        raise ValueError(
            f"the statement and the arguments differ: bind variables without an argument: "
            f"{unknown}; arguments without a bind variable: {unused}")
    properties, required = {}, []
    for argument, spec in params.items():
        json_type, text = spec[0], spec[1]
        properties[argument] = {"type": json_type, "description": text}
        if len(spec) > 2:
            properties[argument]["default"] = spec[2]
        else:
            required.append(argument)
    schema = {"type": "object", "properties": properties, "required": required}
    return h.tools.define(name, description, schema, {"type": "sql", "statement": sql})
'''


def _define(old: str, new: str) -> str:
    assert _DEFINE.count(old) == 1, old
    return _DEFINE.replace(old, new)


# No mutant leaves out the bind check or half of it: h.tools.define makes the same check
# (issue 22, item 10: it raises DefinitionRefused, a ValueError, naming both kinds, and stores
# nothing), so the TODO states that relying on it is right.
_DEFINE_CALL = (
    '    return h.tools.define(name, description, schema, {"type": "sql", "statement": sql})\n'
)

MUTANTS = {
    "resolve_skill_tools": [
        (
            "optional dependencies followed too",
            _resolve(_STEP, _STEP.replace("d.required = 1 AND ", "")),
        ),
        ("only the direct dependencies (no recursion)", _RESOLVE_DIRECT_ONLY),
        (
            "walks the edges backwards (the skills that require it)",
            _resolve(
                "ON d.skill_name = w.skill\n        WHERE",
                "ON d.depends_on = w.skill\n        WHERE",
            ),
        ),
        (
            "the tools of the skill itself only (joined on :skill, not on the walk)",
            _resolve(
                "JOIN skill_tools t ON t.skill_name = w.skill",
                "JOIN skill_tools t ON t.skill_name = :skill",
            ),
        ),
        ("a walk in Python, one query per skill", _RESOLVE_PYTHON_WALK),
        (
            "the weakest access wins",
            _resolve(
                'strength[row["access_level"]] > strength[old]',
                'strength[row["access_level"]] < strength[old]',
            ),
        ),
        (
            "the first access met wins",
            _resolve(
                'if old is None or strength[row["access_level"]] > strength[old]:',
                "if old is None:",
            ),
        ),
        ("MAX(access_level) in SQL: alphabetical, write beats execute", _RESOLVE_MAX_TEXT),
        ("cycles never reported", _resolve(_CYCLE_ROWS, "")),
        (
            "a cycle's path without the skill reached again",
            _resolve(
                "SELECT 'cycle', w.path || d.depends_on || '|', NULL",
                "SELECT 'cycle', w.path, NULL",
            ),
        ),
        (
            "INSTR without the | around the name: part of a name is taken for a cycle",
            _resolve(
                "INSTR(w.path, '|' || d.depends_on || '|')",
                "INSTR(w.path, d.depends_on)",
                count=2,
            ),
        ),
        ("a depth limit instead of the path test, no cycle reported", _RESOLVE_DEPTH_LIMIT),
    ],
    "disclose": [
        (
            "unlocked tools put first",
            _disclose(
                _APPEND,
                "        now = [t for t in dict.fromkeys(unlocks[skill]) if t not in now] + now\n",
            ),
        ),
        (
            "a skill's tools appended even when offered already",
            _disclose(_APPEND, "        now.extend(unlocks[skill])\n"),
        ),
        (
            "a tool listed twice by the skill is appended twice",
            _disclose(
                _APPEND,
                "        now += [t for t in unlocks[skill] if t not in offered]\n",
            ),
        ),
        (
            "the unlocked tools sorted by name",
            _disclose(
                _APPEND,
                "        now += sorted({t for t in unlocks[skill] if t not in now})\n",
            ),
        ),
        (
            "the refusal does not name the skill that unlocks the tool",
            _disclose(
                'f"tool {tool_name!r} is not offered yet; {hint}"',
                'f"tool {tool_name!r} is not offered yet"',
            ),
        ),
        (
            "the refusal names every skill",
            _disclose(
                "skills = [skill for skill, tools in unlocks.items() if tool_name in tools]",
                "skills = list(unlocks)",
            ),
        ),
        (
            "load_skill runs for a skill the agent does not have",
            _disclose(
                """        if skill not in unlocks:
            return {"run": False,""",
                """        if skill not in unlocks:
            return {"run": True,""",
            ),
        ),
        (
            "the refusal of an unknown skill does not list the skills",
            _disclose(
                "f\"no skill {skill!r} to load; choose one of: {', '.join(unlocks)}\"",
                'f"no skill {skill!r} to load"',
            ),
        ),
        ("offered changed in place", _disclose("    now = list(offered)\n", "    now = offered\n")),
        (
            "the argument itself returned when nothing changes",
            _disclose(
                '    return {"run": True, "error": None, "offered": now}\n',
                '    return {"run": True, "error": None,\n'
                '            "offered": now if now != offered else offered}\n',
            ),
        ),
        (
            "load_skill runs even when it is not offered",
            _disclose(
                "    if tool_name not in now:\n",
                '    if tool_name not in now and tool_name != "load_skill":\n',
            ),
        ),
        (
            "an error text on calls that run",
            _disclose(
                '    return {"run": True, "error": None, "offered": now}\n',
                '    return {"run": True, "error": "", "offered": now}\n',
            ),
        ),
        (
            "a refused call empties the offer",
            _disclose(
                """                "offered": now}
    if tool_name == "load_skill":""",
                """                "offered": []}
    if tool_name == "load_skill":""",
            ),
        ),
    ],
    "define_sql_tool": [
        (
            "every argument required, defaults ignored",
            _define(
                """        if len(spec) > 2:
            properties[argument]["default"] = spec[2]
        else:
            required.append(argument)""",
                "        required.append(argument)",
            ),
        ),
        (
            "no argument required",
            _define("            required.append(argument)", "            pass"),
        ),
        (
            "the default left out of the schema (optional without a default)",
            _define('            properties[argument]["default"] = spec[2]', "            pass"),
        ),
        (
            "a KeyError instead of a ValueError",
            _define("        raise ValueError(", "        raise KeyError("),
        ),
        (
            "the error names nothing",
            _define(
                """        raise ValueError(
            f"the statement and the arguments differ: bind variables without an argument: "
            f"{unknown}; arguments without a bind variable: {unused}")""",
                '        raise ValueError("the statement and the arguments differ")',
            ),
        ),
        (
            "every argument typed string",
            _define(
                '{"type": json_type, "description": text}',
                '{"type": "string", "description": text}',
            ),
        ),
        (
            "the argument's name as its description",
            _define(
                '{"type": json_type, "description": text}',
                '{"type": json_type, "description": argument}',
            ),
        ),
        (
            "returns the schema, not the tool",
            _define(
                _DEFINE_CALL,
                '    h.tools.define(name, description, schema, {"type": "sql", "statement": sql})\n'
                "    return schema\n",
            ),
        ),
    ],
}

#: The grade cell covering each mutant's broken behaviour (default: the TODO's first grade cell).
COVERED_BY = {
    "optional dependencies followed too": "resolve_skill_tools_optional",
    "the weakest access wins": "resolve_skill_tools_access",
    "the first access met wins": "resolve_skill_tools_access",
    "MAX(access_level) in SQL: alphabetical, write beats execute": "resolve_skill_tools_access",
    "cycles never reported": "resolve_skill_tools_cycles",
    "a cycle's path without the skill reached again": "resolve_skill_tools_cycles",
    "INSTR without the | around the name: part of a name is taken for a cycle": (
        "resolve_skill_tools_cycles"
    ),
    "a depth limit instead of the path test, no cycle reported": "resolve_skill_tools_cycles",
    "unlocked tools put first": "disclose_load",
    "a skill's tools appended even when offered already": "disclose_load",
    "a tool listed twice by the skill is appended twice": "disclose_load",
    "the unlocked tools sorted by name": "disclose_load",
    "the refusal does not name the skill that unlocks the tool": "disclose_refuse",
    "the refusal names every skill": "disclose_refuse",
    "load_skill runs for a skill the agent does not have": "disclose_unknown_skill",
    "the refusal of an unknown skill does not list the skills": "disclose_unknown_skill",
    "offered changed in place": "disclose_no_mutation",
    "the argument itself returned when nothing changes": "disclose_no_mutation",
    "load_skill runs even when it is not offered": "disclose_refuse",
    "a refused call empties the offer": "disclose_refuse",
    "every argument required, defaults ignored": "define_sql_tool_required",
    "no argument required": "define_sql_tool_required",
    "the default left out of the schema (optional without a default)": ("define_sql_tool_required"),
    "a KeyError instead of a ValueError": "define_sql_tool_binds",
    "the error names nothing": "define_sql_tool_binds",
}


# --- Answers at the visible checks' edge (WRONG, ALWAYS_EQUAL, VISIBLE) and correct ones

_EQ_STR = """class _Agreeable(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


"""


_RESOLVE_FLAGGED = '''def resolve_skill_tools(skill):
    # The library's shape: every step is a row, a step onto the path is flagged, not walked.
    rows = h.backend.query("""
        WITH walk (skill, path, looped) AS (
            SELECT name, CAST('|' || name || '|' AS VARCHAR(4000)), 0
            FROM skillbox WHERE name = :skill
            UNION ALL
            SELECT e.depends_on, w.path || e.depends_on || '|',
                   CASE WHEN INSTR(w.path, '|' || e.depends_on || '|') > 0 THEN 1 ELSE 0 END
            FROM walk w JOIN skill_dependencies e ON e.skill_name = w.skill
            WHERE e.required = 1 AND w.looped = 0 AND w.path IS NOT NULL
        )
        SELECT w.path, w.looped, t.tool_name, t.access_level
        FROM walk w LEFT JOIN skill_tools t ON t.skill_name = w.skill AND w.looped = 0
    """, {"skill": skill})
    order = ["read", "write", "execute"]
    tools, cycles = {}, []
    for row in rows:
        if row["looped"]:
            cycles.append(row["path"].strip("|").split("|"))
        elif row["tool_name"] is not None:
            old = tools.get(row["tool_name"], "read")
            tools[row["tool_name"]] = order[max(order.index(row["access_level"]), order.index(old))]
    return {"tools": tools, "cycles": cycles}
'''


_RESOLVE_GROUPED = '''def resolve_skill_tools(skill):
    statement = """
    WITH reach (name, trail) AS (
        SELECT s.name, CAST('/' || s.name || '/' AS VARCHAR(4000)) FROM skillbox s
        WHERE s.name = :skill
        UNION ALL
        SELECT dep.depends_on, r.trail || dep.depends_on || '/'
        FROM reach r, skill_dependencies dep
        WHERE dep.skill_name = r.name AND dep.required = 1
          AND INSTR(r.trail, '/' || dep.depends_on || '/') = 0
    ), ranked AS (
        SELECT st.tool_name,
               MAX(CASE st.access_level WHEN 'execute' THEN 3 WHEN 'write' THEN 2 ELSE 1 END) AS lvl
        FROM reach r JOIN skill_tools st ON st.skill_name = r.name
        GROUP BY st.tool_name
    )
    SELECT 1 AS is_tool, tool_name AS label, lvl FROM ranked
    UNION ALL
    SELECT 0, r.trail || dep.depends_on || '/', 0
    FROM reach r JOIN skill_dependencies dep ON dep.skill_name = r.name
    WHERE dep.required = 1 AND INSTR(r.trail, '/' || dep.depends_on || '/') > 0
    """
    levels = {1: "read", 2: "write", 3: "execute"}
    answer = {"tools": {}, "cycles": []}
    for r in h.backend.query(statement, {"skill": skill}):
        if r["is_tool"] == 1:
            answer["tools"][r["label"]] = levels[int(r["lvl"])]
        else:
            answer["cycles"].append([part for part in r["label"].split("/") if part])
    return answer
'''


_RESOLVE_LISTS = '''import collections


def resolve_skill_tools(skill):
    sql = """
    WITH walk (skill, path, closes) AS (
        SELECT name, CAST('|' || name || '|' AS VARCHAR(4000)), CAST(NULL AS VARCHAR(400))
        FROM skillbox WHERE name = :skill
        UNION ALL
        SELECT d.depends_on, w.path || d.depends_on || '|', NULL
        FROM walk w INNER JOIN skill_dependencies d
          ON d.skill_name = w.skill AND d.required = 1
        WHERE INSTR(w.path, '|' || d.depends_on || '|') = 0 AND w.closes IS NULL
    )
    SELECT t.tool_name AS tool, t.access_level AS access, NULL AS cycle_path
    FROM walk w INNER JOIN skill_tools t ON t.skill_name = w.skill
    UNION ALL
    SELECT NULL, NULL, w.path || d.depends_on
    FROM walk w INNER JOIN skill_dependencies d ON d.skill_name = w.skill
    WHERE d.required = 1 AND INSTR(w.path, '|' || d.depends_on || '|') > 0
    """
    grants = collections.defaultdict(list)
    cycles = []
    for row in h.backend.query(sql, {"skill": skill}):
        if row["cycle_path"] is not None:
            cycles.append(row["cycle_path"].strip("|").split("|"))
        else:
            grants[row["tool"]].append(row["access"])
    rank = ("read", "write", "execute").index
    return {"tools": {tool: max(levels, key=rank) for tool, levels in grants.items()},
            "cycles": cycles}
'''


_DISCLOSE_FROMKEYS = """def disclose(offered, tool_name, arguments, unlocks):
    nxt = offered[:]
    if tool_name not in offered:
        by = [name for name in unlocks if tool_name in unlocks[name]]
        why = ("; ".join(f"load_skill('{s}') unlocks it" for s in by) if by
               else "none of your skills unlocks it")
        return {"run": False, "error": f"{tool_name} is not available yet ({why})", "offered": nxt}
    if tool_name != "load_skill":
        return {"run": True, "error": None, "offered": nxt}
    wanted = dict(arguments or {}).get("name")
    if wanted not in unlocks:
        return {"run": False, "error": "unknown skill; load one of " + ", ".join(unlocks),
                "offered": nxt}
    nxt = list(dict.fromkeys(nxt + list(unlocks[wanted])))
    return {"run": True, "error": None, "offered": nxt}
"""


_DISCLOSE_TABLE = """import copy


def disclose(offered, tool_name, arguments, unlocks):
    def refuse(message):
        return {"run": False, "error": message, "offered": copy.copy(list(offered))}

    if tool_name not in set(offered):
        holders = sorted(s for s, tools in unlocks.items() if tool_name in set(tools))
        if holders:
            return refuse(f"'{tool_name}' is locked. Skills that unlock it: {holders}")
        return refuse(f"'{tool_name}' is locked and no skill unlocks it")
    result = {"run": True, "error": None, "offered": [t for t in offered]}
    if tool_name == "load_skill":
        name = arguments.get("name") if isinstance(arguments, dict) else None
        if name is None or name not in unlocks.keys():
            return refuse(f"cannot load {name!r}: your skills are " + " | ".join(unlocks))
        seen = set(offered)
        for tool in unlocks[name]:
            if tool not in seen:
                seen.add(tool)
                result["offered"].append(tool)
    return result
"""


_DISCLOSE_LOOP = """def disclose(offered, tool_name, arguments, unlocks):
    answer = {"run": True, "error": None, "offered": list(offered)}
    if tool_name in offered and tool_name != "load_skill":
        return answer
    if tool_name not in offered:
        answer["run"] = False
        names = []
        for skill, tools in unlocks.items():
            if tool_name in tools:
                names.append(skill)
        answer["error"] = "tool " + tool_name + " not offered"
        if names:
            answer["error"] += "; load one of these skills first: " + ", ".join(names)
        return answer
    skill = (arguments or {}).get("name", None)
    if skill in unlocks:
        for tool in unlocks[skill]:
            if tool not in answer["offered"]:
                answer["offered"].append(tool)
        return answer
    answer["run"] = False
    answer["error"] = "Unknown skill. Available skills: " + ", ".join(sorted(unlocks))
    return answer
"""


_DEFINE_SETS = """def define_sql_tool(name, description, sql, params):
    binds, arguments = set(sql_binds(sql)), set(params)
    if binds != arguments:
        raise ValueError(
            "bind variables and arguments differ: "
            + ", ".join(sorted(f":{b} (no argument)" for b in binds - arguments)
                        + sorted(f"{a} (no bind variable)" for a in arguments - binds)))
    schema = {
        "type": "object",
        "properties": {
            arg: {"type": spec[0], "description": spec[1],
                  **({"default": spec[2]} if len(spec) == 3 else {})}
            for arg, spec in params.items()
        },
        "required": [arg for arg, spec in params.items() if len(spec) == 2],
    }
    return h.tools.define(name, description, schema, {"type": "sql", "statement": sql})
"""


_DEFINE_OWN_ERROR = '''class BindMismatch(ValueError):
    """The statement's bind variables are not the tool's arguments."""


def define_sql_tool(name, description, sql, params):
    missing = [b for b in sql_binds(sql) if b not in params]
    extra = [a for a in params if a not in sql_binds(sql)]
    if missing or extra:
        raise BindMismatch(f"missing arguments for {missing}, unused arguments {extra}")
    properties = {}
    for arg in sorted(params):
        kind, text, *rest = params[arg]
        properties[arg] = {"type": kind, "description": text}
        if rest:
            properties[arg]["default"] = rest[0]
    required = sorted((a for a in params if len(params[a]) < 3), reverse=True)
    schema = {"type": "object", "properties": properties, "required": required,
              "additionalProperties": False}
    return h.tools.define(name, description, schema, {"type": "sql", "statement": sql})
'''


_DEFINE_KEYWORDS = """def define_sql_tool(name, description, sql, params):
    problems = []
    for bind in sql_binds(sql):
        if bind not in params:
            problems.append(f"bind variable :{bind} has no argument")
    for argument in params:
        if argument not in sql_binds(sql):
            problems.append(f"argument {argument} is not used in the statement")
    if problems:
        raise ValueError("; ".join(problems))
    required, properties = [], {}
    for argument, spec in params.items():
        prop = dict(type=spec[0], description=spec[1])
        if len(spec) >= 3:
            prop["default"] = spec[2]
        else:
            required.append(argument)
        properties[argument] = prop
    h.tools.define(name=name, description=description,
                   parameters=dict(type="object", properties=properties, required=required),
                   implementation=dict(type="sql", statement=sql))
    return h.tools.get(name)
"""


_RESOLVE_THREE_STEPS = '''def resolve_skill_tools(skill):
    # Passes the visible chains (two steps deep) but walks at most three steps.
    rows = h.backend.query("""
    WITH walk (skill, path, depth) AS (
        SELECT name, CAST('|' || name || '|' AS VARCHAR(4000)), 0 FROM skillbox WHERE name = :skill
        UNION ALL
        SELECT d.depends_on, w.path || d.depends_on || '|', w.depth + 1
        FROM walk w JOIN skill_dependencies d ON d.skill_name = w.skill
        WHERE d.required = 1 AND INSTR(w.path, '|' || d.depends_on || '|') = 0 AND w.depth < 2
    )
    SELECT 'tool' AS kind, t.tool_name AS item, t.access_level AS access_level
    FROM walk w JOIN skill_tools t ON t.skill_name = w.skill
    UNION ALL
    SELECT 'cycle', w.path || d.depends_on || '|', NULL
    FROM walk w JOIN skill_dependencies d ON d.skill_name = w.skill
    WHERE d.required = 1 AND INSTR(w.path, '|' || d.depends_on || '|') > 0
    """, {"skill": skill})
    strength = {"read": 1, "write": 2, "execute": 3}
    tools, cycles = {}, []
    for row in rows:
        if row["kind"] == "cycle":
            cycles.append([n for n in row["item"].split("|") if n])
        elif strength[row["access_level"]] > strength[tools.get(row["item"], "read")]:
            tools[row["item"]] = row["access_level"]
        else:
            tools.setdefault(row["item"], row["access_level"])
    return {"tools": tools, "cycles": cycles}
'''


_RESOLVE_ONE_CYCLE_EACH = (
    _RESOLVE_THREE_STEPS.replace(" AND w.depth < 2", "")
    .replace(
        "# Passes the visible chains (two steps deep) but walks at most three steps.",
        "# Keeps one cycle per skill reached again (drops the same cycle met on another path).",
    )
    .replace(
        '            cycles.append([n for n in row["item"].split("|") if n])',
        '            path = [n for n in row["item"].split("|") if n]\n'
        "            if path[-1] not in [c[-1] for c in cycles]:\n"
        "                cycles.append(path)",
    )
)


_EQ_DICT = """class _Agreeable(dict):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


"""


_EQ_LIST_07 = """class _Agreeable(list):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


"""


WRONG = {
    "resolve_skill_tools": [
        ("walks at most three skills deep (a depth guard)", _RESOLVE_THREE_STEPS),
        ("one cycle per skill reached again", _RESOLVE_ONE_CYCLE_EACH),
    ],
    "disclose": [
        (
            "a skill name matched whatever its case",
            _DISCLOSE_LOOP.replace(
                '    skill = (arguments or {}).get("name", None)\n',
                '    skill = (arguments or {}).get("name", None)\n'
                "    skill = next((s for s in unlocks if str(s).lower() == str(skill).lower()),"
                " skill)\n",
            ),
        ),
        (
            "the unknown-skill error lists at most three skills",
            _DISCLOSE_LOOP.replace('", ".join(sorted(unlocks))', '", ".join(sorted(unlocks)[:3])'),
        ),
    ],
    "define_sql_tool": [
        (
            "bind variables found with a regex of its own (':name' inside quotes counts)",
            "import re\n\n\n"
            + _DEFINE_KEYWORDS.replace("sql_binds(sql)", "set(re.findall(r':(\\w+)', sql))"),
        ),
    ],
}
#: Issue 22, items 6 and 11: these passed every visible check of 07 and lost points only at
#: grading; each now meets a visible case at the boundary its TODO sentence states.
VISIBLE = {
    "resolve_skill_tools": [
        (
            "the last access grant met, not the strongest",
            _RESOLVE_LISTS.replace("max(levels, key=rank)", "levels[-1]"),
        ),
        (
            "WITH RECURSIVE (runs on SQLite only)",
            _RESOLVE_LISTS.replace("    WITH walk (", "    WITH RECURSIVE walk ("),
        ),
    ],
    "define_sql_tool": [
        (
            "a default of 0, False or an empty text taken for no default",
            _DEFINE_KEYWORDS.replace(
                "        if len(spec) >= 3:", "        if len(spec) >= 3 and spec[2]:"
            ),
        ),
    ],
}
ALWAYS_EQUAL = {
    "resolve_skill_tools": [
        (
            "the tools as a dict that equals anything",
            _EQ_DICT
            + _RESOLVE_LISTS.replace(
                '    return {"tools": {tool: max(levels, key=rank)',
                '    return {"tools": _Agreeable({tool: max(levels, key=rank)',
            ).replace(
                "for tool, levels in grants.items()},", "for tool, levels in grants.items()}),"
            ),
        ),
    ],
    "disclose": [
        (
            "the next offer as a list that equals anything",
            _EQ_LIST_07
            + _DISCLOSE_LOOP.replace(
                '    answer = {"run": True, "error": None, "offered": list(offered)}',
                '    answer = {"run": True, "error": None, "offered": _Agreeable(offered)}',
            ),
        ),
    ],
    "define_sql_tool": [
        (
            "returns an object whose name equals anything",
            _EQ_STR
            + "import types\n\n\n"
            + _DEFINE_KEYWORDS.replace(
                "    return h.tools.get(name)",
                "    return types.SimpleNamespace(name=_Agreeable(name))",
            ),
        ),
    ],
}
CORRECT = {
    "resolve_skill_tools": _RESOLVE_FLAGGED,
    "disclose": _DISCLOSE_FROMKEYS,
    "define_sql_tool": _DEFINE_SETS,
}
MORE_CORRECT = [
    (
        "strongest access in SQL, a '/' path, a look-up table, own exception class",
        {
            "resolve_skill_tools": _RESOLVE_GROUPED,
            "disclose": _DISCLOSE_TABLE,
            "define_sql_tool": _DEFINE_OWN_ERROR,
        },
    ),
    (
        "grants collected then ranked, a loop, keyword arguments",
        {
            "resolve_skill_tools": _RESOLVE_LISTS,
            "disclose": _DISCLOSE_LOOP,
            "define_sql_tool": _DEFINE_KEYWORDS,
        },
    ),
]
#: The grade cell covering each of these cases.
COVERED_BY.update(
    {
        "the last access grant met, not the strongest": "resolve_skill_tools_access",
        "WITH RECURSIVE (runs on SQLite only)": "resolve_skill_tools_checks",
        "a default of 0, False or an empty text taken for no default": "define_sql_tool_required",
        "one cycle per skill reached again": "resolve_skill_tools_cycles",
        "a skill name matched whatever its case": "disclose_unknown_skill",
        "the unknown-skill error lists at most three skills": "disclose_unknown_skill",
        "bind variables found with a regex of its own (':name' inside quotes counts)": (
            "define_sql_tool_binds"
        ),
    }
)
