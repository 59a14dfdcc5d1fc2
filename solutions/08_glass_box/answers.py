"""Plausible wrong implementations of the TODOs in solutions/08_glass_box.ipynb.

Each entry replaces the whole source of the solution cell with that ``grade_id``; the TODO loses
marks and the grade cell covering the broken behaviour (COVERED_BY, else the TODO's first grade
cell) scores 0, while the untouched solution passes.
"""

_TREE = '''def trail_tree(turn_id):
    """Wrong on purpose: see the mutant's description."""
    import json

    turns = h.backend.query(
        "SELECT turn_id, question, status, answer FROM agent_turns WHERE turn_id = :t",
        {"t": turn_id})
    if not turns:
        return None
    rows = h.backend.query(
        "SELECT id, parent_id, seq, kind, name, ok, detail FROM turn_events"
        " WHERE turn_id = :t ORDER BY seq, id", {"t": turn_id})
    nodes = {
        row["id"]: {"id": row["id"], "kind": row["kind"], "name": row["name"],
                    "ok": None if row["ok"] is None else bool(row["ok"]),
                    "detail": json.loads(row["detail"] or "{}"), "children": []}
        for row in rows
    }
    roots = []
    for row in rows:
        parent = nodes.get(row["parent_id"]) if row["parent_id"] is not None else None
        (parent["children"] if parent else roots).append(nodes[row["id"]])
    turn = turns[0]
    return {"turn_id": turn["turn_id"], "question": turn["question"], "status": turn["status"],
            "answer": turn["answer"], "events": roots}
'''


def _tree(old: str, new: str) -> str:
    assert _TREE.count(old) == 1, old
    return _TREE.replace(old, new)


_ATTACH = '        parent = nodes.get(row["parent_id"]) if row["parent_id"] is not None else None\n'
_ORDER = ' WHERE turn_id = :t ORDER BY seq, id", {"t": turn_id})'
_OK = '"ok": None if row["ok"] is None else bool(row["ok"]),'
_MISSING = "    if not turns:\n        return None\n"

_BUDGET = '''def context_budget(messages, tools, window):
    """Wrong on purpose: see the mutant's description."""
    import json
    import re

    from agent_harness.token_count import compact_json, count_tokens

    start = re.compile(r"^(?:Skills you can load|Your skills)", re.MULTILINE)
    parts = {"system": 0, "manifest": 0, "tool_schemas": 0, "history": 0, "tool_outputs": 0}
    for message in messages:
        role = message.get("role")
        text = message.get("content") or ""
        for call in message.get("tool_calls") or []:
            text += "\\n" + call["function"]["name"] + " " + call["function"]["arguments"]
        if role == "tool":
            parts["tool_outputs"] += count_tokens(text)
            continue
        found = start.search(text) if role in ("system", "user") else None
        if found:
            end = text.find("\\n\\n", found.start())
            end = len(text) if end < 0 else end
            parts["manifest"] += count_tokens(text[found.start():end])
            text = text[:found.start()] + text[end:]
        parts["system" if role == "system" else "history"] += count_tokens(text)
    parts["tool_schemas"] = sum(count_tokens(compact_json(schema)) for schema in tools or [])
    total = sum(parts.values())
    return {**parts, "total": total, "window": window, "free": window - total,
            "share": total / window}
'''


def _budget(old: str, new: str) -> str:
    assert _BUDGET.count(old) == 1, old
    return _BUDGET.replace(old, new)


