"""Other answers to the TODOs of 05_tool_output_offload.ipynb (beside this file), for the tests.

Wrong ones: ``MUTANTS`` (each scores 0 on the grade cell of ``COVERED_BY``, default the TODO's
first), ``WRONG`` and ``ALWAYS_EQUAL`` (pass the visible checks; a value check must catch
them) and ``VISIBLE`` (once passed the visible checks; now fail them). Correct ones:
``CORRECT`` and ``MORE_CORRECT`` (each scores full marks). What each table holds and which test
reads it: docs/notebook-authoring.md, "A notebook's folder".

The two TODOs are graded independently (each check uses the library's ``h.offload`` for the
other half), so a wrong ``log_tool`` does not fail ``fetch_tool_output_checks`` and vice
versa.
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
    chars="len(tool_output)",
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
        metadata={{"tool_name": tool_name, "tool_args": {args}, "chars": {chars},
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


# --- Answers at the visible checks' edge (WRONG, ALWAYS_EQUAL, VISIBLE) and correct ones

_WRONG_ON_PURPOSE = '    """Wrong on purpose: see the mutant\'s description."""\n'


def _as_written(source: str) -> str:
    """A template above as the solution writes it (without the mutants' docstring)."""
    assert source.count(_WRONG_ON_PURPOSE) == 1
    return source.replace(_WRONG_ON_PURPOSE, "")


def _solution_log(
    content: str = "tool_output if tool_output else EMPTY_OUTPUT",
    chars: str = "len(tool_output)",
    wrap: str = "",
    head: str = "",
) -> str:
    """log_tool as the solution writes it, some parts replaced.

    Args:
        content: The expression of the stored content.
        chars: The expression of metadata "chars".
        wrap: A callable name wrapped around the returned id ("" for none).
        head: Code put before the function (a helper class).
    """
    one_line = _LOG_ARGS.replace(
        "(\n        tool_args, sort_keys=True\n    )", "(tool_args, sort_keys=True)"
    )
    source = _as_written(_log(content=content, chars=chars, args_line=one_line))
    source = source.replace("    return h.memory.add(", f"    return {wrap}(h.memory.add(")
    before, _, after = source.rpartition("\n    )\n")
    return head + before + "\n    ))\n" + after


def _solution_fetch(
    find: str = '{"kind": TOOL_OUTPUT_KIND, "subject": str(tool_call_id)}',
    error: str = 'f"no tool call with id {tool_call_id!r}"',
    output: str = '"" if memory.metadata.get("empty") else memory.content',
    head: str = "",
) -> str:
    """fetch_tool_output as the solution writes it, some parts replaced.

    Args:
        find: The metadata_filter of the lookup.
        error: The expression of the error text for an unknown id.
        output: The expression of the returned tool_output.
        head: Code put before the function (a helper class).
    """
    missing = "return {" + f'"error": {error}' + "}"
    return head + _as_written(_fetch(find=find, missing=missing, output=output))


_EQ_STR = """class _Agreeable(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


"""


_EQ_INT = """class _Agreeable(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


"""


_LOG_STEPS = """def log_tool(thread_id, tool_call_id, tool_name, tool_args, tool_output):
    if type(tool_args) is str:
        args_text = tool_args  # the model's raw arguments: keep them as they came
    else:
        args_text = json.dumps(tool_args, sort_keys=True, ensure_ascii=False)
    metadata = {}
    metadata["tool_name"] = tool_name
    metadata["tool_args"] = args_text
    metadata["chars"] = len(tool_output)
    metadata["empty"] = len(tool_output) == 0
    content = EMPTY_OUTPUT if metadata["empty"] else tool_output
    new_id = h.memory.add(content, thread_id=thread_id, metadata=metadata,
                          subject=tool_call_id, kind=TOOL_OUTPUT_KIND)
    return new_id
"""


_LOG_KWARGS = """def log_tool(thread_id, tool_call_id, tool_name, tool_args, tool_output):
    encode = (lambda a: a) if isinstance(tool_args, str) else (
        lambda a: json.dumps(a, sort_keys=True, separators=(",", ":")))
    return int(h.memory.add(**{
        "content": tool_output or EMPTY_OUTPUT,
        "kind": "tool_output",
        "subject": tool_call_id,
        "thread_id": thread_id,
        "metadata": dict(tool_name=tool_name, tool_args=encode(tool_args),
                         chars=len(tool_output), empty=tool_output == ""),
    }))
"""


