"""Answers that only the grader's probes can tell apart (see grader/probes/).

The grader runs the grade cells WITHOUT their hidden tests, so:

* ``WRONG``: answers that pass the VISIBLE checks of their grade cell but are wrong on what
  the hidden tests check; each must score 0 with a failed value check.
* ``ALWAYS_EQUAL``: answers that pass the visible checks with look-alike objects (``__eq__``
  always True, subclasses of built-in types); each must score 0 with a failed value check.
* ``CORRECT``: other correct answers (different code, wording or accepted variations); each
  notebook's set must score full marks, so the probes are not stricter than the hidden tests.

``WRONG`` and ``ALWAYS_EQUAL`` map notebook -> solution grade_id -> [(label, source)];
``CORRECT`` maps notebook -> {solution grade_id: source}.
"""

# --- 00_setup ----------------------------------------------------------------------------------
_TOP_SQL = '''    result = h.backend.readonly_query(
        """SELECT c.name, SUM(v.capacity_teu) AS total_teu
           FROM supplychain.carriers c
           JOIN supplychain.vessels v ON v.carrier_id = c.carrier_id
           GROUP BY c.carrier_id, c.name
           ORDER BY total_teu DESC, c.name""",
        max_rows={max_rows},
    )
    return [(name, int(total)) for name, total in result.rows]
'''


def _top(max_rows: str) -> str:
    """top_carriers_by_teu with the correct query, keeping ``max_rows`` rows."""
    return "def top_carriers_by_teu(n):\n" + _TOP_SQL.format(max_rows=max_rows)


_TOP_IN_PYTHON = """def top_carriers_by_teu(n):
    names = dict(h.backend.readonly_query(
        "SELECT carrier_id, name FROM supplychain.carriers", max_rows=1000).rows)
    totals = {}
    for carrier_id, teu in h.backend.readonly_query(
            "SELECT carrier_id, capacity_teu FROM supplychain.vessels", max_rows=1000).rows:
        totals[names[carrier_id]] = totals.get(names[carrier_id], 0) + teu
    ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]
"""

_TOP_CORRELATED = '''def top_carriers_by_teu(n):
    rows = h.backend.readonly_query(
        """SELECT c.name AS carrier,
                  (SELECT SUM(v.capacity_teu) FROM supplychain.vessels v
                   WHERE v.carrier_id = c.carrier_id) AS teu
           FROM supplychain.carriers c
           WHERE EXISTS (SELECT 1 FROM supplychain.vessels v WHERE v.carrier_id = c.carrier_id)
           ORDER BY teu DESC, carrier""",
        {},
        max_rows=n,
    ).rows
    found = []
    for carrier, teu in rows:
        found.append((str(carrier), int(teu)))
    return found
'''

# --- 01_memory ---------------------------------------------------------------------------------
_SCAN = '''def scan_tables(owner):
    if not isinstance(owner, str) or not IDENTIFIER.fullmatch(owner):
        raise ValueError(f"owner {{owner!r}} is not a schema name")
    owner = {owner}
    rows = h.backend.query(
        """SELECT t.table_name, c.comments
           FROM all_tables t
           LEFT JOIN all_tab_comments c
             ON c.owner = t.owner AND c.table_name = t.table_name
           WHERE t.owner = :owner
           ORDER BY t.table_name""",
        {{"owner": owner}},
    )
    facts = []
    for row in rows:
        table = row["table_name"]
        n = {count}
        purpose = {purpose}
        facts.append({{
            "kind": "table",
            "subject": f"{{owner}}.{{table}}",
            "content": f"Table {{owner}}.{{table}}: {{purpose}} ({{int(n)}} rows)",
            "metadata": {{"owner": owner, "table": table, "row_count": n}},
        }})
    return facts
'''

_COUNT = 'int(h.backend.query(f"SELECT COUNT(*) AS n FROM {owner}.{table}")[0]["n"])'
_PURPOSE = '(row["comments"] or "no documented purpose").strip()'


def _scan(owner: str = "owner.upper()", count: str = _COUNT, purpose: str = _PURPOSE) -> str:
    """scan_tables with the correct parts, some replaced.

    Args:
        owner: The expression that normalises the owner.
        count: The expression of a table's row count.
        purpose: The expression of a table's comment.
    """
    return _SCAN.format(owner=owner, count=count, purpose=purpose)


_SCAN_SNAPSHOT = """_SNAPSHOT = {r["table_name"]: r["comments"] for r in h.backend.query(
    "SELECT table_name, comments FROM all_tab_comments WHERE owner = 'SUPPLYCHAIN'")}


""" + _scan(purpose='(_SNAPSHOT.get(table) or "no documented purpose").strip()')

_SCAN_MATCH_PASTED = '''def scan_tables(owner):
    if not isinstance(owner, str) or not IDENTIFIER.match(owner):
        raise ValueError(f"owner {owner!r} is not a schema name")
    owner = owner.upper()
    rows = h.backend.query(
        f"""SELECT t.owner, t.table_name, c.comments
            FROM all_tables t
            LEFT JOIN all_tab_comments c
              ON c.owner = t.owner AND c.table_name = t.table_name
            WHERE t.owner = '{owner}'
            ORDER BY t.table_name"""
    )
    facts = []
    for row in rows:
        table, schema = row["table_name"], row["owner"]
        n = int(h.backend.query(f"SELECT COUNT(*) AS n FROM {schema}.{table}")[0]["n"])
        facts.append({
            "kind": "table",
            "subject": f"{schema}.{table}",
            "content": f"Table {schema}.{table}: {(row['comments'] or '').strip()} ({n} rows)",
            "metadata": {"owner": schema, "table": table, "row_count": n},
        })
    return facts
'''

_SCAN_OWN_PATTERN = _scan().replace(
    "not IDENTIFIER.fullmatch(owner)", 'not re.fullmatch(r"[A-Za-z][A-Za-z0-9_$#]*", owner)'
)

_SCAN_OTHER_WORDING = """def scan_tables(owner):
    if not isinstance(owner, str) or not IDENTIFIER.fullmatch(owner):
        raise ValueError(f"{owner!r}: not a schema name")  # the docstring asks for it
    schema = owner.upper()
    names = [r["table_name"] for r in h.backend.query(
        "SELECT table_name FROM all_tables WHERE owner = :o", {"o": schema})]
    facts = []
    for table in sorted(names):
        found = h.backend.query(
            "SELECT comments FROM all_tab_comments WHERE owner = :o AND table_name = :t",
            {"o": schema, "t": table})
        comment = (found[0]["comments"] if found else None) or ""
        count = h.backend.query(f"SELECT COUNT(*) AS rows_now FROM {schema}.{table}")
        n = int(count[0]["rows_now"])
        facts.append({
            "kind": "table",
            "subject": schema + "." + table,
            "content": f"Table {schema}.{table}: {comment.strip()} [{n} rows]",
            "metadata": {"row_count": n, "table": table, "owner": schema},
        })
    return facts
"""

_SCAN_UNION = """def scan_tables(owner):
    if not isinstance(owner, str) or IDENTIFIER.fullmatch(owner) is None:
        raise ValueError("not a schema name: " + repr(owner))
    schema = owner.upper()
    tables = h.backend.query(
        "SELECT t.table_name AS name, c.comments AS note FROM all_tables t"
        " LEFT JOIN all_tab_comments c ON c.owner = t.owner AND c.table_name = t.table_name"
        " WHERE t.owner = :owner ORDER BY t.table_name",
        {"owner": schema},
    )
    safe = [t for t in tables if IDENTIFIER.fullmatch(t["name"])]
    if not safe:
        return []
    # every row count in ONE statement: the names passed IDENTIFIER, so they may be pasted
    counts = h.backend.query(" UNION ALL ".join(
        f"SELECT '{t['name']}' AS name, COUNT(*) AS n FROM {schema}.{t['name']}" for t in safe))
    n_rows = {r["name"]: int(r["n"]) for r in counts}
    return [
        {"kind": "table", "subject": f"{schema}.{t['name']}",
         "content": "Table %s.%s: %s (%d rows)" % (schema, t["name"], (t["note"] or "").strip(),
                                                  n_rows[t["name"]]),
         "metadata": {"owner": schema, "table": t["name"], "row_count": n_rows[t["name"]]}}
        for t in safe
    ]
"""

_SCAN_LOOP = """def scan_tables(owner):
    if type(owner) is not str or not IDENTIFIER.fullmatch(owner):
        raise ValueError(f"{owner!r} is not a plain schema name")
    owner = owner.upper()
    facts = []
    for row in sorted(h.backend.query(
            "SELECT t.table_name, c.comments FROM all_tables t LEFT JOIN all_tab_comments c"
            " ON c.owner = t.owner AND c.table_name = t.table_name WHERE t.owner = :o",
            {"o": owner}), key=lambda r: r["table_name"]):
        table = row["table_name"].upper()
        if not IDENTIFIER.fullmatch(table):
            continue
        n = h.backend.query("SELECT COUNT(*) AS c FROM " + owner + "." + table)[0]["c"]
        comment = row["comments"].strip() if row["comments"] else "(no comment)"
        fact = dict(kind="table", subject=owner + "." + table,
                    content="Table " + owner + "." + table + ": " + comment
                    + " (" + str(n) + " rows)",
                    metadata=dict(owner=owner, table=table, row_count=int(n)))
        facts.append(fact)
    return facts
"""

