"""Other answers to the TODOs of 08_glass_box.ipynb (beside this file), for the tests.

Wrong ones: ``MUTANTS`` (each scores 0 on the grade cell of ``COVERED_BY``, default the TODO's
first), ``WRONG`` and ``ALWAYS_EQUAL`` (pass the visible checks; a value check must catch
them) and ``VISIBLE`` (once passed the visible checks; now fail them). Correct ones:
``CORRECT`` and ``MORE_CORRECT`` (each scores full marks). What each table holds and which test
reads it: docs/notebook-authoring.md, "A notebook's folder".
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

    from agent_harness.parts.token_count import compact_json, count_tokens

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


# --- Answers at the visible checks' edge (WRONG, ALWAYS_EQUAL, VISIBLE) and correct ones

_TREE_GROUPED = """def trail_tree(turn_id):
    import json
    from collections import defaultdict

    found = h.backend.query(
        "SELECT turn_id, question, status, answer FROM agent_turns WHERE turn_id = :t",
        {"t": turn_id})
    if len(found) == 0:
        return None
    children_of = defaultdict(list)
    for row in h.backend.query(
            "SELECT id, parent_id, seq, kind, name, ok, detail FROM turn_events"
            " WHERE turn_id = :t ORDER BY seq, id", {"t": turn_id}):
        children_of[row["parent_id"]].append(row)

    def build(parent_id):
        return [{"id": r["id"], "kind": r["kind"], "name": r["name"],
                 "ok": {None: None, 0: False, 1: True}[r["ok"]],
                 "detail": json.loads(r["detail"]) if r["detail"] else {},
                 "children": build(r["id"])} for r in children_of[parent_id]]

    tree = dict(found[0])
    tree["events"] = build(None)
    return tree
"""


_TREE_SORTED_IN_PYTHON = """import json as _json


def trail_tree(turn_id):
    rows = h.backend.query("SELECT * FROM agent_turns WHERE turn_id = :turn_id",
                           {"turn_id": turn_id})
    if not rows:
        return None
    events = h.backend.query("SELECT * FROM turn_events WHERE turn_id = :turn_id",
                             {"turn_id": turn_id})
    events.sort(key=lambda e: (e["seq"], e["id"]))
    by_id = {}
    for e in events:
        ok = e["ok"]
        by_id[e["id"]] = dict(id=e["id"], kind=e["kind"], name=e["name"],
                              ok=ok if ok is None else ok == 1,
                              detail=_json.loads(e["detail"] or "{}"), children=[])
    top = []
    for e in events:
        if e["parent_id"] is None:
            top.append(by_id[e["id"]])
        else:
            by_id[e["parent_id"]]["children"].append(by_id[e["id"]])
    row = rows[0]
    return dict(turn_id=row["turn_id"], question=row["question"], status=row["status"],
                answer=row["answer"], events=top)
"""


_TREE_JOINED_STACK = """def trail_tree(turn_id):
    import json

    rows = h.backend.query(
        "SELECT t.turn_id, t.question, t.status, t.answer, e.id, e.parent_id, e.seq, e.kind,"
        " e.name, e.ok, e.detail FROM agent_turns t LEFT JOIN turn_events e"
        " ON e.turn_id = t.turn_id WHERE t.turn_id = :t", {"t": turn_id})
    if not rows:
        return None
    head = rows[0]
    tree = {"turn_id": head["turn_id"], "question": head["question"],
            "status": head["status"], "answer": head["answer"], "events": []}
    events = [r for r in rows if r["id"] is not None]
    pending = [(tree["events"], None)]
    while pending:   # breadth by breadth: each list gets its events, sorted, then their children
        into, parent = pending.pop()
        mine = sorted((r for r in events if r["parent_id"] == parent),
                      key=lambda r: (r["seq"], r["id"]))
        for r in mine:
            node = {"id": r["id"], "kind": r["kind"], "name": r["name"],
                    "ok": None if r["ok"] is None else r["ok"] != 0,
                    "detail": json.loads(r["detail"] or "{}"), "children": []}
            into.append(node)
            pending.append((node["children"], r["id"]))
    return tree
