"""Plausible wrong implementations of the TODOs in solutions/05_tool_output_offload.ipynb.

Each entry replaces the whole source of the solution cell with that ``grade_id``; the TODO's
grade cell covering the broken behaviour (``COVERED_BY``, default: the TODO's first grade
cell) must then score 0 while the untouched solution passes. The two TODOs are
graded independently (each check uses the library's ``h.offload`` for the other half), so a
wrong ``log_tool`` does not fail ``fetch_tool_output_checks`` and vice versa.
"""

_LOG_HEAD = '''def log_tool(thread_id, tool_call_id, tool_name, tool_args, tool_output):
    """Wrong on purpose: see the mutant's description."""
'''

_LOG_ARGS = """    args = tool_args if isinstance(tool_args, str) else json.dumps(
        tool_args, sort_keys=True
    )
"""


def _log(
    content="tool_output if tool_output else EMPTY_OUTPUT",
    kind="TOOL_OUTPUT_KIND",
    subject="tool_call_id",
    args="args",
    args_line=_LOG_ARGS,
    empty="not tool_output",
):
    return (
        _LOG_HEAD
        + args_line
        + f"""    return h.memory.add(
        {content},
        kind={kind},
        subject={subject},
        metadata={{"tool_name": tool_name, "tool_args": {args}, "chars": len(tool_output),
                  "empty": {empty}}},
        thread_id=thread_id,
    )
"""
    )


_FETCH_HEAD = '''def fetch_tool_output(tool_call_id):
    """Wrong on purpose: see the mutant's description."""
'''


def _fetch(
    find='{"kind": TOOL_OUTPUT_KIND, "subject": str(tool_call_id)}',
    missing='return {"error": f"no tool call with id {tool_call_id!r}"}',
    output='"" if memory.metadata.get("empty") else memory.content',
    args='memory.metadata.get("tool_args")',
):
    return (
        _FETCH_HEAD
        + f"""    found = h.memory.list(metadata_filter={find}, limit=1)
    if not found:
        {missing}
    memory = found[0]
    return {{
        "tool_name": memory.metadata.get("tool_name"),
        "tool_args": {args},
        "tool_output": {output},
    }}
"""
    )


MUTANTS = {
    "log_tool": [
        (
            "stores only the 600-character preview",
            _log(content="tool_output[:600] or EMPTY_OUTPUT"),
        ),
        (
            "stores the preview text the model saw (preview + marker)",
            _log(content="preview(tool_output, tool_call_id) or EMPTY_OUTPUT"),
        ),
        ("tool_args stored unencoded (a dict in metadata)", _log(args="tool_args", args_line="")),
        ("tool_args stored with str() (not JSON)", _log(args="str(tool_args)", args_line="")),
        (
            "JSON text arguments encoded a second time",
            _log(args="json.dumps(tool_args)", args_line=""),
        ),
        ("wrong kind: stored as a note", _log(kind='"note"')),
        ("keyed by the tool name instead of the tool call id", _log(subject="tool_name")),
        ("an empty output is not handled (memory.add refuses it)", _log(content="tool_output")),
        (
            "returns nothing instead of the memory id",
            _LOG_HEAD
            + _LOG_ARGS
            + """    h.memory.add(
        tool_output or EMPTY_OUTPUT, kind=TOOL_OUTPUT_KIND, subject=tool_call_id,
        metadata={"tool_name": tool_name, "tool_args": args, "chars": len(tool_output),
                  "empty": not tool_output},
        thread_id=thread_id,
    )
""",
        ),
    ],
    "fetch_tool_output": [
        (
            "cuts the fetched output to 600 characters again",
            _fetch(output='"" if memory.metadata.get("empty") else memory.content[:600]'),
        ),
        ("wrong error shape: returns None for an unknown id", _fetch(missing="return None")),
        ("wrong error message", _fetch(missing='return {"error": "not found"}')),
        (
            "raises KeyError for an unknown id",
            _fetch(missing="raise KeyError(tool_call_id)"),
        ),
        (
            "fetches by the wrong key: the newest tool output, whatever its id",
            _fetch(find='{"kind": TOOL_OUTPUT_KIND}'),
        ),
        (
            "looks at the subject only, not the kind",
            _fetch(find='{"subject": str(tool_call_id)}'),
        ),
        ("ignores the empty flag (returns the placeholder text)", _fetch(output="memory.content")),
        (
            "returns tool_args decoded to a dict",
            _fetch(args='json.loads(memory.metadata.get("tool_args") or "{}")'),
        ),
    ],
}

#: The grade cell covering each mutant's broken behaviour (default: the TODO's first one).
COVERED_BY = {
    "tool_args stored unencoded (a dict in metadata)": "log_tool_args",
    "tool_args stored with str() (not JSON)": "log_tool_args",
    "JSON text arguments encoded a second time": "log_tool_args",
    "an empty output is not handled (memory.add refuses it)": "log_tool_empty",
    "wrong error shape: returns None for an unknown id": "fetch_tool_output_missing",
    "wrong error message": "fetch_tool_output_missing",
    "raises KeyError for an unknown id": "fetch_tool_output_missing",
    "looks at the subject only, not the kind": "fetch_tool_output_missing",
    "ignores the empty flag (returns the placeholder text)": "fetch_tool_output_empty",
}