# --- 02_retrieval ------------------------------------------------------------------------------
_RETRIEVE = """def retrieve_knowledge(query, k=5, kinds=None):
    if isinstance(kinds, str):
        kinds = kinds.split(",")
    wanted = {wanted}
    candidates = h.memory.search(query, k=k * {oversample}, mode="vector")
    kept = [m for m in candidates
            if m.kind != "tool_output" and (not wanted or m.kind in wanted)]
    return rerank(query, kept, k)
"""

_WANTED = "{name.strip() for name in (kinds or []) if name and name.strip()}"


def _retrieve(wanted: str = _WANTED, oversample: str = "4") -> str:
    """retrieve_knowledge with the correct parts, some replaced.

    Args:
        wanted: The expression of the set of wanted kinds.
        oversample: How many times k candidates to ask vector search for.
    """
    return _RETRIEVE.format(wanted=wanted, oversample=oversample)


_RETRIEVE_FILTERED_SEARCH = """def retrieve_knowledge(query, k=5, kinds=None):
    if isinstance(kinds, str):
        kinds = [part for part in kinds.split(",")]
    names = sorted({part.strip() for part in kinds or [] if part.strip()})
    if names:  # let the search filter the kinds first (the hidden tests accept this)
        found = h.memory.search(query, k=k * 4, mode="vector", kinds=names)
    else:
        found = h.memory.search(query, k=k * 4, mode="vector", exclude_kinds=["tool_output"])
    found = [m for m in found if m.kind != "tool_output"]
    return rerank(query, found, k)
"""

_HYBRID = '''def hybrid_rrf_search(query, k=5, per_list=30, rrf_k=60):
    sql = f"""
WITH vec AS ({{VEC}}),
     txt AS ({{TXT}})
SELECT m.id, m.kind, m.subject, m.content,
       COALESCE(vec.r, 999999) AS r_vec,
       COALESCE(txt.r, 999999) AS r_txt,
       1.0 / (:rrf_k + COALESCE(vec.r, 999999))
         + 1.0 / (:rrf_k + COALESCE(txt.r, 999999)) AS rrf_score
FROM vec
FULL OUTER JOIN txt ON txt.id = vec.id
JOIN memories m ON m.id = COALESCE(vec.id, txt.id)
ORDER BY rrf_score DESC, m.id
{{TOP_K}}"""
    rows = h.backend.query(sql, hybrid_binds(h, query, {binds}))
    return [
        {{"id": {id_}, "kind": r["kind"], "subject": r["subject"], "content": r["content"],
         "r_vec": int(r["r_vec"]), "r_txt": int(r["r_txt"]),
         "rrf_score": float(r["rrf_score"])}}
        for r in rows
    ]
'''


def _hybrid(binds: str = "k, per_list, rrf_k", id_: str = 'int(r["id"])', head: str = "") -> str:
    """hybrid_rrf_search with the correct statement.

    Args:
        binds: The arguments of hybrid_binds after ``h, query``.
        id_: The expression of each row's id.
        head: Code put before the function (a helper class).
    """
    return head + _HYBRID.format(binds=binds, id_=id_)


_HYBRID_OTHER_SQL = '''def hybrid_rrf_search(query, k=5, per_list=30, rrf_k=60):
    statement = f"""
WITH by_meaning AS ({VEC}),
     by_words AS ({TXT}),
     fused AS (
       SELECT COALESCE(a.id, b.id) AS memory_id,
              CASE WHEN a.r IS NULL THEN 999999 ELSE a.r END AS rank_v,
              CASE WHEN b.r IS NULL THEN 999999 ELSE b.r END AS rank_t
       FROM by_meaning a FULL OUTER JOIN by_words b ON a.id = b.id)
SELECT mem.id, mem.kind, mem.subject, mem.content, f.rank_v, f.rank_t,
       1.0 / (:rrf_k + f.rank_v) + 1.0 / (:rrf_k + f.rank_t) AS fused_score
FROM fused f JOIN memories mem ON mem.id = f.memory_id
ORDER BY fused_score DESC, mem.id
{TOP_K}"""
    binds = hybrid_binds(h, query, k=k, per_list=per_list, rrf_k=rrf_k)
    out = []
    for row in h.backend.query(statement, binds):
        out.append(dict(id=row["id"], kind=row["kind"], subject=row["subject"],
                        content=row["content"], r_vec=int(row["rank_v"]),
                        r_txt=int(row["rank_t"]), rrf_score=float(row["fused_score"])))
    return out
'''

_RETRIEVE_LOOP = """def retrieve_knowledge(query, k=5, kinds=None):
    import re

    if isinstance(kinds, str):
        wanted = {name for name in re.split(r"\\s*,\\s*", kinds.strip()) if name}
    else:
        wanted = {str(name).strip() for name in kinds or [] if str(name).strip()}
    kept = []
    for memory in h.memory.search(query, k=4 * k, mode="vector"):
        if memory.kind == "tool_output":
            continue  # logged outputs are data, never knowledge
        if wanted and memory.kind not in wanted:
            continue
        kept.append(memory)
    return rerank(query, kept, k)
"""

_RETRIEVE_FUNCTIONAL = """def retrieve_knowledge(query, k=5, kinds=None):
    names = kinds.split(",") if isinstance(kinds, str) else (kinds or [])
    wanted = frozenset(filter(None, map(str.strip, names)))
    pool = h.memory.search(query, k=k * 4, mode="vector", exclude_kinds="tool_output")
    pool = list(filter(lambda m: m.kind != "tool_output" and (not wanted or m.kind in wanted),
                       pool))
    pool.sort(key=lambda m: m.score)
    return rerank(query, pool, k)
"""

_HYBRID_UNION = '''def hybrid_rrf_search(query, k=5, per_list=30, rrf_k=60):
    # UNION ALL + GROUP BY instead of a FULL OUTER JOIN: each list gives its rank, the other
    # side the sentinel; MIN keeps the real rank.
    sql = f"""
WITH vec AS ({VEC}),
     txt AS ({TXT}),
     both_lists AS (
       SELECT id, r AS r_vec, 999999 AS r_txt FROM vec
       UNION ALL
       SELECT id, 999999 AS r_vec, r AS r_txt FROM txt),
     fused AS (
       SELECT id, MIN(r_vec) AS r_vec, MIN(r_txt) AS r_txt FROM both_lists GROUP BY id)
SELECT m.id, m.kind, m.subject, m.content, f.r_vec, f.r_txt,
       1.0 / (:rrf_k + f.r_vec) + 1.0 / (:rrf_k + f.r_txt) AS rrf_score
FROM fused f
JOIN memories m ON m.id = f.id
ORDER BY rrf_score DESC, m.id ASC
{TOP_K}"""
    found = []
    for row in h.backend.query(sql, hybrid_binds(h, query, k, per_list, rrf_k)):
        found.append({
            "id": int(row["id"]), "kind": row["kind"], "subject": row["subject"],
            "content": row["content"], "r_vec": int(row["r_vec"]), "r_txt": int(row["r_txt"]),
            "rrf_score": float(row["rrf_score"]),
        })
    return found
'''

_HYBRID_TXT_FIRST = """def hybrid_rrf_search(query, k=5, per_list=30, rrf_k=60):
    binds = hybrid_binds(h, query, k=k, per_list=per_list, rrf_k=rrf_k)
    statement = (
        f"WITH vec AS ({VEC}), txt AS ({TXT}) "
        "SELECT x.*, 1.0 / (:rrf_k + x.r_vec) + 1.0 / (:rrf_k + x.r_txt) AS rrf_score FROM ("
        " SELECT mem.id, mem.kind, mem.subject, mem.content,"
        "  CASE WHEN vec.r IS NULL THEN 999999 ELSE vec.r END AS r_vec,"
        "  CASE WHEN txt.r IS NULL THEN 999999 ELSE txt.r END AS r_txt"
        " FROM txt FULL JOIN vec ON vec.id = txt.id"
        " JOIN memories mem ON mem.id = COALESCE(txt.id, vec.id)) x "
        f"ORDER BY 1.0 / (:rrf_k + x.r_vec) + 1.0 / (:rrf_k + x.r_txt) DESC, x.id {TOP_K}"
    )
    as_type = {"id": int, "r_vec": int, "r_txt": int, "rrf_score": float}
    return [
        {key: as_type.get(key, lambda v: v)(row[key])
         for key in ("id", "kind", "subject", "content", "r_vec", "r_txt", "rrf_score")}
        for row in h.backend.query(statement, binds)
    ]
"""

# --- 03_tools_and_skills -----------------------------------------------------------------------
_RUN_SQL = """def run_sql(sql, max_rows=50):
    limit = {limit}
    try:
        result = h.backend.readonly_query(sql, max_rows=limit)
    except BackendError as e:
        return json.dumps({{"error": str(e)}}, ensure_ascii=False)
    rows = [[to_json_value(value) for value in row] for row in result.rows]
    return json.dumps(
        {{"columns": list(result.columns), "rows": rows, "row_count": len(rows),
          "truncated": {truncated}}},
        ensure_ascii={ascii},
    )
"""


def _run_sql(
    limit: str = "max(1, min(int(max_rows), MAX_ROWS))",
    truncated: str = "bool(result.truncated)",
    ascii: str = "False",
) -> str:
    """run_sql with the correct parts, some replaced.

    Args:
        limit: The expression of the clamped max_rows.
        truncated: The expression of the truncated flag.
        ascii: The ensure_ascii argument of json.dumps.
    """
    return _RUN_SQL.format(limit=limit, truncated=truncated, ascii=ascii)