"""


_TREE_FOUR_LEVELS = """def trail_tree(turn_id):
    import json

    turns = h.backend.query(
        "SELECT turn_id, question, status, answer FROM agent_turns WHERE turn_id = :t",
        {"t": turn_id})
    if not turns:
        return None
    rows = h.backend.query(
        "SELECT id, parent_id, seq, kind, name, ok, detail FROM turn_events"
        " WHERE turn_id = :t ORDER BY seq, id", {"t": turn_id})

    def level(parent, depth):
        if depth > 3:   # trails are never deeper than this (or so it seemed)
            return []
        return [{"id": r["id"], "kind": r["kind"], "name": r["name"],
                 "ok": None if r["ok"] is None else bool(r["ok"]),
                 "detail": json.loads(r["detail"] or "{}"),
                 "children": level(r["id"], depth + 1)}
                for r in rows if r["parent_id"] == parent]

    return {**turns[0], "events": level(None, 0)}
"""


_BUDGET_LINES = """def context_budget(messages, tools, window):
    from agent_harness.parts.token_count import compact_json, count_tokens

    system = manifest = history = outputs = 0
    for message in messages:
        text = message.get("content")
        if text is None:
            text = ""
        for call in message.get("tool_calls") or []:
            function = call["function"]
            text = text + "\\n" + function["name"] + " " + function["arguments"]
        role = message["role"]
        if role == "tool":
            outputs += count_tokens(text)
            continue
        if role in ("system", "user"):
            lines = text.split("\\n")
            first = next((i for i, line in enumerate(lines)
                          if line.startswith(("Skills you can load", "Your skills"))), None)
            if first is not None:
                last = first
                while last < len(lines) and lines[last] != "":
                    last += 1
                manifest += count_tokens("\\n".join(lines[first:last]))
                before = "\\n".join(lines[:first]) + ("\\n" if first else "")
                after = ("\\n" + "\\n".join(lines[last:])) if last < len(lines) else ""
                text = before + after
        if role == "system":
            system += count_tokens(text)
        else:
            history += count_tokens(text)
    schemas = 0
    for schema in tools or []:
        schemas += count_tokens(compact_json(schema))
    total = system + manifest + schemas + history + outputs
    return {"system": system, "manifest": manifest, "tool_schemas": schemas,
            "history": history, "tool_outputs": outputs, "total": total, "window": window,
            "free": window - total, "share": total / window}
"""


_BUDGET_REGEX = """import re as _re

from agent_harness.parts.token_count import compact_json as _compact
from agent_harness.parts.token_count import count_tokens as _count

_MANIFEST = _re.compile(r"^(?:Skills you can load|Your skills).*?(?=\\n\\n|\\Z)", _re.M | _re.S)


def context_budget(messages, tools, window):
    sums = dict.fromkeys(["system", "manifest", "tool_schemas", "history", "tool_outputs"], 0)
    where = {"system": "system", "user": "history", "assistant": "history",
             "tool": "tool_outputs"}
    for m in messages:
        text = (m.get("content") or "") + "".join(
            f"\\n{c['function']['name']} {c['function']['arguments']}"
            for c in m.get("tool_calls") or [])
        match = _MANIFEST.search(text) if m["role"] in ("system", "user") else None
        if match:
            sums["manifest"] += _count(match.group(0))
            text = text[:match.start()] + text[match.end():]
        sums[where[m["role"]]] += _count(text)
    sums["tool_schemas"] = sum(map(_count, map(_compact, tools or [])))
    total = sum(sums.values())
    return {**sums, "total": total, "window": window, "free": window - total,
            "share": total / window}