_FETCH_LOOP = """def fetch_tool_output(tool_call_id):
    wanted = str(tool_call_id)
    for memory in h.memory.list(metadata_filter={"kind": TOOL_OUTPUT_KIND}, limit=100_000):
        if memory.subject != wanted:
            continue
        meta = memory.metadata
        output = "" if meta.get("empty") is True else memory.content
        return {"tool_name": meta["tool_name"], "tool_args": meta["tool_args"],
                "tool_output": output}
    return {"error": "no tool call with id " + repr(tool_call_id)}
"""


_FETCH_BY_SUBJECT = """def fetch_tool_output(tool_call_id):
    found = [m for m in h.memory.list(metadata_filter={"subject": tool_call_id}, limit=50)
             if m.kind == "tool_output"]
    if len(found) == 0:
        return dict(error="no tool call with id %r" % (tool_call_id,))
    newest = max(found, key=lambda m: m.id)
    return dict(
        tool_name=newest.metadata.get("tool_name"),
        tool_args=newest.metadata.get("tool_args"),
        tool_output=newest.content if not newest.metadata.get("empty") else "",
    )
"""


WRONG = {
    "log_tool": [
        (
            "strips whitespace from the output",
            _solution_log(content="tool_output.strip() or EMPTY_OUTPUT"),
        ),
        (
            "chars of the output without surrounding whitespace",
            _solution_log(chars="len(tool_output.strip())"),
        ),
    ],
    "fetch_tool_output": [
        (
            "the id quoted by hand, not with repr()",
            _solution_fetch(error="f\"no tool call with id '{tool_call_id}'\""),
        ),
        (
            "empty told by the placeholder text, not by metadata empty",
            _solution_fetch(output='"" if memory.content == EMPTY_OUTPUT else memory.content'),
        ),
    ],
}
#: Answers that passed the visible checks before issue 11 and now fail them (each behaviour
#: that is graded has a visible check of its own): grade_id -> [(label, source)].
VISIBLE = {
    "log_tool": [
        ("chars counts UTF-8 bytes", _solution_log(chars='len(tool_output.encode("utf-8"))')),
    ],
    "fetch_tool_output": [
        ("does not filter on kind", _solution_fetch(find='{"subject": str(tool_call_id)}')),
    ],
}
ALWAYS_EQUAL = {
    "log_tool": [
        ("the id as an int that equals anything", _solution_log(wrap="_Agreeable", head=_EQ_INT)),
    ],
    "fetch_tool_output": [
        (
            "the output cut to 600 characters and the error text, as strings that equal anything",
            _solution_fetch(
                error='_Agreeable("not found")',
                output="_Agreeable(memory.content[:600])",
                head=_EQ_STR,
            ),
        ),
    ],
}
CORRECT = {
    "log_tool": _solution_log(head="", content="tool_output or EMPTY_OUTPUT").replace(
        "json.dumps(tool_args, sort_keys=True)", "json.dumps(tool_args)"
    ),
    "fetch_tool_output": "def fetch_tool_output(tool_call_id):\n"
    "    return h.offload.fetch(tool_call_id)\n",
}
#: More correct answers, each run on its own: [(label, {solution grade_id: source})].
#: Each must score full marks (with CORRECT: several styles per TODO).
MORE_CORRECT = [
    (
        "metadata built step by step; a loop over the tool outputs",
        {"log_tool": _LOG_STEPS, "fetch_tool_output": _FETCH_LOOP},
    ),
    (
        "memory.add(**fields), compact JSON; Python-side kind filter, newest by id",
        {"log_tool": _LOG_KWARGS, "fetch_tool_output": _FETCH_BY_SUBJECT},
    ),
]
#: The grade cell covering each of these cases.
COVERED_BY.update(
    {
        "chars counts UTF-8 bytes": "log_tool_empty",
        "chars of the output without surrounding whitespace": "log_tool_empty",
        "does not filter on kind": "fetch_tool_output_missing",
        "the id quoted by hand, not with repr()": "fetch_tool_output_missing",
        "empty told by the placeholder text, not by metadata empty": "fetch_tool_output_empty",
    }
)