_RUN_SQL_OTHER = """def run_sql(sql, max_rows=50):
    wanted = sorted([1, int(max_rows), MAX_ROWS])[1]
    try:
        answer = h.backend.readonly_query(sql, None, max_rows=wanted)
    except Exception as problem:  # any failure goes back to the model as text
        return json.dumps({"error": f"{type(problem).__name__}: {problem}"}, ensure_ascii=False)
    data = []
    for row in answer.rows:
        data.append([to_json_value(cell) for cell in row])
    payload = {"columns": [str(c) for c in answer.columns], "rows": data}
    payload.update(row_count=len(data), truncated=answer.truncated is True)
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
"""

_RUN_SQL_DEFAULT = """def run_sql(sql, max_rows=50):
    if max_rows < 1:
        limit = 1
    elif max_rows > MAX_ROWS:
        limit = MAX_ROWS
    else:
        limit = int(max_rows)
    try:
        result = h.backend.readonly_query(sql, max_rows=limit)
    except ReadOnlyViolation as refused:
        return json.dumps({"error": f"refused: {refused}"}, ensure_ascii=False)
    except BackendError as failed:
        return json.dumps({"error": f"failed: {failed}"}, ensure_ascii=False)
    answer = {"columns": result.columns, "rows": result.rows, "row_count": len(result.rows),
              "truncated": result.truncated}
    # json.dumps calls to_json_value for every value it cannot write itself
    return json.dumps(answer, ensure_ascii=False, default=to_json_value)
"""

_RUN_SQL_MAP = """def run_sql(sql, max_rows=50):
    import json as _json

    limit = min(MAX_ROWS, max(1, int(max_rows)))
    try:
        result = h.backend.readonly_query(sql, None, limit)
    except BackendError as e:
        return _json.dumps(dict(error=str(e) or type(e).__name__), ensure_ascii=False)
    rows = [list(map(to_json_value, row)) for row in result.rows]
    parts = [("truncated", result.truncated is True), ("row_count", len(rows)),
             ("rows", rows), ("columns", [*result.columns])]
    return _json.dumps(dict(parts), ensure_ascii=False, indent=1, sort_keys=True)
"""

# --- 04_agent_loop -----------------------------------------------------------------------------
_AGENT = """def agent_turn(question, thread_id="default", max_iterations=8, budget_seconds=30):
    tools = h.tools.retrieve(question, k=5)
    offered = {{t["function"]["name"] for t in tools}}
    messages = [
        {{"role": "system", "content": SYSTEM_PROMPT}},
        {{"role": "user", "content": build_context(h, question)}},
    ]
    names, answer, rounds = [], None, 0
    started = time.monotonic()
    while {condition}:
        reply = h.llm.chat(messages, tools=tools)
        calls = reply.tool_calls or []
        assistant = {{"role": "assistant", "content": reply.content or ""}}
        if calls:
            assistant["tool_calls"] = [
                {{"id": c.id, "type": "function",
                  "function": {{"name": c.function.name,
                               "arguments": c.function.arguments or "{{}}"}}}}
                for c in calls
            ]
        messages.append(assistant)
        if not calls:
            answer = reply.content or ""
            break
        rounds += 1
        for c in calls:
            name = c.function.name
            if name in offered:
                names.append(name)
                output = h.tools.call(name, c.function.arguments or "{{}}")
            else:
{refused}
            messages.append({{"role": "tool", "tool_call_id": c.id, "content": output}})
    forced = answer is None
    if forced:
        messages.append({{"role": "user", "content": FORCE_FINAL}})
        reply = h.llm.chat(messages)
        answer = reply.content or "(no final answer)"
        messages.append({{"role": "assistant", "content": answer}})
    episode_id = h.memory.add(f"Question: {{question}}\\nAnswer: {{answer}}", kind="episode",
                              thread_id=thread_id)
    return {{"answer": answer, "messages": messages, "tool_calls": {tool_calls},
             "forced_final": forced, "episode_id": episode_id}}
"""

_CONDITION = "rounds < max_iterations and time.monotonic() - started < budget_seconds"
_REFUSED = """                names.append(name)
                output = json.dumps({"error": f"tool {name!r} is not available in this turn"})"""


def _agent(condition: str = _CONDITION, refused: str = _REFUSED, tool_calls: str = "names") -> str:
    """agent_turn with the correct loop, some parts replaced.

    Args:
        condition: The while condition of the tool loop.
        refused: The else-branch for a tool that was not offered (indented 16 spaces).
        tool_calls: The expression returned as tool_calls.
    """
    return _AGENT.format(condition=condition, refused=refused, tool_calls=tool_calls)


_EQ_LIST = """class _Agreeable(list):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


"""

_AGENT_OTHER = """def agent_turn(
    question, thread_id="default", max_iterations=8, budget_seconds=30.0
):
    offered_tools = h.tools.retrieve(question, k=5)
    allowed = [spec["function"]["name"] for spec in offered_tools]
    conversation = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": build_context(h, question)}]
    called = []
    deadline = time.monotonic() + budget_seconds
    final = None
    for _round in range(max_iterations):
        if time.monotonic() >= deadline:
            break
        message = h.llm.chat(conversation, tools=offered_tools)
        requested = list(message.tool_calls or [])
        entry = {"role": "assistant", "content": message.content or ""}
        if requested:
            entry["tool_calls"] = [{"id": call.id, "type": "function",
                                    "function": {"name": call.function.name,
                                                 "arguments": call.function.arguments or "{}"}}
                                   for call in requested]
        conversation.append(entry)
        if not requested:
            final = message.content or ""
            break
        for call in requested:
            called.append(call.function.name)
            if call.function.name not in allowed:
                text = json.dumps({"error": "unavailable tool: " + call.function.name})
            else:
                text = h.tools.call(call.function.name, call.function.arguments or "{}")
            conversation.append({"role": "tool", "tool_call_id": call.id, "content": text})
    was_forced = final is None
    if was_forced:
        conversation.append({"role": "user", "content": FORCE_FINAL})
        final = h.llm.chat(conversation).content or "no answer"
        conversation.append({"role": "assistant", "content": final})
    stored = h.memory.add("Question: " + question + "\\nAnswer: " + final, kind="episode",
                          thread_id=thread_id, metadata={"calls": called})
    return dict(answer=final, messages=conversation, tool_calls=called,
                forced_final=was_forced, episode_id=stored)
"""

_AGENT_WHILE_TRUE = """def agent_turn(
    question, thread_id="default", max_iterations=8, budget_seconds=30
):
    tools = h.tools.retrieve(question, k=5)
    names_offered = set()
    for spec in tools:
        names_offered.add(spec["function"]["name"])

    def observe(call):
        # run one call the model asked for; its mistakes become an error it can read
        if call.function.name not in names_offered:
            return json.dumps({"error": "no such tool in this turn: " + call.function.name})
        return h.tools.call(call.function.name, call.function.arguments or "{}")

    messages = [dict(role="system", content=SYSTEM_PROMPT),
                dict(role="user", content=build_context(h, question))]
    start, rounds, made = time.monotonic(), 0, []
    answer = None
    while True:
        if rounds >= max_iterations or time.monotonic() - start >= budget_seconds:
            break
        reply = h.llm.chat(messages, tools=tools)
        calls = reply.tool_calls or []
        if not calls:
            answer = reply.content or ""
            messages.append(dict(role="assistant", content=answer))
            break
        messages.append(dict(role="assistant", content=reply.content or "", tool_calls=[
            dict(id=c.id, type="function",
                 function=dict(name=c.function.name, arguments=c.function.arguments or "{}"))
            for c in calls]))
        for c in calls:
            made.append(c.function.name)
            messages.append(dict(role="tool", tool_call_id=c.id, content=observe(c)))
        rounds = rounds + 1
    forced_final = answer is None
    if forced_final:
        messages.append(dict(role="user", content=FORCE_FINAL))
        answer = h.llm.chat(messages).content or "(nothing)"
        messages.append(dict(role="assistant", content=answer))
    episode = h.memory.add("Question: %s\\nAnswer: %s" % (question, answer), kind="episode",
                           thread_id=thread_id)
    return {"answer": answer, "messages": messages, "tool_calls": made,
            "forced_final": forced_final, "episode_id": episode}
"""

# --- 05_tool_output_offload --------------------------------------------------------------------
_LOG = """def log_tool(thread_id, tool_call_id, tool_name, tool_args, tool_output):
    args = tool_args if isinstance(tool_args, str) else json.dumps(tool_args, sort_keys=True)
    return {wrap}(h.memory.add(
        {content},
        kind=TOOL_OUTPUT_KIND,
        subject=tool_call_id,
        metadata={{"tool_name": tool_name, "tool_args": args, "chars": {chars},
                  "empty": not tool_output}},
        thread_id=thread_id,
    ))
"""


def _log(
    content: str = "tool_output if tool_output else EMPTY_OUTPUT",
    chars: str = "len(tool_output)",
    wrap: str = "",
    head: str = "",
) -> str:
    """log_tool with the correct parts, some replaced.

    Args:
        content: The expression of the stored content.
        chars: The expression of metadata "chars".
        wrap: A callable name wrapped around the returned id ("" for none).
        head: Code put before the function (a helper class).
    """
    return head + _LOG.format(content=content, chars=chars, wrap=wrap)


