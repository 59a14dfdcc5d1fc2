"""The core tools: SQL, knowledge, memory, JavaScript, skills, scratchpad, catalog, offload.

Plain functions: importing this module registers nothing. Every harness registers them through
:func:`tools` (with their categories and access levels). The always-on set (sent on every
turn) is :data:`agent_harness.tools.registry.ALWAYS_ON`.
"""

from __future__ import annotations

import functools
from typing import Annotated, Literal

from pydantic import Field, WithJsonSchema

from agent_harness.backends.base import BackendError
from agent_harness.foundation.js_sandbox import MAX_CODE_CHARS, run_js
from agent_harness.parts.scratchpad import MAX_FILE_CHARS
from agent_harness.parts.skills import SkillNotFound
from agent_harness.tools.context import current, current_agent
from agent_harness.tools.readonly_sql import sql_result
from agent_harness.tools.tool import Tool, ToolError

__all__ = [
    "tools",
    "run_sql",
    "search_knowledge",
    "remember",
    "exec_js",
    "load_skill",
    "list_skills",
    "scratch_write",
    "scratch_read",
    "scratch_append",
    "scratch_list",
    "scan_database",
    "fetch_tool_output",
]

MAX_SQL_ROWS = 1000
SNIPPET_CHARS = 500
#: The longest SQL statement run_sql takes.
MAX_SQL_CHARS = 20_000
#: The longest fact remember stores.
MAX_FACT_CHARS = 10_000
#: A scratch file's name and content, as the scratchpad takes them.
ScratchPath = Annotated[str, Field(max_length=200)]
ScratchText = Annotated[str, Field(max_length=MAX_FILE_CHARS)]
#: A bind value of run_sql: a JSON scalar (a number covers integers too).
BindValue = Annotated[
    str | int | float | bool | None,
    WithJsonSchema({"type": ["string", "number", "boolean", "null"]}),
]


def run_sql(
    sql: Annotated[str, Field(max_length=MAX_SQL_CHARS)],
    max_rows: Annotated[int, Field(ge=1, le=MAX_SQL_ROWS)] = 50,
    binds: Annotated[dict[str, BindValue], Field(max_length=50)] | None = None,
) -> dict:
    """Run ONE read-only SELECT (or WITH ... SELECT) on supplychain.<table>: carriers, ports,
    vessels, voyages, vessel_positions, containers, cargo_items.

    Args:
        sql: One SELECT with explicit columns, joined on the documented keys.
        max_rows: Most rows to return.
        binds: Values for :name placeholders, e.g. {"code": "NLRTM"}.
    """
    try:
        result = current().backend.readonly_query(
            sql, binds=binds or {}, max_rows=max_rows, timeout_s=5.0
        )
    except BackendError as e:
        raise ToolError(str(e)) from e
    return sql_result(result)


def search_knowledge(
    query: str,
    k: Annotated[int, Field(ge=1, le=20)] = 5,
    kinds: Annotated[list[str], Field(max_length=20)] | None = None,
    mode: Literal["hybrid", "vector", "keyword"] = "hybrid",
) -> list[dict]:
    """Search long-term memory (table and column facts, notes, past episodes) for what the
    data means before writing SQL.

    Args:
        query: What to look for, in plain words.
        k: How many results.
        kinds: Only these kinds, e.g. ["table", "column"].
        mode: hybrid (meaning + words), vector or keyword.
    """
    memory = current().memory
    if kinds:
        hits = memory.search(query, k=k, mode=mode, kinds=kinds)
    else:
        # stored outputs have their own tool; retired memories describe dropped tables
        hits = memory.search(query, k=k, mode=mode, exclude_kinds=["tool_output", "retired"])
    return [
        {
            "id": m.id,
            "kind": m.kind,
            "subject": m.subject,
            "content": m.content[:SNIPPET_CHARS]
            + ("..." if len(m.content) > SNIPPET_CHARS else ""),
            "score": round(m.score, 6) if m.score is not None else None,
        }
        for m in hits
    ]


def remember(
    content: Annotated[str, Field(max_length=MAX_FACT_CHARS)],
    kind: str = "note",
    subject: str | None = None,
) -> dict:
    """Store a fact in long-term memory so later turns can find it with search_knowledge.

    Args:
        content: The fact, in one or two self-contained sentences.
        kind: Its kind: note (default), preference, finding.
        subject: What it is about, e.g. a table, a vessel or a port.
    """
    try:
        memory_id = current().memory.add(content, kind=kind, subject=subject)
    except ValueError as e:
        raise ToolError(str(e)) from e
    return {"id": memory_id, "stored": True}