MUTANTS = {
    "trail_tree": [
        (
            "children not nested: every event is a top-level one",
            _tree(_ATTACH, "        parent = None\n"),
        ),
        (
            "two levels only: an event whose parent has a parent is dropped",
            _tree(
                '        (parent["children"] if parent else roots).append(nodes[row["id"]])\n',
                "        if parent is None:\n"
                '            roots.append(nodes[row["id"]])\n'
                "        elif parent in roots:\n"
                '            parent["children"].append(nodes[row["id"]])\n',
            ),
        ),
        (
            "events in id order, seq ignored",
            _tree(_ORDER, ' WHERE turn_id = :t ORDER BY id", {"t": turn_id})'),
        ),
        (
            "equal seq in descending id order",
            _tree(_ORDER, ' WHERE turn_id = :t ORDER BY seq, id DESC", {"t": turn_id})'),
        ),
        (
            "equal seq in name order",
            _tree(_ORDER, ' WHERE turn_id = :t ORDER BY seq, name", {"t": turn_id})'),
        ),
        (
            "children listed newest first",
            _tree(
                "    turn = turns[0]\n",
                "    for node in nodes.values():\n"
                '        node["children"].reverse()\n'
                "    turn = turns[0]\n",
            ),
        ),
        (
            "detail left as the column's JSON text",
            _tree('"detail": json.loads(row["detail"] or "{}")', '"detail": row["detail"]'),
        ),
        ("ok left as the column's 1, 0 or NULL", _tree(_OK, '"ok": row["ok"],')),
        ("ok NULL taken for False", _tree(_OK, '"ok": bool(row["ok"]),')),
        (
            "the events of every turn, not only this one's",
            _tree(
                ' WHERE turn_id = :t ORDER BY seq, id", {"t": turn_id})',
                ' ORDER BY seq, id", {})',
            ),
        ),
        (
            "an unknown turn gives an empty tree instead of None",
            _tree(
                _MISSING,
                "    if not turns:\n"
                '        return {"turn_id": turn_id, "question": None, "status": None,'
                ' "answer": None, "events": []}\n',
            ),
        ),
        (
            "an unknown turn raises KeyError",
            _tree(_MISSING, "    if not turns:\n        raise KeyError(turn_id)\n"),
        ),
        (
            "a turn without events gives None, as an unknown turn does",
            _tree("    nodes = {\n", "    if not rows:\n        return None\n    nodes = {\n"),
        ),
        (
            "a long question shortened to 200 characters",
            _tree('"question": turn["question"]', '"question": turn["question"][:200]'),
        ),
        (
            "the answer taken from the last event instead of the turn",
            _tree('"answer": turn["answer"]', '"answer": (rows[-1]["name"] if rows else None)'),
        ),
    ],
    "context_budget": [
        (
            "the manifest is never split off (it stays in system or history)",
            _budget("        if found:\n", "        if False:\n"),
        ),
        (
            "the manifest runs to the end of the message (the empty line ignored)",
            _budget(
                '            end = text.find("\\n\\n", found.start())\n',
                "            end = -1\n",
            ),
        ),
        (
            "the manifest looked for in system messages only",
            _budget('if role in ("system", "user") else None', 'if role == "system" else None'),
        ),
        (
            "the manifest found only at the very start of a message",
            _budget(
                'start = re.compile(r"^(?:Skills you can load|Your skills)", re.MULTILINE)',
                'start = re.compile(r"\\A(?:Skills you can load|Your skills)")',
            ),
        ),
        (
            "tool schemas counted as json.dumps writes them (with spaces)",
            _budget("count_tokens(compact_json(schema))", "count_tokens(json.dumps(schema))"),
        ),
        (
            "tool calls left out of the history",
            _budget(
                '            text += "\\n" + call["function"]["name"] + " " + '
                'call["function"]["arguments"]\n',
                "            pass\n",
            ),
        ),
        (
            "content None counted as the text 'None'",
            _budget('text = message.get("content") or ""', 'text = str(message.get("content"))'),
        ),
        (
            "content None handled for assistant messages only",
            _budget(
                'text = message.get("content") or ""',
                'text = message.get("content")\n'
                '        if role == "assistant" and text is None:\n'
                '            text = ""',
            ).replace(
                'parts["tool_outputs"] += count_tokens(text)',
                'parts["tool_outputs"] += count_tokens(str(text))',
            ),
        ),
        (
            "tool outputs counted in the history",
            _budget(
                'parts["tool_outputs"] += count_tokens(text)',
                'parts["history"] += count_tokens(text)',
            ),
        ),
        (
            "system messages counted in the history",
            _budget('parts["system" if role == "system" else "history"]', 'parts["history"]'),
        ),
        (
            "the total leaves the tool schemas out",
            _budget(
                "    total = sum(parts.values())\n",
                '    total = sum(parts.values()) - parts["tool_schemas"]\n',
            ),
        ),
        (
            "free counted as total - window",
            _budget('"free": window - total', '"free": total - window'),
        ),
        (
            "share in percent",
            _budget('"share": total / window', '"share": 100 * total / window'),
        ),
    ],
}

COVERED_BY = {
    "two levels only: an event whose parent has a parent is dropped": "trail_tree_nesting",
    "events in id order, seq ignored": "trail_tree_order",
    "equal seq in descending id order": "trail_tree_order",
    "equal seq in name order": "trail_tree_order",
    "children listed newest first": "trail_tree_order",
    "an unknown turn gives an empty tree instead of None": "trail_tree_unknown",
    "an unknown turn raises KeyError": "trail_tree_unknown",
    "the manifest is never split off (it stays in system or history)": "context_budget_manifest",
    "the manifest runs to the end of the message (the empty line ignored)": (
        "context_budget_manifest"
    ),
    "the manifest looked for in system messages only": "context_budget_manifest",
    "the manifest found only at the very start of a message": "context_budget_manifest",
    "tool schemas counted as json.dumps writes them (with spaces)": "context_budget_tools",
    "tool calls left out of the history": "context_budget_tools",
    "content None counted as the text 'None'": "context_budget_tools",
    "content None handled for assistant messages only": "context_budget_tools",
    "the total leaves the tool schemas out": "context_budget_tools",
    "free counted as total - window": "context_budget_window",
    "share in percent": "context_budget_window",
}