_FETCH = """def fetch_tool_output(tool_call_id):
    found = h.memory.list(metadata_filter={find}, limit=1)
    if not found:
        return {{"error": {error}}}
    memory = found[0]
    return {{
        "tool_name": memory.metadata.get("tool_name"),
        "tool_args": memory.metadata.get("tool_args"),
        "tool_output": {output},
    }}
"""


def _fetch(
    find: str = '{"kind": TOOL_OUTPUT_KIND, "subject": str(tool_call_id)}',
    error: str = 'f"no tool call with id {tool_call_id!r}"',
    output: str = '"" if memory.metadata.get("empty") else memory.content',
    head: str = "",
) -> str:
    """fetch_tool_output with the correct parts, some replaced.

    Args:
        find: The metadata_filter of the lookup.
        error: The expression of the error text for an unknown id.
        output: The expression of the returned tool_output.
        head: Code put before the function (a helper class).
    """
    return head + _FETCH.format(find=find, error=error, output=output)


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
    "00_setup": {
        "top_carriers_by_teu": [
            ("at least 3 carriers, whatever n (max_rows=max(n, 3))", _top("max(int(n), 3)")),
        ],
    },
    "01_memory": {
        "scan_tables": [
            ("comments read once, when the cell ran (a stale snapshot)", _SCAN_SNAPSHOT),
            (
                "its own owner pattern, without the 128-character limit",
                _SCAN_OWN_PATTERN,
            ),
        ],
    },
    "02_retrieval": {
        "retrieve_knowledge": [
            ("oversamples k * 3 instead of k * 4", _retrieve(oversample="3")),
            (
                "kinds text split on ', ' exactly (no other spacing)",
                _RETRIEVE.replace('kinds.split(",")', 'kinds.split(", ")').format(
                    wanted="{name for name in kinds or [] if name}", oversample="4"
                ),
            ),
        ],
        "hybrid_rrf_search": [
            ("per_list capped at 30", _hybrid(binds="k, min(per_list, 30), rrf_k")),
            ("at most 20 rows, whatever k", _hybrid(binds="min(k, 20), per_list, rrf_k")),
        ],
    },
    "03_tools_and_skills": {
        "run_sql": [
            (
                "negative max_rows taken as its absolute value",
                _run_sql(limit="max(1, min(abs(int(max_rows)), MAX_ROWS))"),
            ),
            (
                "floats rounded to 2 places (for readability)",
                _RUN_SQL.replace(
                    "[to_json_value(value) for value in row]",
                    "[round(v, 2) if isinstance(v, float) else to_json_value(v) for v in row]",
                ).format(
                    limit="max(1, min(int(max_rows), MAX_ROWS))",
                    truncated="bool(result.truncated)",
                    ascii="False",
                ),
            ),
        ],
    },
    "05_tool_output_offload": {
        "log_tool": [
            (
                "strips whitespace from the output",
                _log(content="tool_output.strip() or EMPTY_OUTPUT"),
            ),
            (
                "chars of the output without surrounding whitespace",
                _log(chars="len(tool_output.strip())"),
            ),
        ],
        "fetch_tool_output": [
            (
                "the id quoted by hand, not with repr()",
                _fetch(error="f\"no tool call with id '{tool_call_id}'\""),
            ),
            (
                "empty told by the placeholder text, not by metadata empty",
                _fetch(output='"" if memory.content == EMPTY_OUTPUT else memory.content'),
            ),
        ],
    },
}

#: Answers that passed the visible checks before issue 11 and now fail them (each behaviour
#: that is graded has a visible check of its own): notebook -> grade_id -> [(label, source)].
VISIBLE = {
    "00_setup": {
        "top_carriers_by_teu": [
            ("always the top 3, whatever n", _top("3")),
            ("at most 10 carriers (n capped)", _top("min(int(n), 10)")),
        ],
    },
    "05_tool_output_offload": {
        "log_tool": [
            ("chars counts UTF-8 bytes", _log(chars='len(tool_output.encode("utf-8"))')),
        ],
        "fetch_tool_output": [
            ("does not filter on kind", _fetch(find='{"subject": str(tool_call_id)}')),
        ],
    },
    "03_tools_and_skills": {
        "run_sql": [
            ("caps max_rows at 500", _run_sql(limit="max(1, min(int(max_rows), 500))")),
            ("unicode escaped (ensure_ascii=True)", _run_sql(ascii="True")),
            (
                "truncated when the rows fill max_rows, even if nothing was left out",
                _run_sql(truncated="len(rows) == limit"),
            ),
            ("no lower bound: max_rows=0 is passed on", _run_sql(limit="min(int(max_rows), 1000)")),
        ],
    },
    "02_retrieval": {
        "retrieve_knowledge": [
            ("kinds text split on commas, spaces kept", _retrieve(wanted="set(kinds or [])")),
            ("oversamples k * 2 instead of k * 4", _retrieve(oversample="2")),
        ],
        "hybrid_rrf_search": [
            ("ignores per_list (always 30)", _hybrid(binds="k, 30, rrf_k")),
            ("ignores rrf_k (always 60)", _hybrid(binds="k, per_list, 60")),
            ("at most 10 rows, whatever k", _hybrid(binds="min(k, 10), per_list, rrf_k")),
            # issue 22, item 11: SQLite runs it, Oracle does not; the portability check names it
            (
                "IFNULL instead of COALESCE (runs on SQLite only)",
                _hybrid().replace("COALESCE(", "IFNULL("),
            ),
        ],
    },
    "01_memory": {
        "scan_tables": [
            (
                "row_count stored as a float (the content says the int)",
                _scan(count=f"float({_COUNT})"),
            ),
            ("owner not upper-cased", _scan(owner="owner")),
            ("IDENTIFIER.match (not fullmatch) and the owner pasted into SQL", _SCAN_MATCH_PASTED),
        ],
    },
    "04_agent_loop": {
        "agent_turn": [
            (
                "tool_calls lists only the calls that ran (not the refused ones)",
                _agent(
                    refused='                output = json.dumps({"error": f"no tool {name!r}"})'
                ),
            ),
            (
                "one round too many (rounds <= max_iterations)",
                _agent(condition=_CONDITION.replace("rounds <", "rounds <=")),
            ),
            (
                "ignores budget_seconds",
                _agent(condition="rounds < max_iterations"),
            ),
            (
                "an unknown tool gets plain text, not an {'error'} JSON object",
                _agent(
                    refused="""                names.append(name)
                output = f"error: the tool {name} is not available in this turn\""""
                ),
            ),
        ],
    },
}

ALWAYS_EQUAL = {
    "01_memory": {
        "scan_tables": [
            (
                "row_count an int that equals anything (from num_rows, empty here)",
                _EQ_INT
                + _scan(count="_Agreeable(0)")
                .replace("({int(n)} rows)", "({_n} rows)")
                .replace("        purpose =", f"        _n = {_COUNT}\n        purpose ="),
            ),
        ],
    },
    "02_retrieval": {
        "hybrid_rrf_search": [
            (
                "ids: the right ints, as a subclass that equals anything",
                _hybrid(id_='_Agreeable(r["id"])', head=_EQ_INT),
            ),
        ],
    },
    "04_agent_loop": {
        "agent_turn": [
            (
                "tool_calls a list that equals anything (never filled)",
                _EQ_LIST + _agent(tool_calls="_Agreeable()"),
            ),
        ],
    },
    "05_tool_output_offload": {
        "log_tool": [
            ("the id as an int that equals anything", _log(wrap="_Agreeable", head=_EQ_INT)),
        ],
        "fetch_tool_output": [
            (
                "the output cut to 600 characters and the error text, as strings that equal "
                "anything",
                _fetch(
                    error='_Agreeable("not found")',
                    output="_Agreeable(memory.content[:600])",
                    head=_EQ_STR,
                ),
            ),
        ],
    },
}

CORRECT = {
    "00_setup": {"top_carriers_by_teu": _TOP_IN_PYTHON},
    "01_memory": {"scan_tables": _SCAN_OTHER_WORDING},
    "02_retrieval": {
        "retrieve_knowledge": _RETRIEVE_FILTERED_SEARCH,
        "hybrid_rrf_search": _HYBRID_OTHER_SQL,
    },
    "03_tools_and_skills": {"run_sql": _RUN_SQL_OTHER},
    "04_agent_loop": {"agent_turn": _AGENT_OTHER},
    "05_tool_output_offload": {
        "log_tool": _log(head="", content="tool_output or EMPTY_OUTPUT").replace(
            "json.dumps(tool_args, sort_keys=True)", "json.dumps(tool_args)"
        ),
        "fetch_tool_output": "def fetch_tool_output(tool_call_id):\n"
        "    return h.offload.fetch(tool_call_id)\n",
    },
}

