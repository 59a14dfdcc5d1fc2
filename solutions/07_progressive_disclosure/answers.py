"""Plausible wrong implementations of the TODOs in solutions/07_progressive_disclosure.ipynb.

Each entry replaces the whole source of the solution cell with that ``grade_id``; the TODO loses
marks and the grade cell covering the broken behaviour (COVERED_BY, else the TODO's first grade
cell) scores 0, while the untouched solution passes.
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