def exec_js(
    code: Annotated[str, Field(max_length=MAX_CODE_CHARS)],
    timeout_ms: Annotated[int, Field(ge=10, le=10_000)] = 1000,
) -> dict:
    """Run JavaScript in a sandbox (no files, no network) for calculations.

    The value of the last expression is returned as "result"; console.log lines as "console".

    Args:
        code: JavaScript source, e.g. "const xs=[3,1,2]; xs.sort((a,b)=>a-b)[1]".
        timeout_ms: Time limit in milliseconds.
    """
    # Oracle runs it in the database (MLE, a PURE context); None means: the V8 sandbox here.
    in_database = current().backend.run_js(code, timeout_ms)
    outcome = in_database if in_database is not None else run_js(code, timeout_ms)
    if "error" in outcome:  # a throw, a syntax error, the time or memory limit: the code's
        console = outcome.get("console") or []
        printed = f" (console before it: {' | '.join(console)[:300]})" if console else ""
        raise ToolError(f"the JavaScript failed: {outcome['error']}{printed}")
    return outcome


def load_skill(name: str) -> str:
    """Load a skill by its name from the manifest: its playbook (steps, SQL examples).

    Args:
        name: The skill's name, e.g. "delayed-voyage-triage".
    """
    harness = current()
    agent = current_agent()
    mine = harness.agents.get(agent).skill_names() if agent is not None else None
    try:
        if mine is not None and harness.skills.find(name) not in mine:
            # an agent may load only the skills it was given
            raise ToolError(
                f"skill {name!r} is not one of agent {agent!r}'s skills; load one of the"
                f" manifest: {', '.join(mine)}"
            )
        return harness.skills.load(name)
    except SkillNotFound as e:
        if mine is not None:  # list_skills may not be offered: name the agent's own skills
            raise ToolError(
                f"no skill named {str(name)[:60]!r}; agent {agent!r} can load: {', '.join(mine)}"
            ) from e
        raise ToolError(str(e)) from e


def list_skills(query: str | None = None, k: Annotated[int, Field(ge=1, le=50)] = 10) -> list[dict]:
    """List available skills (playbooks): the ones closest to a topic, or all of them.

    Args:
        query: A topic to rank skills by; omit to list all by name.
        k: How many skills to list.
    """
    return current().skills.list(query, k=k)


def _scratch_path(path: str) -> str:
    path = str(path).strip().lstrip("/")
    if not path or len(path) > 200 or "\x00" in path or ".." in path.split("/"):
        raise ToolError("path must be 1-200 characters, like 'notes/delays.md', without '..'")
    return path


def scratch_write(path: ScratchPath, content: ScratchText) -> dict:
    """Write (replace) a file in the agent's scratchpad, to keep notes between steps.

    Args:
        path: File name, e.g. "notes/delays.md".
        content: The whole new content.
    """
    scratch = current().scratchpad
    return {"path": _scratch_path(path), "size": scratch.write(_scratch_path(path), content)}


def scratch_read(path: ScratchPath) -> dict:
    """Read a file from the agent's scratchpad.

    Args:
        path: File name, e.g. "notes/delays.md".
    """
    content = current().scratchpad.read(_scratch_path(path))
    if content is None:
        raise ToolError(f"no scratch file {path!r}; scratch_list shows the files")
    return {"path": _scratch_path(path), "content": content}


def scratch_append(path: ScratchPath, content: ScratchText) -> dict:
    """Append text to a scratchpad file (creating it), atomically.

    Args:
        path: File name, e.g. "notes/delays.md".
        content: Text to add at the end.
    """
    scratch = current().scratchpad
    return {"path": _scratch_path(path), "size": scratch.append(_scratch_path(path), content)}


def scratch_list() -> list[dict]:
    """List the files in the agent's scratchpad with their sizes."""
    return current().scratchpad.list()


def scan_database(owner: str = "SUPPLYCHAIN") -> dict:
    """Scan a schema's tables, columns and foreign keys into memory (idempotent).

    Args:
        owner: The schema to scan.
    """
    try:
        return current().catalog.scan(owner)
    except ValueError as e:
        raise ToolError(str(e)) from e


def fetch_tool_output(
    tool_call_id: str, offset: Annotated[int, Field(ge=0, le=10**9)] | None = None
) -> dict:
    """Fetch the WHOLE output of an earlier tool call that was shown cut short.

    Args:
        tool_call_id: The id given in the "...[+N chars. full output: ...]" marker.
        offset: Read in pages of 100,000 characters from here (each answer gives the
            next_offset); omit to get the whole output.
    """
    found = current().offload.fetch(tool_call_id, offset)
    if "error" in found:  # an id that names no stored output
        raise ToolError(found["error"])
    return found


@functools.cache
def tools() -> tuple[Tool, ...]:
    """The core tools, built once, for a harness to register (importing registers nothing)."""
    return (
        Tool.from_function(run_sql, category="core"),
        Tool.from_function(search_knowledge, category="knowledge"),
        Tool.from_function(remember, category="knowledge", access_level="write"),
        Tool.from_function(exec_js, category="core", access_level="execute"),
        Tool.from_function(load_skill, category="skills"),
        Tool.from_function(list_skills, category="skills"),
        Tool.from_function(scratch_write, category="scratchpad", access_level="write"),
        Tool.from_function(scratch_read, category="scratchpad"),
        Tool.from_function(scratch_append, category="scratchpad", access_level="write"),
        Tool.from_function(scratch_list, category="scratchpad"),
        Tool.from_function(scan_database, category="knowledge", access_level="write"),
        Tool.from_function(fetch_tool_output, category="core"),
    )