#: The grade cell covering each case's broken behaviour (default: the TODO's first grade cell).
COVERED_BY = {
    "kinds text split on commas, spaces kept": "retrieve_knowledge_kinds",
    "oversamples k * 2 instead of k * 4": "retrieve_knowledge_kinds",
    "oversamples k * 3 instead of k * 4": "retrieve_knowledge_kinds",
    "kinds text split on ', ' exactly (no other spacing)": "retrieve_knowledge_kinds",
    "ignores per_list (always 30)": "hybrid_rrf_search_parameters",
    "ignores rrf_k (always 60)": "hybrid_rrf_search_parameters",
    "per_list capped at 30": "hybrid_rrf_search_parameters",
    "at most 10 rows, whatever k": "hybrid_rrf_search_k",
    "at most 20 rows, whatever k": "hybrid_rrf_search_k",
    "caps max_rows at 500": "run_sql_max_rows",
    "no lower bound: max_rows=0 is passed on": "run_sql_max_rows",
    "negative max_rows taken as its absolute value": "run_sql_max_rows",
    "unicode escaped (ensure_ascii=True)": "run_sql_values",
    "floats rounded to 2 places (for readability)": "run_sql_values",
    "chars counts UTF-8 bytes": "log_tool_empty",
    "chars of the output without surrounding whitespace": "log_tool_empty",
    "does not filter on kind": "fetch_tool_output_missing",
    "the id quoted by hand, not with repr()": "fetch_tool_output_missing",
    "empty told by the placeholder text, not by metadata empty": "fetch_tool_output_empty",
    "its own owner pattern, without the 128-character limit": "scan_tables_owner",
    "owner not upper-cased": "scan_tables_owner",
    "IDENTIFIER.match (not fullmatch) and the owner pasted into SQL": "scan_tables_owner",
    "tool_calls lists only the calls that ran (not the refused ones)": "agent_turn_tool_errors",
    "one round too many (rounds <= max_iterations)": "agent_turn_limits",
    "ignores budget_seconds": "agent_turn_limits",
    "an unknown tool gets plain text, not an {'error'} JSON object": "agent_turn_tool_errors",
}

#: More correct answers, each run on its own: notebook -> [(label, {solution grade_id: source})].
#: Each must score full marks (with CORRECT: several styles per TODO).
MORE_CORRECT = {
    "05_tool_output_offload": [
        (
            "metadata built step by step; a loop over the tool outputs",
            {"log_tool": _LOG_STEPS, "fetch_tool_output": _FETCH_LOOP},
        ),
        (
            "memory.add(**fields), compact JSON; Python-side kind filter, newest by id",
            {"log_tool": _LOG_KWARGS, "fetch_tool_output": _FETCH_BY_SUBJECT},
        ),
    ],
    "03_tools_and_skills": [
        (
            "if/elif clamp, two except clauses, json.dumps(default=to_json_value)",
            {"run_sql": _RUN_SQL_DEFAULT},
        ),
        (
            "map(to_json_value), positional readonly_query, sorted pretty JSON",
            {"run_sql": _RUN_SQL_MAP},
        ),
    ],
    "02_retrieval": [
        (
            "a loop, re.split for the kinds text; UNION ALL + GROUP BY instead of a FULL JOIN",
            {"retrieve_knowledge": _RETRIEVE_LOOP, "hybrid_rrf_search": _HYBRID_UNION},
        ),
        (
            "filter() and an explicit sort; txt FULL JOIN vec, CASE, ORDER BY the expression",
            {"retrieve_knowledge": _RETRIEVE_FUNCTIONAL, "hybrid_rrf_search": _HYBRID_TXT_FIRST},
        ),
    ],
    "00_setup": [
        ("the query with the largest first", {"top_carriers_by_teu": _top("n")}),
        ("a correlated subquery per carrier", {"top_carriers_by_teu": _TOP_CORRELATED}),
    ],
    "01_memory": [
        ("every row count in one UNION ALL statement", {"scan_tables": _SCAN_UNION}),
        ("sorted in Python, facts built with dict()", {"scan_tables": _SCAN_LOOP}),
    ],
    "04_agent_loop": [
        ("while True with a helper that runs one call", {"agent_turn": _AGENT_WHILE_TRUE}),
        (
            "an unknown-tool error that does not name the tool (the docstring never asks it)",
            {
                "agent_turn": _agent(
                    refused="                names.append(name)\n"
                    '                output = json.dumps({"error": "not offered"})'
                )
            },
        ),
    ],
}

# --- 06_self_healing_registry ------------------------------------------------------------------
_DECIDE_CONSTANTS = """def decide(stats, states, policy, now):
    changes = []
    for row in stats:
        state = states.get(row["tool"]) or {"state": "closed"}
        if state["state"] == "closed":
            if row["category"] in policy.protected_categories or row["calls"] < policy.min_calls:
                continue
            if 1 - row["success_rate"] >= __RATE__:
                changes.append({"tool": row["tool"], "to": "open", "reason": "failing"})
        elif state["state"] == "open":
            if state.get("retry_at") is not None and state["retry_at"] <= now:
                changes.append({"tool": row["tool"], "to": "half_open", "reason": "retry"})
        elif state["state"] == "half_open":
            if state.get("trial_failures", 0) > 0:
                changes.append({"tool": row["tool"], "to": "open", "reason": "trial failed"})
            elif state.get("trial_successes", 0) >= __TRIALS__:
                changes.append({"tool": row["tool"], "to": "closed", "reason": "recovered"})
    return changes
"""

_STATS_SUBQUERIES = '''def tool_stats(window_calls=20, window_minutes=60):
    # The same window with nested subqueries; ranks for the percentiles written out.
    sql = """
    SELECT w.tool AS tool, COUNT(*) AS calls,
           SUM(CASE WHEN w.success = 1 THEN 1.0 ELSE 0.0 END) / COUNT(*) AS success_rate,
           MIN(CASE WHEN w.speed_rank * 2 >= w.n THEN w.duration_ms END) AS p50_ms,
           MIN(CASE WHEN w.speed_rank * 100 >= w.n * 95 THEN w.duration_ms END) AS p95_ms,
           MAX(CASE WHEN w.success = 0 AND w.fail_order = 1 THEN w.error_message END)
               AS last_error
    FROM (
        SELECT r.*,
               ROW_NUMBER() OVER (PARTITION BY r.tool ORDER BY r.duration_ms) AS speed_rank,
               COUNT(*) OVER (PARTITION BY r.tool) AS n,
               ROW_NUMBER() OVER (PARTITION BY r.tool, r.success ORDER BY r.id DESC)
                   AS fail_order
        FROM (
            SELECT t.gen_ai_tool_name AS tool, t.id, t.success, t.duration_ms,
                   t.error_message,
                   ROW_NUMBER() OVER (PARTITION BY t.gen_ai_tool_name ORDER BY t.id DESC)
                       AS age
            FROM tool_telemetry t
            WHERE t.started_at >= :since AND t.success IN (0, 1)
        ) r
        WHERE r.age <= :window_calls
    ) w
    GROUP BY w.tool
    """
    stats = []
    for r in h.backend.query(sql, window_binds(h, window_calls, window_minutes)):
        stats.append(dict(tool=r["tool"], calls=r["calls"], success_rate=r["success_rate"],
                          p50_ms=r["p50_ms"], p95_ms=r["p95_ms"], last_error=r["last_error"]))
    return stats
'''

_DECIDE_TABLE = """def decide(stats, states, policy, now):
    def closed(row, state):
        if row["category"] in policy.protected_categories:
            return None
        if row["calls"] >= policy.min_calls and 1 - row["success_rate"] >= policy.failure_rate:
            return "open", f"failure rate {1 - row['success_rate']:.2f}"
        return None

    def opened(row, state):
        retry = state.get("retry_at")
        return ("half_open", "time to try again") if retry is not None and now >= retry else None

    def half_open(row, state):
        if state.get("trial_failures", 0):
            return "open", "trial failed"
        if state.get("trial_successes", 0) >= policy.half_open_trials:
            return "closed", "trials passed"
        return None

    rules = {"closed": closed, "open": opened, "half_open": half_open}
    out = []
    for row in stats:
        state = states.get(row["tool"], {"state": "closed"})
        change = rules[state["state"]](row, state)
        if change:
            out.append({"tool": row["tool"], "to": change[0], "reason": change[1]})
    return out
"""

_SELECT_KEYED = """def select_tools(query, k=5, categories=None):
    def score(row):
        track = (row["successes"] + 2) / (row["calls"] + 2)
        p50 = row["p50_ms"]
        speed = 1.0 if p50 is None else 1000.0 / (1000.0 + p50)
        return row["similarity"] - 0.10 * (1 - track) - 0.05 * (1 - speed)

    wanted = None if categories is None else set(categories)
    rows = [r for r in h.tools.candidates(query)
            if r["state"] != "open" and (wanted is None or r["category"] in wanted)]
    rows.sort(key=lambda r: (-score(r), r["name"]))
    return [r["name"] for r in rows][:k]
"""

_STATS_CUME_DIST = '''def tool_stats(window_calls=20, window_minutes=60):
    # Percentiles from CUME_DIST: the smallest duration whose cumulative share reaches p;
    # the last error from FIRST_VALUE over the failures first, newest first.
    sql = """
    WITH ran AS (
        SELECT gen_ai_tool_name AS tool, id, success, duration_ms, error_message,
               COUNT(*) OVER (PARTITION BY gen_ai_tool_name ORDER BY id DESC
                              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS recency
        FROM tool_telemetry
        WHERE success IS NOT NULL AND started_at >= :since
    ), win AS (
        SELECT tool, success, duration_ms,
               CUME_DIST() OVER (PARTITION BY tool ORDER BY duration_ms) AS share,
               FIRST_VALUE(CASE WHEN success = 0 THEN error_message END) OVER (
                   PARTITION BY tool ORDER BY CASE WHEN success = 0 THEN 0 ELSE 1 END, id DESC
               ) AS newest_error
        FROM ran
        WHERE recency <= :window_calls
    )
    SELECT tool, COUNT(*) AS calls, AVG(CASE WHEN success = 1 THEN 1.0 ELSE 0.0 END) AS rate,
           MIN(CASE WHEN share >= 0.5 THEN duration_ms END) AS p50,
           MIN(CASE WHEN share >= 0.95 THEN duration_ms END) AS p95,
           MAX(newest_error) AS last_error
    FROM win
    GROUP BY tool
    """
    out = []
    for r in h.backend.query(sql, window_binds(h, window_calls, window_minutes)):
        out.append({"tool": r["tool"], "calls": int(r["calls"]), "success_rate": r["rate"],
                    "p50_ms": r["p50"], "p95_ms": r["p95"], "last_error": r["last_error"]})
    return out
'''