"""


_BUDGET_PARTITION = '''def context_budget(messages, tools, window):
    from agent_harness.parts.token_count import compact_json, count_tokens

    def split_manifest(text):
        """(manifest, rest) of a text: the block from a line starting with a marker."""
        best = -1
        for marker in ("Skills you can load", "Your skills"):
            at = 0 if text.startswith(marker) else text.find("\\n" + marker)
            if at > 0:
                at += 1
            if at >= 0 and (best < 0 or at < best):
                best = at
        if best < 0:
            return "", text
        head, tail = text[:best], text[best:]
        block, blank, after = tail.partition("\\n\\n")
        return block, head + blank + after

    counts = {"system": 0, "manifest": 0, "tool_schemas": 0, "history": 0, "tool_outputs": 0}
    for message in messages:
        role = message.get("role")
        text = message.get("content") or ""
        calls = message.get("tool_calls") or []
        text += "".join("\\n" + c["function"]["name"] + " " + c["function"]["arguments"]
                        for c in calls)
        if role == "tool":
            counts["tool_outputs"] += count_tokens(text)
        elif role == "system":
            block, rest = split_manifest(text)
            counts["manifest"] += count_tokens(block)
            counts["system"] += count_tokens(rest)
        elif role == "user":
            block, rest = split_manifest(text)
            counts["manifest"] += count_tokens(block)
            counts["history"] += count_tokens(rest)
        else:
            counts["history"] += count_tokens(text)
    for schema in tools or ():
        counts["tool_schemas"] += count_tokens(compact_json(schema))
    total = sum(counts.values())
    result = dict(counts)
    result.update(total=total, window=window, free=window - total, share=total / window)
    return result
'''


_BUDGET_PARAGRAPHS = """def context_budget(messages, tools, window):
    from agent_harness.parts.token_count import compact_json, count_tokens

    parts = {"system": 0, "manifest": 0, "tool_schemas": 0, "history": 0, "tool_outputs": 0}
    for message in messages:
        role = message.get("role")
        text = message.get("content") or ""
        for call in message.get("tool_calls") or []:
            text += "\\n" + call["function"]["name"] + " " + call["function"]["arguments"]
        if role == "tool":
            parts["tool_outputs"] += count_tokens(text)
            continue
        if role in ("system", "user"):
            paragraphs = text.split("\\n\\n")
            for i, paragraph in enumerate(paragraphs):   # a manifest starts a paragraph
                if paragraph.startswith(("Skills you can load", "Your skills")):
                    parts["manifest"] += count_tokens(paragraph)
                    paragraphs[i] = ""
                    text = "\\n\\n".join(paragraphs)
                    break
        parts["system" if role == "system" else "history"] += count_tokens(text)
    parts["tool_schemas"] = sum(count_tokens(compact_json(schema)) for schema in tools or [])
    total = sum(parts.values())
    return {**parts, "total": total, "window": window, "free": window - total,
            "share": total / window}
"""


WRONG = {
    "trail_tree": [("nests four levels at most (deeper events dropped)", _TREE_FOUR_LEVELS)],
    "context_budget": [
        ("the manifest found only where a paragraph starts", _BUDGET_PARAGRAPHS),
    ],
}
CORRECT = {
    "trail_tree": _TREE_GROUPED,
    "context_budget": _BUDGET_LINES,
}
MORE_CORRECT = [
    (
        "events sorted in Python, SELECT *, a manifest regex",
        {"trail_tree": _TREE_SORTED_IN_PYTHON, "context_budget": _BUDGET_REGEX},
    ),
    (
        "one joined statement and a stack, the manifest by partition",
        {"trail_tree": _TREE_JOINED_STACK, "context_budget": _BUDGET_PARTITION},
    ),
]
#: The grade cell covering each of these cases.
COVERED_BY.update(
    {
        "nests four levels at most (deeper events dropped)": "trail_tree_nesting",
        "the manifest found only where a paragraph starts": "context_budget_manifest",
    }
)