_STATS_JOIN = """def tool_stats(window_calls=20, window_minutes=60):
    binds = window_binds(h, window_calls=window_calls, window_minutes=window_minutes)
    sql = (
        "SELECT w.tool, COUNT(*) AS calls, SUM(w.success) AS ok,"
        " MIN(CASE WHEN 100 * w.by_speed >= 50 * n.total THEN w.duration_ms END) AS p50_ms,"
        " MIN(CASE WHEN 100 * w.by_speed >= 95 * n.total THEN w.duration_ms END) AS p95_ms,"
        " MAX(CASE WHEN w.success = 0 AND w.fail_rank = 1 THEN w.error_message END) AS last_error"
        " FROM (SELECT t.*, ROW_NUMBER() OVER (PARTITION BY t.tool ORDER BY t.duration_ms, t.id)"
        "         AS by_speed,"
        "       ROW_NUMBER() OVER (PARTITION BY t.tool, t.success ORDER BY t.id DESC) AS fail_rank"
        "       FROM (SELECT gen_ai_tool_name AS tool, id, success, duration_ms, error_message,"
        "             ROW_NUMBER() OVER (PARTITION BY gen_ai_tool_name ORDER BY id DESC) AS age"
        "             FROM tool_telemetry"
        "             WHERE success IS NOT NULL AND started_at >= :since) t"
        "       WHERE t.age <= :window_calls) w"
        " JOIN (SELECT gen_ai_tool_name AS tool, COUNT(*) AS total FROM ("
        "         SELECT gen_ai_tool_name, ROW_NUMBER() OVER ("
        "           PARTITION BY gen_ai_tool_name ORDER BY id DESC) AS age"
        "         FROM tool_telemetry WHERE success IS NOT NULL AND started_at >= :since) a"
        "       WHERE a.age <= :window_calls GROUP BY gen_ai_tool_name) n ON n.tool = w.tool"
        " GROUP BY w.tool"
    )
    rows = h.backend.query(sql, binds)
    return [dict(tool=r["tool"], calls=int(r["calls"]), success_rate=r["ok"] / r["calls"],
                 p50_ms=float(r["p50_ms"]), p95_ms=float(r["p95_ms"]),
                 last_error=r["last_error"]) for r in rows]
"""

_DECIDE_MATCH = """def decide(stats, states, policy, now):
    def change(row, state):
        match state.get("state", "closed"):
            case "closed":
                if (row["category"] not in policy.protected_categories
                        and row["calls"] >= policy.min_calls
                        and (failing := 1 - row["success_rate"]) >= policy.failure_rate):
                    return "open", f"{failing:.0%} of {row['calls']} calls failed"
            case "open":
                retry = state.get("retry_at")
                if retry is not None and not retry > now:
                    return "half_open", "cool-down over, let a trial through"
            case "half_open":
                if state.get("trial_failures", 0):
                    return "open", "a trial call failed"
                if state.get("trial_successes", 0) >= policy.half_open_trials:
                    return "closed", "enough trial calls succeeded"
        return None

    decisions = []
    for row in stats:
        found = change(row, states.get(row["tool"]) or {})
        if found is not None:
            decisions.append({"tool": row["tool"], "to": found[0], "reason": found[1]})
    return decisions
"""

_DECIDE_COMPREHENSION = """def decide(stats, states, policy, now):
    closed = {"state": "closed", "retry_at": None, "trial_successes": 0, "trial_failures": 0}

    def target(row):
        s = {**closed, **states.get(row["tool"], {})}
        if s["state"] == "closed":
            opens = (row["category"] not in policy.protected_categories
                     and row["calls"] >= policy.min_calls
                     and 1 - row["success_rate"] >= policy.failure_rate)
            return "open" if opens else None
        if s["state"] == "open":
            return "half_open" if s["retry_at"] is not None and s["retry_at"] <= now else None
        if s["state"] == "half_open":
            if s["trial_failures"] > 0:
                return "open"
            return "closed" if s["trial_successes"] >= policy.half_open_trials else None
        return None

    why = {"open": "too many failures", "half_open": "retry time reached",
           "closed": "trial calls passed"}
    targets = [(row["tool"], target(row)) for row in stats]
    return [{"tool": tool, "to": to, "reason": why[to]} for tool, to in targets if to]
"""

_SELECT_HEAP = """def select_tools(query, k=5, categories=None):
    import heapq

    keep = set(categories) if categories is not None else None
    ranked = []
    for row in h.tools.candidates(query):
        if row["state"] == "open" or (keep is not None and row["category"] not in keep):
            continue
        track = (row["successes"] + 2) / (row["calls"] + 2)
        speed = 1.0 if row["p50_ms"] is None else 1000 / (1000 + row["p50_ms"])
        ranked.append((-(row["similarity"] - 0.10 * (1 - track) - 0.05 * (1 - speed)),
                       row["name"]))
    return [name for _, name in heapq.nsmallest(max(k, 0), ranked)]
"""

_SELECT_TWO_SORTS = """def select_tools(query, k=5, categories=None):
    def score(row):
        penalty = 0.10 * (1 - (row["successes"] + 2) / (row["calls"] + 2))
        if row["p50_ms"] is not None:
            penalty += 0.05 * (1 - 1000 / (1000 + row["p50_ms"]))
        return row["similarity"] - penalty

    rows = [row for row in h.tools.candidates(query) if row["state"] != "open"]
    if categories is not None:
        rows = [row for row in rows if row["category"] in categories]
    rows.sort(key=lambda row: row["name"])            # names A to Z first ...
    rows.sort(key=score, reverse=True)                # ... a stable sort keeps them for ties
    return [row["name"] for row in rows[:k]]
"""

_STATS = '''def tool_stats(window_calls=20, window_minutes=60):
    sql = """
    WITH ran AS (
        SELECT gen_ai_tool_name AS tool, id, success, duration_ms, error_message,
               ROW_NUMBER() OVER (PARTITION BY gen_ai_tool_name ORDER BY id DESC) AS recency
        FROM tool_telemetry
        WHERE success IS NOT NULL AND started_at >= :since
    ), windowed AS (
        SELECT tool, id, success, duration_ms, error_message,
               ROW_NUMBER() OVER (PARTITION BY tool ORDER BY duration_ms, id) AS speed_rank,
               COUNT(*) OVER (PARTITION BY tool) AS n,
               ROW_NUMBER() OVER (PARTITION BY tool, success ORDER BY id DESC) AS newest
        FROM ran
        WHERE __WINDOW__
    )
    SELECT tool,
           COUNT(*) AS calls,
           1.0 * SUM(success) / COUNT(*) AS success_rate,
           MIN(CASE WHEN 100 * speed_rank >= 50 * n THEN duration_ms END) AS p50_ms,
           MIN(CASE WHEN 100 * speed_rank >= 95 * n THEN duration_ms END) AS p95_ms,
           __LAST_ERROR__ AS last_error
    FROM windowed
    GROUP BY tool
    """
    rows = h.backend.query(sql, window_binds(h, window_calls, window_minutes))
    return [
        {"tool": r["tool"], "calls": int(r["calls"]), "success_rate": float(r["success_rate"]),
         "p50_ms": float(r["p50_ms"]), "p95_ms": float(r["p95_ms"]),
         "last_error": r["last_error"]}
        for r in rows
    ]
'''


def _stats(
    last_error: str = "MAX(CASE WHEN success = 0 AND newest = 1 THEN error_message END)",
    window: str = "recency <= :window_calls",
) -> str:
    """tool_stats as the solution writes it, with the last error or the window replaced."""
    return _STATS.replace("__LAST_ERROR__", last_error).replace("__WINDOW__", window)


_STATS_LIMIT = _stats(
    window="id IN (SELECT u.id FROM tool_telemetry u WHERE u.gen_ai_tool_name = ran.tool"
    " AND u.success IS NOT NULL AND u.started_at >= :since ORDER BY u.id DESC"
    " LIMIT :window_calls)"
)

_SELECT = """def select_tools(query, k=5, categories=None):
    scored = []
    for row in h.tools.candidates(query):
        if __KEEP__ and row["category"] not in categories:
            continue
        if row["state"] == "open":
            continue
        track = (row["successes"] + 2) / (row["calls"] + 2)
        speed = 1.0 if row["p50_ms"] is None else 1000 / (1000 + row["p50_ms"])
        score = row["similarity"] - 0.10 * (1 - track) - 0.05 * (1 - speed)
        scored.append((-score, row["name"]))
    return [name for _, name in sorted(scored)[:k]]
"""

_DECIDE_POLICY = _DECIDE_CONSTANTS.replace("__RATE__", "policy.failure_rate").replace(
    "__TRIALS__", "policy.half_open_trials"
)

#: Wrong only on inputs the visible checks do not use (a value check must catch them).
WRONG["06_self_healing_registry"] = {
    "tool_stats": [
        (
            "last_error: the failure message that sorts first, not the newest",
            _stats(last_error="MIN(CASE WHEN success = 0 THEN error_message END)"),
        ),
    ],
}
#: Issue 22, item 6: these passed every visible check of 06 and lost points only at grading;
#: each now meets a visible case at the boundary its TODO sentence states.
VISIBLE["06_self_healing_registry"] = {
    "tool_stats": [
        (
            "last_error: the failure message that sorts last, not the newest",
            _stats(last_error="MAX(CASE WHEN success = 0 THEN error_message END)"),
        ),
        ("the window cut with LIMIT (runs on SQLite only)", _STATS_LIMIT),
    ],
    "decide": [
        (
            "the failure-rate threshold fixed at 0.5, not the policy's",
            _DECIDE_CONSTANTS.replace("__RATE__", "0.5").replace(
                "__TRIALS__", "policy.half_open_trials"
            ),
        ),
        (
            "two successful trials always close it, whatever half_open_trials says",
            _DECIDE_CONSTANTS.replace("__RATE__", "policy.failure_rate").replace("__TRIALS__", "2"),
        ),
        (
            "open tools go half_open only once retry_at is strictly past",
            _DECIDE_POLICY.replace('state["retry_at"] <= now', 'state["retry_at"] < now'),
        ),
        (
            "1 - success_rate computed before calls is checked (None for an unused tool)",
            _DECIDE_POLICY.replace(
                '        if state["state"] == "closed":\n',
                '        failing = 1 - row["success_rate"]\n'
                '        if state["state"] == "closed":\n',
            ).replace(
                'if 1 - row["success_rate"] >= policy.failure_rate',
                "if failing >= policy.failure_rate",
            ),
        ),
    ],
    "select_tools": [
        (
            "if categories: (an empty list keeps every tool)",
            _SELECT.replace("__KEEP__", "categories"),
        ),
    ],
}
COVERED_BY.update(
    {
        "last_error: the failure message that sorts first, not the newest": "tool_stats_checks",
        "last_error: the failure message that sorts last, not the newest": "tool_stats_checks",
        "the window cut with LIMIT (runs on SQLite only)": "tool_stats_checks",
        "open tools go half_open only once retry_at is strictly past": "decide_open",
        "the failure-rate threshold fixed at 0.5, not the policy's": "decide_checks",
        "two successful trials always close it, whatever half_open_trials says": (
            "decide_half_open"
        ),
        "1 - success_rate computed before calls is checked (None for an unused tool)": (
            "decide_checks"
        ),
        "if categories: (an empty list keeps every tool)": "select_tools_filters",
    }
)
CORRECT["06_self_healing_registry"] = {
    "tool_stats": _STATS_SUBQUERIES,
    "decide": _DECIDE_TABLE,
    "select_tools": _SELECT_KEYED,
}
MORE_CORRECT["06_self_healing_registry"] = [
    (
        "CUME_DIST and FIRST_VALUE; match/case; heapq.nsmallest",
        {"tool_stats": _STATS_CUME_DIST, "decide": _DECIDE_MATCH, "select_tools": _SELECT_HEAP},
    ),
    (
        "a join with the window's counts; a comprehension; two stable sorts",
        {
            "tool_stats": _STATS_JOIN,
            "decide": _DECIDE_COMPREHENSION,
            "select_tools": _SELECT_TWO_SORTS,
        },
    ),
]

# --- 07_progressive_disclosure -----------------------------------------------------------------
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

WRONG["07_progressive_disclosure"] = {
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
VISIBLE["07_progressive_disclosure"] = {
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
COVERED_BY.update(
    {
        "the last access grant met, not the strongest": "resolve_skill_tools_access",
        "WITH RECURSIVE (runs on SQLite only)": "resolve_skill_tools_checks",
        "a default of 0, False or an empty text taken for no default": ("define_sql_tool_required"),
    }
)
ALWAYS_EQUAL["07_progressive_disclosure"] = {
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
CORRECT["07_progressive_disclosure"] = {
    "resolve_skill_tools": _RESOLVE_FLAGGED,
    "disclose": _DISCLOSE_FROMKEYS,
    "define_sql_tool": _DEFINE_SETS,
}
MORE_CORRECT["07_progressive_disclosure"] = [
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
COVERED_BY.update(
    {
        "one cycle per skill reached again": "resolve_skill_tools_cycles",
        "a skill name matched whatever its case": "disclose_unknown_skill",
        "the unknown-skill error lists at most three skills": "disclose_unknown_skill",
        "bind variables found with a regex of its own (':name' inside quotes counts)": (
            "define_sql_tool_binds"
        ),
    }
)

# --- 08_glass_box ------------------------------------------------------------------------------
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
    from agent_harness.token_count import compact_json, count_tokens

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

from agent_harness.token_count import compact_json as _compact
from agent_harness.token_count import count_tokens as _count

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
    from agent_harness.token_count import compact_json, count_tokens

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
    from agent_harness.token_count import compact_json, count_tokens

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

WRONG["08_glass_box"] = {
    "trail_tree": [("nests four levels at most (deeper events dropped)", _TREE_FOUR_LEVELS)],
    "context_budget": [
        ("the manifest found only where a paragraph starts", _BUDGET_PARAGRAPHS),
    ],
}
CORRECT["08_glass_box"] = {
    "trail_tree": _TREE_GROUPED,
    "context_budget": _BUDGET_LINES,
}
MORE_CORRECT["08_glass_box"] = [
    (
        "events sorted in Python, SELECT *, a manifest regex",
        {"trail_tree": _TREE_SORTED_IN_PYTHON, "context_budget": _BUDGET_REGEX},
    ),
    (
        "one joined statement and a stack, the manifest by partition",
        {"trail_tree": _TREE_JOINED_STACK, "context_budget": _BUDGET_PARTITION},
    ),
]
COVERED_BY.update(
    {
        "nests four levels at most (deeper events dropped)": "trail_tree_nesting",
        "the manifest found only where a paragraph starts": "context_budget_manifest",
    }
)

# --- 09_guardrails -----------------------------------------------------------------------------
_ROW_FIXED_REGIONS = """def row_predicate(table, identity):
    known = ["ATLANTIC", "PACIFIC", "INDIAN"]   # the regions as remembered: one is missing
    if table not in ("voyages", "containers", "cargo_items", "vessel_positions", "carriers",
                     "ports", "vessels"):
        raise ValueError(table)
    if identity is None or table in ("carriers", "ports", "vessels"):
        return "1 = 1", {}
    regions = [r for r in known if r in {str(x).upper() for x in identity.get("regions", [])}]
    if not regions:
        return "1 = 0", {}
    listed = ", ".join(f"'{r}'" for r in regions)
    voyages = f"SELECT voyage_id FROM supplychain.voyages WHERE ocean_region IN ({listed})"
    if table == "voyages":
        return f"voyage_id IN ({voyages})", {}
    if table in ("containers", "vessel_positions"):
        return f"voyage_id IN ({voyages})", {}
    return (f"container_no IN (SELECT container_no FROM supplychain.containers"
            f" WHERE voyage_id IN ({voyages}))", {})
"""

_ROW_EXISTS = """def row_predicate(table, identity):
    if table in ("carriers", "ports", "vessels"):
        return "1 = 1", {}
    if table not in ("voyages", "containers", "cargo_items", "vessel_positions"):
        raise ValueError(f"{table} is not covered by the policy")
    if identity is None:
        return "1 = 1", {}
    wanted = []
    for region in identity.get("regions", []):
        if region.upper() not in wanted:
            wanted.append(region.upper())
    if len(wanted) == 0:
        return "1 = 0", {}
    binds = {"region_%d" % n: r for n, r in enumerate(wanted)}
    region_test = "v.ocean_region IN (" + ", ".join(":" + k for k in binds) + ")"
    if table == "voyages":
        return region_test.replace("v.", ""), binds
    if table == "cargo_items":
        return ("EXISTS (SELECT 1 FROM supplychain.containers c JOIN supplychain.voyages v"
                " ON v.voyage_id = c.voyage_id WHERE c.container_no = cargo_items.container_no"
                " AND " + region_test + ")", binds)
    return ("EXISTS (SELECT 1 FROM supplychain.voyages v WHERE v.voyage_id = "
            + table + ".voyage_id AND " + region_test + ")", binds)
"""

_ROW_JOINED = """def row_predicate(table, identity):
    parents = {"voyages": None, "containers": "voyage_id", "vessel_positions": "voyage_id",
               "cargo_items": "container_no"}
    if table not in parents and table not in {"carriers", "ports", "vessels"}:
        raise ValueError("row_predicate: unknown table " + repr(table))
    if table not in parents or identity is None:
        return "1 = 1", {}
    regions = sorted(set(map(str.upper, identity.get("regions") or ())))
    if not regions:
        return "1 = 0", {}
    binds = dict(zip((f"p{i}" for i in range(len(regions))), regions))
    inside = " OR ".join(f"v.ocean_region = :{name}" for name in binds)
    if table == "voyages":
        return "(" + inside.replace("v.", "") + ")", binds
    if parents[table] == "voyage_id":
        return (f"voyage_id IN (SELECT v.voyage_id FROM supplychain.voyages v WHERE {inside})",
                binds)
    return ("container_no IN (SELECT c.container_no FROM supplychain.containers c"
            " JOIN supplychain.voyages v ON v.voyage_id = c.voyage_id"
            f" WHERE {inside})", binds)
"""

_ROW_LITERALS = """def row_predicate(table, identity):
    covered = {"voyages", "containers", "cargo_items", "vessel_positions"}
    if table not in covered | {"carriers", "ports", "vessels"}:
        raise ValueError(table)
    if identity is None or table not in covered:
        return "1 = 1", {}
    regions = {r.strip().upper() for r in identity.get("regions") or []}
    allowed = {"ATLANTIC", "INDIAN", "MEDITERRANEAN", "PACIFIC"} & regions
    if not allowed:
        return "1 = 0", {}
    voyage_ok = "ocean_region IN (" + ", ".join(repr(r) for r in sorted(allowed)) + ")"
    predicate = voyage_ok
    for child, key, parent in (("containers", "voyage_id", "voyages"),
                               ("vessel_positions", "voyage_id", "voyages"),
                               ("cargo_items", "container_no", "containers")):
        if table == child:
            inner = row_predicate(parent, identity)[0]
            predicate = f"{key} IN (SELECT {key} FROM supplychain.{parent} WHERE {inner})"
    return predicate, {}
"""

_DOC_FLOATS = """def voyage_document(harness, voyage_id):
    import hashlib
    import json

    def rows(sql):
        return harness.backend.readonly_query(sql, {"v": voyage_id}, max_rows=10_000).rows

    found = rows("SELECT voyage_id, voyage_code, status, ocean_region"
                 " FROM supplychain.voyages WHERE voyage_id = :v")
    if not found:
        return None
    _id, code, status, region = found[0]
    boxes = rows("SELECT c.container_no, c.status, SUM(i.quantity * i.unit_value_cents * 1.0)"
                 " FROM supplychain.containers c"
                 " LEFT JOIN supplychain.cargo_items i ON i.container_no = c.container_no"
                 " WHERE c.voyage_id = :v GROUP BY c.container_no, c.status"
                 " ORDER BY c.container_no")
    doc = {"_id": _id, "voyageCode": code, "status": status, "oceanRegion": region,
           "containers": [{"containerNo": no, "status": st, "cargoValueCents": value}
                          for no, st, value in boxes]}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    doc["_metadata"] = {"etag": hashlib.sha256(text.encode("utf-8")).hexdigest()[:16].upper()}
    return doc
"""

_DOC_PYTHON = """def voyage_document(harness, voyage_id):
    import hashlib
    import json

    read = harness.backend.readonly_query
    voyage = read("SELECT voyage_id, voyage_code, status, ocean_region FROM supplychain.voyages"
                  " WHERE voyage_id = :v", {"v": voyage_id}, max_rows=1).rows
    if len(voyage) == 0:
        return None
    containers = []
    for number, status in sorted(read(
            "SELECT container_no, status FROM supplychain.containers WHERE voyage_id = :v",
            {"v": voyage_id}, max_rows=10_000).rows):
        known = [q * c for q, c in read(
            "SELECT quantity, unit_value_cents FROM supplychain.cargo_items"
            " WHERE container_no = :c", {"c": number}, max_rows=10_000).rows if c is not None]
        containers.append({"containerNo": number, "status": status,
                           "cargoValueCents": sum(known) if known else None})
    document = dict(zip(("_id", "voyageCode", "status", "oceanRegion"), voyage[0]))
    document["containers"] = containers
    body = json.dumps(document, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return {**document, "_metadata": {"etag": hashlib.sha256(body).hexdigest()[:16].upper()}}
"""

_DOC_ONE_JOIN = """def voyage_document(harness, voyage_id):
    import hashlib
    import json

    result = harness.backend.readonly_query(
        "SELECT v.voyage_id, v.voyage_code, v.status, v.ocean_region, c.container_no,"
        " c.status, i.quantity, i.unit_value_cents"
        " FROM supplychain.voyages v"
        " LEFT JOIN supplychain.containers c ON c.voyage_id = v.voyage_id"
        " LEFT JOIN supplychain.cargo_items i ON i.container_no = c.container_no"
        " WHERE v.voyage_id = :v", {"v": voyage_id}, max_rows=100_000)
    if not result.rows:
        return None
    first = result.rows[0]
    boxes = {}
    for _, _, _, _, number, box_status, quantity, cents in result.rows:
        if number is None:
            continue
        box = boxes.setdefault(number, {"containerNo": number, "status": box_status,
                                        "cargoValueCents": None})
        if quantity is not None and cents is not None:
            box["cargoValueCents"] = (box["cargoValueCents"] or 0) + quantity * cents
    doc = {"_id": first[0], "voyageCode": first[1], "status": first[2],
           "oceanRegion": first[3], "containers": [boxes[k] for k in sorted(boxes)]}
    digest = hashlib.sha256(json.dumps(doc, separators=(",", ":"), sort_keys=True)
                            .encode("utf-8")).hexdigest()
    doc["_metadata"] = {"etag": digest[:16].upper()}
    return doc
"""

_DOC_CORRELATED = """def voyage_document(harness, voyage_id):
    import hashlib
    import json

    def query(sql):
        return harness.backend.readonly_query(sql, {"v": voyage_id}, max_rows=5000).rows

    head = query("SELECT voyage_id, voyage_code, status, ocean_region"
                 " FROM supplychain.voyages WHERE voyage_id = :v")
    if not head:
        return None
    boxes = query(
        "SELECT c.container_no, c.status, (SELECT SUM(i.quantity * i.unit_value_cents)"
        " FROM supplychain.cargo_items i WHERE i.container_no = c.container_no)"
        " FROM supplychain.containers c WHERE c.voyage_id = :v ORDER BY 1")
    doc = {"_id": head[0][0], "voyageCode": head[0][1], "status": head[0][2],
           "oceanRegion": head[0][3],
           "containers": [dict(containerNo=b[0], status=b[1], cargoValueCents=b[2])
                          for b in boxes]}
    canonical = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    etag = hashlib.new("sha256", canonical.encode("utf-8")).hexdigest().upper()[:16]
    return doc | {"_metadata": {"etag": etag}}
"""

_FP_THREE_QUERIES = """def catalog_fingerprint(owner):
    import hashlib

    binds = {"o": owner}
    columns = h.backend.query(
        "SELECT table_name, column_name, data_type, nullable FROM all_tab_columns"
        " WHERE owner = :o ORDER BY table_name, column_id", binds)
    tables = h.backend.query(
        "SELECT table_name, comments FROM all_tab_comments WHERE owner = :o"
        " ORDER BY table_name", binds)
    notes = h.backend.query(
        "SELECT table_name, column_name, comments FROM all_col_comments WHERE owner = :o"
        " ORDER BY table_name, column_name", binds)
    digest = hashlib.md5()
    for part in (columns, tables, notes):
        for row in part:
            digest.update(repr(sorted(row.items())).encode("utf-8"))
        digest.update(b"|")
    return digest.hexdigest()
"""

_FP_LIBRARY = """def catalog_fingerprint(owner):
    return h.backend.catalog_watch.fingerprint(owner)
"""

_FP_TEXT = """def catalog_fingerprint(owner):
    lines = []
    for row in h.backend.query(
            "SELECT c.table_name AS t, c.column_name AS c, c.data_type AS d, c.nullable AS n,"
            " (SELECT k.comments FROM all_col_comments k WHERE k.owner = c.owner"
            "  AND k.table_name = c.table_name AND k.column_name = c.column_name) AS ck,"
            " (SELECT tc.comments FROM all_tab_comments tc WHERE tc.owner = c.owner"
            "  AND tc.table_name = c.table_name) AS tk"
            " FROM all_tab_columns c WHERE c.owner = :owner", {"owner": owner}):
        lines.append("\\t".join(str(row[k]) for k in ("t", "c", "d", "n", "ck", "tk")))
    return "\\n".join(sorted(lines))
"""

WRONG["09_guardrails"] = {
    "row_predicate": [("a fixed list of regions without MEDITERRANEAN", _ROW_FIXED_REGIONS)],
}
VISIBLE["09_guardrails"] = {
    "voyage_document": [("cargo values as floats (1234.0)", _DOC_FLOATS)],
}
CORRECT["09_guardrails"] = {
    "row_predicate": _ROW_EXISTS,
    "voyage_document": _DOC_PYTHON,
    "catalog_fingerprint": _FP_THREE_QUERIES,
}
MORE_CORRECT["09_guardrails"] = [
    (
        "a join in the subquery, one query for the document, the library's fingerprint",
        {
            "row_predicate": _ROW_JOINED,
            "voyage_document": _DOC_ONE_JOIN,
            "catalog_fingerprint": _FP_LIBRARY,
        },
    ),
    (
        "literals and recursion, a correlated sum, the catalog as text",
        {
            "row_predicate": _ROW_LITERALS,
            "voyage_document": _DOC_CORRELATED,
            "catalog_fingerprint": _FP_TEXT,
        },
    ),
]
COVERED_BY.update(
    {
        "a fixed list of regions without MEDITERRANEAN": "row_predicate_checks",
        "cargo values as floats (1234.0)": "voyage_document_checks",
    }
)
