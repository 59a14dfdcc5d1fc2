"""The Oracle backend.

Two halves:

* Tests that run everywhere: the pure-Python half (Oracle Text query escaping, the read-only
  statement check, the model file, the embedding-mode decision, the JavaScript wrapper run in
  V8), the SQL fragments' shape, and the error when no database listens. No database is faked.
* Tests marked ``oracle``: every statement of ``agent_harness/backends/oracle/`` against a
  real Oracle AI Database. They are skipped with a stated reason where none is reachable
  (set WORKSHOP_ORACLE_DSN; the GitHub Actions Oracle job does).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import threading
import time
import uuid
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import ORACLE_SKIP
from hypothesis import given, settings
from hypothesis import strategies as st
from test_readonly_sql import HOSTILE
from test_search_fuzz import ADVERSARIAL, SEED_MEMORIES, _check_memories

from agent_harness.backends import BackendError, ReadOnlyViolation, Scope
from agent_harness.backends.oracle import MIGRATIONS, OracleBackend
from agent_harness.backends.oracle.embeddings import (
    CLIENT_MODE,
    DATABASE_MODE,
    ModelSourceError,
    bind_text,
    choose_embedding_mode,
    read_onnx_model,
)
from agent_harness.backends.oracle.javascript import (
    JS_ENVIRONMENT,
    js_string_literal,
    mle_source,
    parse_mle_result,
)
from agent_harness.backends.oracle.readonly import column_label, screen_readonly_sql
from agent_harness.backends.oracle.supplychain import create_table_sql
from agent_harness.backends.oracle.text_query import (
    MAX_TOKEN_BYTES,
    NO_MATCH_WORD,
    contains_query,
    escape_text_token,
)
from agent_harness.foundation.embeddings import DIMENSIONS
from agent_harness.parts.memory import MemoryStore, hybrid_sql
from grader.notebook_folders import notebook_path

ROOT = Path(__file__).resolve().parent.parent
ORACLE = [pytest.mark.oracle, ORACLE_SKIP]


def _unconnected() -> OracleBackend:
    """The backend's SQL-building methods on a recording connection (no database)."""
    from agent_harness.backends.oracle.javascript import OracleJavaScript
    from agent_harness.backends.oracle.memory import OracleMemories
    from agent_harness.foundation.config import Settings
    from tests.oracle_rows import RecordingConnection

    backend = OracleBackend.__new__(OracleBackend)
    backend.db = RecordingConnection()
    backend.memories = OracleMemories(backend.db, lambda: False)
    backend.javascript = OracleJavaScript(Settings.from_env(backend="oracle"))
    return backend


# === Oracle Text query escaping (runs everywhere) ============================================
def _terms(query: str) -> list[str]:
    """Parse a CONTAINS query made of {escaped} terms joined by ' ACCUM '; fail otherwise."""
    terms, i = [], 0
    while True:
        assert query[i] == "{", f"term must start with {{ at {i}: {query!r:.200}"
        i += 1
        term = []
        while True:
            if query[i] == "}":
                if query[i + 1 : i + 2] == "}":  # '}}' is an escaped closing brace
                    term.append("}")
                    i += 2
                    continue
                i += 1
                break
            term.append(query[i])
            i += 1
        terms.append("".join(term))
        if i == len(query):
            return terms
        assert query.startswith(" ACCUM ", i), f"only ACCUM may join terms: {query[i:]!r:.80}"
        i += len(" ACCUM ")


@pytest.mark.parametrize("text", [pytest.param(q, id=case_id) for case_id, q in ADVERSARIAL])
def test_every_hostile_query_becomes_escaped_terms(text):
    query = contains_query(text)
    terms = _terms(query)
    assert terms and all(terms)
    assert len(query.encode("utf-8")) <= 3500
    for term in terms:
        assert len(term.encode("utf-8")) <= MAX_TOKEN_BYTES
        assert term == NO_MATCH_WORD or any(c.isalnum() for c in term), term


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Which vessels were delayed?", "{vessels} ACCUM {delayed}"),
        (
            "NEAR(a, b) AND c OR NOT d ACCUM e",
            "{near} ACCUM {b} ACCUM {c} ACCUM {not} ACCUM {d} ACCUM {accum} ACCUM {e}",
        ),
        (
            "about within minus $stem ?fuzzy !sound",
            "{about} ACCUM {within} ACCUM {minus} ACCUM {stem} ACCUM {fuzzy} ACCUM {sound}",
        ),
        ("100% vessel_id {x}", "{100} ACCUM {vessel_id} ACCUM {x}"),
        ("", "{" + NO_MATCH_WORD + "}"),
        ("!!! --- ;;; ___", "{" + NO_MATCH_WORD + "}"),
        (None, "{" + NO_MATCH_WORD + "}"),
    ],
)
def test_contains_query_examples(text, expected):
    assert contains_query(text) == expected


def test_a_closing_brace_is_doubled_inside_the_escape():
    assert escape_text_token("a}b") == "{a}}b}"
    assert _terms(escape_text_token("}}{")) == ["}}{"]


def test_long_words_are_cut_at_oracle_texts_255_byte_token_limit():
    # Oracle Text (18c+) indexes tokens of up to 255 bytes; a 64-byte cut (the pre-18c limit)
    # would lose the end of every long word, e.g. a container manifest id or a URL slug.
    assert MAX_TOKEN_BYTES == 255
    assert _terms(contains_query("x" * 500)) == ["x" * 255]
    assert _terms(contains_query("y" * 200)) == ["y" * 200]  # kept whole, not cut at 64
    (cjk,) = _terms(contains_query("漢" * 500))  # 3 bytes each: 85 characters, no half one
    assert cjk == "漢" * 85 and len(cjk.encode("utf-8")) == 255
    assert _terms(contains_query("é" * 200)) == ["é" * 127]  # 2 bytes each


def test_long_queries_are_cut():
    many = " ".join(f"w{i:03d}{'é' * 20}" for i in range(64))
    assert len(contains_query(many).encode("utf-8")) <= 3500


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=400))
def test_contains_query_never_raises_and_always_parses(text):
    assert _terms(contains_query(text))


# === the SQL fragments' contract (runs everywhere) ===========================================
def test_fragments_use_the_hnsw_index_and_oracle_text():
    backend = _unconnected()
    vec = backend.vector_ranked_sql(2, exclude=True)
    assert "VECTOR_DISTANCE(mv.embedding, :qv, COSINE)" in vec
    assert "FETCH APPROX FIRST :per_list ROWS ONLY" in vec
    assert "mv.kind NOT IN (:kind0, :kind1)" in vec
    txt = backend.text_ranked_sql(1)
    assert "CONTAINS(mt.content, :q, 1) > 0" in txt and "SCORE(1)" in txt
    assert "mt.kind IN (:kind0)" in txt
    assert backend.top_k_sql() == "FETCH FIRST :k ROWS ONLY"
    for fragment in (vec, txt):  # each ranked fragment returns (id, r, score)
        assert re.match(r"SELECT \w+\.id, ROW_NUMBER\(\) OVER \(.*\) AS r, \w+\.score ", fragment)


def _sql_of_notebook_piece(name: str) -> str:
    """The Oracle piece ``-- <name>`` that notebook 02 shows, comments dropped, spaces folded."""
    cells = json.loads((notebook_path("02_retrieval")).read_text(encoding="utf-8"))
    text = next(
        "".join(c["source"])
        for c in cells["cells"]
        if c["cell_type"] == "markdown" and "The same pieces on Oracle" in "".join(c["source"])
    )
    block = text.split("```sql\n", 1)[1].split("```", 1)[0]
    pieces = re.split(r"^-- (VEC|TXT|TOP_K)\b.*$", block, flags=re.M)
    piece = dict(zip(pieces[1::2], pieces[2::2]))[name]
    return " ".join(line for line in piece.splitlines() if not line.lstrip().startswith("--"))


def _folded(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).replace("( ", "(").replace(" )", ")").strip()


@pytest.mark.parametrize(
    ("name", "fragment"),
    [("VEC", "vector_ranked_sql"), ("TXT", "text_ranked_sql"), ("TOP_K", "top_k_sql")],
)
def test_notebook_02_shows_the_oracle_pieces_the_backend_runs(name, fragment):
    assert _folded(_sql_of_notebook_piece(name)) == _folded(getattr(_unconnected(), fragment)())


def test_hybrid_statement_binds_are_exactly_what_memory_search_passes():
    statement = hybrid_sql(_unconnected(), n_kinds=2)
    binds = set(re.findall(r":([a-z_0-9]+)", statement))  # the TO_CHAR format is upper case
    assert binds == {"qv", "q", "per_list", "user_id", "agent_id", "k", "rrf_k", "kind0", "kind1"}


def test_vector_bind_is_a_float32_array_of_384():
    bound = _unconnected().vector_bind(np.ones(DIMENSIONS))
    assert bound.typecode == "f" and len(bound) == DIMENSIONS
    with pytest.raises(BackendError, match="384"):
        _unconnected().vector_bind([0.0] * 3)


def test_migrations_keep_their_shipped_names():
    from agent_harness.backends.embedded import MIGRATIONS as EMBEDDED

    assert MIGRATIONS.names()[:4] == [
        "m001_create_memory",
        "m002_create_toolbox_and_skillbox",
        "m003_create_scratchpad",
        "m004_create_settings",
    ]
    assert MIGRATIONS.names() == EMBEDDED.names()  # one set of tables, both dialects
    objects = [step.name for m in MIGRATIONS for step in m.steps]
    assert len(objects) == len(set(objects)) and all(n == n.upper() for n in objects)


def test_supplychain_tables_get_invisible_locations():
    from agent_harness.supplychain import TABLES

    ddl = {t.name: create_table_sql(t) for t in TABLES}
    assert "location SDO_GEOMETRY INVISIBLE" in ddl["ports"]
    assert "location SDO_GEOMETRY INVISIBLE" in ddl["vessel_positions"]
    assert "SDO_GEOMETRY" not in ddl["vessels"]
    assert "CONSTRAINT vessels_carrier_id_fk FOREIGN KEY (carrier_id)" in ddl["vessels"]


# === the read-only statement check (runs everywhere) =========================================
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT COUNT(*) AS n FROM supplychain.vessels",
        "  select count(*) as n from VESSELS  ",
        "-- how many?\nSELECT COUNT(*) AS n FROM vessels",
        "/* hi */ WITH v AS (SELECT * FROM vessels) SELECT COUNT(*) FROM v",
        "(SELECT 1 FROM dual)",
        "SELECT 1 FROM dual;",
        "SELECT 1 FROM dual ;  \n ;",
        "SELECT ';' AS semicolon, 'FOR UPDATE' AS words, '--' AS dashes FROM dual",
        "SELECT q'[it's; FOR UPDATE]' AS q, nq'{x;y}' AS n FROM dual",
        'SELECT 1 AS "FOR UPDATE;" FROM dual',
        "SELECT name FROM ports WHERE name LIKE 'a%' -- trailing; comment",
        "SELECT 1 AS update_count, 'DELETE' AS word, \"MERGE\" FROM dual",
    ],
)
def test_plain_queries_pass_the_check(sql):
    statement = screen_readonly_sql(sql)
    assert not statement.rstrip().endswith(";")
    assert statement.strip() and sql.startswith(statement[:5])


# (id, SQL, what the error must say) for the Oracle path; each must change nothing.
ORACLE_HOSTILE: list[tuple[str, str, str]] = [
    ("insert", "INSERT INTO supplychain.ports (port_code) VALUES ('ZZZZZ')", "read-only"),
    ("update", "UPDATE supplychain.vessels SET capacity_teu = 0", "read-only"),
    ("delete", "DELETE FROM supplychain.cargo_items", "read-only"),
    (
        "merge",
        "MERGE INTO supplychain.ports p USING dual ON (1 = 1)"
        " WHEN MATCHED THEN UPDATE SET p.name = 'x'",
        "read-only",
    ),
    ("truncate", "TRUNCATE TABLE supplychain.cargo_items", "read-only"),
    ("drop", "DROP TABLE supplychain.cargo_items", "read-only"),
    ("create", "CREATE TABLE evil (x NUMBER)", "read-only"),
    ("alter-table", "ALTER TABLE supplychain.ports ADD (x NUMBER)", "read-only"),
    ("alter-session", "ALTER SESSION SET CURRENT_SCHEMA = WORKSHOP", "read-only"),
    ("grant", "GRANT SELECT ON supplychain.ports TO PUBLIC", "read-only"),
    ("lock", "LOCK TABLE supplychain.ports IN EXCLUSIVE MODE", "read-only"),
    ("begin-block", "BEGIN DELETE FROM supplychain.ports; END;", "read-only"),
    ("declare-block", "DECLARE x NUMBER; BEGIN NULL; END;", "read-only"),
    ("call", "CALL dbms_output.put_line('x')", "read-only"),
    ("exec", "EXEC dbms_lock.sleep(10)", "read-only"),
    ("commit", "COMMIT", "read-only"),
    ("set-transaction", "SET TRANSACTION READ WRITE", "read-only"),
    ("explain-plan", "EXPLAIN PLAN FOR SELECT * FROM supplychain.ports", "read-only"),
    (
        "with-function",
        "WITH FUNCTION f RETURN NUMBER IS BEGIN RETURN 1; END; SELECT f FROM dual",
        "read-only",
    ),
    ("with-procedure", "WITH PROCEDURE p IS BEGIN NULL; END; SELECT 1 FROM dual", "read-only"),
    ("cte-delete", "WITH x AS (SELECT 1 FROM dual) DELETE FROM supplychain.ports", "read-only"),
    (
        "cte-insert",
        "with x as (select 1 from dual) insert into supplychain.ports (port_code)"
        " select 'ZZZZZ' from x",
        "read-only",
    ),
    ("for-update", "SELECT * FROM supplychain.ports FOR UPDATE", "read-only"),
    ("for-update-nowait", "select * from supplychain.ports for  update nowait", "read-only"),
    ("select-then-delete", "SELECT 1 FROM dual; DELETE FROM supplychain.ports", "one sql"),
    ("select-then-select", "SELECT 1 FROM dual; SELECT 2 FROM dual", "one sql"),
    ("comment-hides-delete", "/* SELECT */ DELETE FROM supplychain.ports", "read-only"),
    ("line-comment-hides", "-- SELECT\nDELETE FROM supplychain.ports", "read-only"),
    ("literal-then-delete", "SELECT 'a' FROM dual; DELETE FROM supplychain.ports", "one sql"),
    ("q-quote-then-delete", "SELECT q'[;]' FROM dual; DELETE FROM supplychain.ports", "one sql"),
    ("unterminated-comment", "/* SELECT 1 FROM dual", "no sql statement"),
    ("only-semicolons", ";;", "no sql statement"),
    ("empty", "   ", "empty"),
]


@pytest.mark.parametrize(
    ("sql", "phrase"), [pytest.param(sql, p, id=i) for i, sql, p in ORACLE_HOSTILE]
)
def test_the_check_refuses_with_a_clear_message(sql, phrase):
    with pytest.raises(BackendError) as raised:
        screen_readonly_sql(sql)
    message = str(raised.value).lower()
    assert phrase in message, message
    if phrase == "read-only":
        assert isinstance(raised.value, ReadOnlyViolation) and "select" in message


@pytest.mark.parametrize("sql", [pytest.param(sql, id=i) for i, sql, _ in HOSTILE])
def test_the_embedded_corpus_is_refused_unless_it_is_a_single_query(sql):
    # The check alone refuses anything that is not ONE SELECT/WITH statement; the rest (e.g.
    # SQLite-only functions) reaches the read-only user, who cannot change anything.
    sql = sql.format(scratch="/tmp/x", harness_db="/tmp/h.db")
    try:
        statement = screen_readonly_sql(sql)
    except BackendError:
        return
    code = re.sub(r"--[^\n]*|/\*.*?\*/", " ", statement, flags=re.S)
    assert re.match(r"[\s(]*(SELECT|WITH)\b", code, re.I), statement
    assert ";" not in re.sub(r"'[^']*'", "''", code), statement


def test_column_labels_read_as_written():
    assert [column_label(n) for n in ("N", "PORT_CODE", "Total", "COUNT(*)")] == [
        "n",
        "port_code",
        "Total",
        "count(*)",
    ]


# === the model file and the embedding mode (runs everywhere) ================================
def _zip_with(tmp_path: Path, members: dict[str, bytes]) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    path = tmp_path / "model.zip"
    path.write_bytes(buffer.getvalue())
    return path


def test_the_onnx_file_is_read_from_a_zip_or_as_is(tmp_path):
    zipped = _zip_with(tmp_path, {"README.txt": b"x", "all_MiniLM_L12_v2.onnx": b"ONNX-BYTES"})
    assert read_onnx_model(str(zipped)) == b"ONNX-BYTES"
    bare = tmp_path / "m.onnx"
    bare.write_bytes(b"\x08\x07onnx")
    assert read_onnx_model(str(bare)) == b"\x08\x07onnx"
    assert read_onnx_model(bare.as_uri()) == b"\x08\x07onnx"


def test_a_bad_model_source_says_what_is_wrong(tmp_path):
    with pytest.raises(ModelSourceError, match="no ONNX model file"):
        read_onnx_model(str(tmp_path / "missing.zip"))
    with pytest.raises(ModelSourceError, match="without a .onnx"):
        read_onnx_model(str(_zip_with(tmp_path, {"README.txt": b"x"})))
    started = time.monotonic()
    with pytest.raises(ModelSourceError, match="cannot download"):
        read_onnx_model("http://127.0.0.1:1/all_MiniLM_L12_v2_augmented.zip", timeout_s=5)
    assert time.monotonic() - started < 10


def test_a_downloaded_model_is_read_from_the_cache_next_time(tmp_path):
    cache = tmp_path / "onnx"
    cache.mkdir()
    (cache / "model.zip").write_bytes(_zip_with(tmp_path, {"m.onnx": b"CACHED"}).read_bytes())
    assert read_onnx_model("http://127.0.0.1:1/model.zip", cache_dir=cache) == b"CACHED"


def test_embedding_mode_falls_back_to_client_side_and_says_why():
    calls = []
    disabled = choose_embedding_mode("none", lambda: calls.append(1) or "loaded")
    assert (disabled.key, calls) == (CLIENT_MODE, []) and "none" in disabled.reason
    loaded = choose_embedding_mode("https://example.invalid/m.zip", lambda: "loaded it")
    assert loaded.key == DATABASE_MODE and loaded.in_database and loaded.reason == "loaded it"

    def refuse():
        raise BackendError("ORA-54408: not a model input")

    fallback = choose_embedding_mode("/models/m.zip", refuse)
    assert fallback.key == CLIENT_MODE and not fallback.in_database
    assert "ORA-54408" in fallback.reason


def test_bound_text_is_never_empty_and_always_encodable():
    assert bind_text("") == " " and bind_text("\x00") == " "
    assert bind_text("a\ud800b").encode("utf-8")
    assert len(bind_text("x" * 10_000)) == 1000


# === the exec_js wrapper, run in V8 exactly as MLE runs it (runs everywhere) ===============
def _run_wrapper(code: str, host_require: bool = False) -> dict:
    """Evaluate the wrapper as one script and read its completion value, which is what
    DBMS_MLE.eval(..., result => clob) appends to the CLOB ("Returning the Result of the Last
    Execution", Oracle JavaScript Developer's Guide). V8, like a PURE MLE context, has no
    ``require``; ``host_require`` adds one that throws, to show the wrapper never calls it."""
    from py_mini_racer import MiniRacer

    ctx = MiniRacer()
    try:
        if host_require:
            ctx.eval("globalThis.require = function () { throw new Error('require called'); };")
        assert ctx.eval("typeof require") == ("function" if host_require else "undefined")
        return parse_mle_result(ctx.eval(mle_source(code)))
    finally:
        ctx.close()


def test_the_js_wrapper_needs_no_require_and_no_bindings():
    # A PURE context has no require (JavaScript Developer's Guide, "About Restricted Execution
    # Contexts"): the wrapper must not reach for mle-js-bindings or any other module.
    source = mle_source("1 + 1")
    assert "require(" not in source and "mle-js-bindings" not in source
    assert _run_wrapper("1 + 1") == {"result": 2, "console": []}
    assert _run_wrapper("1 + 1", host_require=True) == {"result": 2, "console": []}


def test_the_result_clob_may_hold_the_json_text_or_its_quoted_form():
    text = json.dumps({"result": [1, "a"], "console": ["x"]})
    assert parse_mle_result(text) == {"result": [1, "a"], "console": ["x"]}
    assert parse_mle_result(json.dumps(text)) == {"result": [1, "a"], "console": ["x"]}
    for unreadable in (None, "", "42", "not json", json.dumps("still not an object")):
        assert "no readable result" in parse_mle_result(unreadable)["error"]


def _node_repl(text: str, quote: str) -> str:
    """A string as a Node.js REPL shows it (util.inspect): quoted, backslashes and the quote
    escaped, control characters as escapes."""
    body = text.replace("\\", "\\\\").replace(quote, "\\" + quote).replace("\n", "\\n")
    return quote + body + quote


@pytest.mark.parametrize("quote", ["'", "`", '"'])
def test_the_result_clob_may_hold_the_text_as_a_node_repl_shows_a_string(quote):
    # DBMS_MLE.eval's result mimics a Node.js REPL ("Returning the Result of the Last
    # Execution"): a string may come back in single quotes, or backticks when it holds both.
    outcome = {"result": ["it's", "caf\u00e9\nnext", "a\\b", "`tick`"], "console": ["x"]}
    text = json.dumps(outcome, ensure_ascii=False)
    assert parse_mle_result(_node_repl(text, quote)) == outcome
    # Any character may be escaped (util.inspect escapes control characters as \\xHH/\\uHHHH).
    assert js_string_literal("'\\u007b\\x41\\u{1F600}\\'\\n'") == "{A\U0001f600'\n"
    assert "no readable result" in parse_mle_result(quote + "not json" + quote)["error"]
    assert "no readable result" in parse_mle_result("'\\xZZ'")["error"]


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (
            "console.log('n =', 3, {a: 1}); [1, 2, 3].map(x => x * 2)",
            {"result": [2, 4, 6], "console": ['n = 3 {"a":1}']},
        ),
        ("Math.max(3, 9, 4)", {"result": 9, "console": []}),
        ("undefined", {"result": None, "console": []}),
        ("typeof require", {"result": "undefined", "console": []}),
        ("const xs = [3, 1, 2]; xs.sort((a, b) => a - b)[1]", {"result": 2, "console": []}),
        (
            '"quotes \\" and ` and </script> and \\u2028"',
            {"result": 'quotes " and ` and </script> and \u2028', "console": []},
        ),
    ],
)
def test_the_js_wrapper_returns_the_last_value_and_the_console(code, expected):
    assert _run_wrapper(code) == expected


def test_the_js_wrapper_reports_errors_as_data():
    out = _run_wrapper("console.log('before'); throw new Error('boom')")
    assert "boom" in out["error"] and out["console"] == ["before"]
    assert "SyntaxError" in _run_wrapper("this is not javascript")["error"]


def test_once_mle_has_failed_exec_js_runs_in_v8_and_says_why():
    backend = _unconnected()
    backend.javascript.unavailable = "MLE failed in the database (ORA-04102: example)"
    out = backend.run_js("console.log('x'); 6 * 7", 1000)
    assert (out["result"], out["console"]) == (42, ["x"])
    assert "client-side V8 sandbox" in out["note"] and "ORA-04102" in out["note"]
    assert backend.run_js("   ", 1000) is None  # empty code: the sandbox words that error


def test_a_long_console_is_cut():
    out = parse_mle_result(json.dumps({"result": 1, "console": ["x" * 15_000] * 3}))
    assert out["console"][-1].startswith("...[console output cut")


# === the connection error (runs everywhere: nothing listens on port 1) =======================
def test_open_backend_without_a_listener_fails_fast_with_the_fix(monkeypatch):
    from agent_harness.backends import open_backend
    from agent_harness.foundation.config import Settings

    monkeypatch.setenv("WORKSHOP_ORACLE_DSN", "127.0.0.1:1/FREEPDB1")
    started = time.monotonic()
    with pytest.raises(BackendError) as raised:
        open_backend(Settings.from_env(backend="oracle"))
    message = str(raised.value)
    assert "docker compose up -d oracle" in message and "WORKSHOP_ORACLE_DSN" in message
    assert "127.0.0.1:1/FREEPDB1" in message
    assert time.monotonic() - started < 10


def test_the_demo_schema_user_must_be_supplychain(monkeypatch):
    from agent_harness.foundation.config import Settings

    monkeypatch.setenv("WORKSHOP_ORACLE_SC_USER", "demo")
    with pytest.raises(BackendError, match="SUPPLYCHAIN"):
        OracleBackend(Settings.from_env(backend="oracle"))


def test_oracle_settings_have_the_documented_defaults(monkeypatch):
    from agent_harness.foundation.config import DEFAULT_ONNX_MODEL, Settings

    for name in ("DSN", "USER", "PASSWORD", "RO_USER", "RO_PASSWORD", "SC_USER", "SC_PASSWORD"):
        monkeypatch.delenv(f"WORKSHOP_ORACLE_{name}", raising=False)
    monkeypatch.delenv("WORKSHOP_ONNX_MODEL", raising=False)
    s = Settings.from_env()
    assert (s.oracle_dsn, s.oracle_user, s.oracle_ro_user, s.oracle_sc_user) == (
        "localhost:1521/FREEPDB1",
        "workshop",
        "workshop_ro",
        "supplychain",
    )
    assert (s.oracle_password, s.oracle_ro_password, s.oracle_sc_password) == (
        "Workshop_2026",
        "WorkshopRo_2026",
        "Supplychain_2026",
    )
    assert s.onnx_model == DEFAULT_ONNX_MODEL and DEFAULT_ONNX_MODEL.endswith("augmented.zip")
    assert "Workshop_2026" not in repr(s)  # passwords stay out of logs


# =============================================================================================
# Against a real Oracle AI Database (skipped where none is reachable)
# =============================================================================================
@pytest.fixture
def oracle_memory(oracle_harness):
    scope = Scope(f"test-{uuid.uuid4().hex[:8]}", "agent")
    return MemoryStore(oracle_harness.backend, scope, oracle_harness.embed)


@pytest.fixture
def oracle_seeded(oracle_memory):
    for kind, subject, content in SEED_MEMORIES:
        oracle_memory.add(content, kind=kind, subject=subject)
    return oracle_memory


@pytest.mark.oracle
@ORACLE_SKIP
def test_migrations_are_idempotent_and_every_object_exists(oracle_harness):
    backend = oracle_harness.backend
    assert backend.migrate() == []
    assert backend.applied_migrations()[: len(MIGRATIONS)] == MIGRATIONS.names()
    for migration in MIGRATIONS:
        for step in migration.steps:
            assert backend.object_exists(step.kind, step.name), step.name
            backend.run_migration_step(step)  # an existing object is skipped, never an error


@pytest.mark.oracle
@ORACLE_SKIP
def test_memory_crud_and_the_three_search_modes(oracle_memory):
    memory = oracle_memory
    first = memory.add(
        "Vessel capacity is measured in TEU.",
        kind="column",
        subject="SUPPLYCHAIN.VESSELS.CAPACITY_TEU",
        metadata={"n": 1, "ok": True},
    )
    second = memory.add(
        "Café crème at the port of Le Havre",
        kind="note",
        thread_id="t-1",
        metadata={"source": "ops"},
    )
    assert second > first
    assert [m.id for m in memory.list()] == [second, first]
    assert [m.id for m in memory.list(metadata_filter={"n": 1})] == [first]
    assert [m.id for m in memory.list(metadata_filter={"ok": True})] == [first]
    assert [m.id for m in memory.list(metadata_filter={"source": ["ops", "x"]})] == [second]
    assert [m.id for m in memory.list(metadata_filter={"thread_id": "t-1"})] == [second]
    assert memory.get(first).metadata == {"n": 1, "ok": True}
    assert memory.get(first).created_at.endswith("Z")
    assert memory.search("cafe creme", k=1, mode="keyword")[0].id == second  # base letters
    for mode in ("vector", "keyword", "hybrid"):
        hits = memory.search("TEU capacity of a vessel", k=2, mode=mode)
        assert hits and hits[0].id == first, mode
    memory.update(second, "Antwerp bunker prices rose sharply.", subject="BEANR")
    assert memory.search("antwerp bunker", k=1, mode="keyword")[0].id == second
    assert memory.search("havre", k=2, mode="keyword") == []
    assert memory.delete(first) and not memory.delete(first)
    assert first not in [m.id for m in memory.search("TEU", k=5, mode="hybrid")]


@pytest.mark.oracle
@ORACLE_SKIP
def test_hybrid_ranks_follow_the_rrf_formula(oracle_seeded):
    hits = oracle_seeded.search("Rotterdam congestion", k=30, mode="hybrid")
    _check_memories(hits, oracle_seeded, "hybrid", 30)
    assert any(h.r_txt < 999999 and h.r_vec < 999999 for h in hits)
    assert any(h.r_txt == 999999 for h in hits)


@pytest.mark.oracle
@ORACLE_SKIP
@pytest.mark.parametrize("query", [pytest.param(q, id=i) for i, q in ADVERSARIAL])
def test_hostile_search_text_never_raises_on_oracle(oracle_seeded, oracle_harness, query):
    for mode in ("vector", "keyword", "hybrid"):
        _check_memories(oracle_seeded.search(query, k=5, mode=mode), oracle_seeded, mode, 5)
        kinds = oracle_seeded.search(query, k=3, mode=mode, kinds=["note", "column"])
        _check_memories(kinds, oracle_seeded, mode, 3)
    # the escaped query straight into CONTAINS: no DRG-/ORA- parser error for any input
    oracle_harness.backend.query(
        "SELECT COUNT(*) AS n FROM memories WHERE CONTAINS(content, :q) > 0",
        {"q": contains_query(query)},
    )


@pytest.mark.oracle
@ORACLE_SKIP
def test_the_catalog_scanner_reads_oracles_dictionary(oracle_harness, oracle_memory):
    from agent_harness.parts.catalog_scanner import CatalogScanner
    from agent_harness.supplychain import TABLES

    scanner = CatalogScanner(oracle_harness.backend, oracle_memory)
    facts = scanner.facts("supplychain")
    kinds = [f.kind for f in facts]
    assert kinds.count("table") == len(TABLES)
    assert kinds.count("column") == sum(len(t.columns) for t in TABLES)  # LOCATION is invisible
    assert kinds.count("relationship") == sum(len(t.foreign_keys) for t in TABLES)
    by_subject = {f.subject: f for f in facts}
    assert "NUMBER" in by_subject["SUPPLYCHAIN.VESSELS.CAPACITY_TEU"].content
    comment = next(t.comment for t in TABLES if t.name == "ports")
    assert comment in by_subject["SUPPLYCHAIN.PORTS"].content
    assert scanner.scan("SUPPLYCHAIN")["added"] == len(facts)
    assert scanner.scan("SUPPLYCHAIN")["unchanged"] == len(facts)


@pytest.mark.oracle
@ORACLE_SKIP
def test_ports_and_positions_have_sdo_geometry_points(oracle_harness):
    query = oracle_harness.backend.query
    for table in ("ports", "vessel_positions"):
        row = query(
            f"SELECT COUNT(*) AS n, COUNT(t.location) AS located,"
            f" MIN(t.location.sdo_gtype) AS gtype, MIN(t.location.sdo_srid) AS srid"
            f" FROM supplychain.{table} t"
        )[0]
        assert row["n"] == row["located"] > 0 and (row["gtype"], row["srid"]) == (2001, 4326)
    out = json.loads(oracle_harness.tools.call("run_sql", {"sql": "SELECT * FROM ports"}))
    assert "location" not in out["columns"] and "latitude" in out["columns"]


def _fingerprint(harness) -> dict:
    """What a statement on the read-only connection could change."""
    from agent_harness.supplychain import TABLES

    backend = harness.backend
    contents = {}
    for table in TABLES:
        rows = backend.query(f"SELECT * FROM supplychain.{table.name} ORDER BY 1")
        contents[table.name] = hashlib.sha256(repr([tuple(r.values()) for r in rows]).encode())
    readonly = backend.supplychain.readonly.connection()
    with readonly.cursor() as cur:
        cur.execute("SELECT object_name, object_type FROM user_objects ORDER BY 1, 2")
        ro_objects = cur.fetchall()
        cur.execute("SELECT privilege FROM session_privs ORDER BY 1")
        ro_privileges = cur.fetchall()
    return {
        "supplychain rows": {t: h.hexdigest() for t, h in contents.items()},
        "supplychain objects": backend.query(
            "SELECT object_name, object_type, last_ddl_time FROM all_objects"
            " WHERE owner = 'SUPPLYCHAIN' ORDER BY 1, 2"
        ),
        "harness row counts": {
            t: backend.query(f"SELECT COUNT(*) AS n FROM {t}")[0]["n"]
            for t in ("memories", "toolbox", "skillbox", "scratch_files", "schema_migrations")
        },
        "read-only user's objects": ro_objects,
        "read-only user's privileges": ro_privileges,
    }


@pytest.mark.oracle
@ORACLE_SKIP
@pytest.mark.parametrize(
    ("sql", "may_answer"),
    [pytest.param(sql, False, id=f"oracle-{i}") for i, sql, _ in ORACLE_HOSTILE]
    # The embedded corpus's runaway queries are plain reads on Oracle: answered or stopped by
    # the time limit, both fine; everything else must come back as an error.
    + [pytest.param(sql, "time limit" in p, id=f"embedded-{i}") for i, sql, p in HOSTILE],
)
def test_hostile_sql_is_refused_and_changes_nothing_on_oracle(
    oracle_harness, sql, may_answer, tmp_path
):
    sql = sql.format(scratch=tmp_path, harness_db=tmp_path / "h.db")
    before = _fingerprint(oracle_harness)
    started = time.monotonic()
    out = json.loads(oracle_harness.tools.call("run_sql", {"sql": sql}))
    assert time.monotonic() - started < 10
    assert _fingerprint(oracle_harness) == before, f"{sql!r} changed something"
    if not may_answer:
        assert set(out) == {"error"} and out["error"], f"{sql!r} was not refused: {out!r:.300}"


@pytest.mark.oracle
@ORACLE_SKIP
def test_the_read_only_user_can_only_select(oracle_harness):
    import oracledb

    conn = oracle_harness.backend.supplychain.readonly.connection()
    with conn.cursor() as cur:
        cur.execute("SELECT privilege FROM session_privs")
        assert {r[0] for r in cur.fetchall()} == {"CREATE SESSION"}
        for sql in (
            "DELETE FROM supplychain.ports",  # straight past the statement check
            "CREATE TABLE probe (x NUMBER)",
        ):
            with pytest.raises(oracledb.DatabaseError, match="ORA-0(1031|0942)"):
                cur.execute(sql)
    conn.rollback()
    for _, fix, check in oracle_harness.backend.doctor_checks():
        assert check(), fix


@pytest.mark.oracle
@ORACLE_SKIP
def test_read_only_queries_keep_their_limits(oracle_harness):
    backend = oracle_harness.backend
    result = backend.readonly_query(
        "SELECT level AS n FROM dual CONNECT BY level <= 100", max_rows=7
    )
    assert result.columns == ["n"] and [r[0] for r in result.rows] == list(range(1, 8))
    assert result.truncated is True
    started = time.monotonic()
    with pytest.raises(BackendError, match="time limit"):
        backend.readonly_query(
            "SELECT COUNT(*) FROM all_objects a, all_objects b, all_objects c", timeout_s=1
        )
    assert time.monotonic() - started < 10
    assert backend.readonly_query("SELECT COUNT(*) AS n FROM vessels").rows[0][0] > 0
    ports = backend.readonly_query(
        "SELECT port_code FROM supplychain.ports WHERE ocean_region = :region",
        {"region": "ATLANTIC", "unused": 1},
    )
    assert ports.rows
    with pytest.raises(BackendError, match="(?i)ORA-00942"):
        backend.readonly_query("SELECT * FROM no_such_table")


@pytest.mark.oracle
@ORACLE_SKIP
@pytest.mark.parametrize("size", [0, 599, 600, 601, 40_000, 5_000_000])
def test_offload_round_trip_is_byte_exact_for_big_clobs(oracle_harness, size):
    text = ("é🚢x\r\n\t\x00漢" * (size // 8 + 1))[:size]
    call_id = f"call_oracle_{size}_{uuid.uuid4().hex[:6]}"
    oracle_harness.offload.log("t", call_id, "container_manifest", {"container_no": "X"}, text)
    fetched = json.loads(oracle_harness.tools.call("fetch_tool_output", {"tool_call_id": call_id}))
    assert fetched["tool_output"] == text
    assert fetched["tool_output"].encode("utf-8") == text.encode("utf-8")


@pytest.mark.oracle
@ORACLE_SKIP
def test_scratchpad_appends_atomically_and_counts_characters(oracle_harness):
    pad = oracle_harness.scratchpad
    path = f"oracle/{uuid.uuid4().hex[:6]}.txt"
    assert pad.write(path, "") == 0 and pad.read(path) == ""
    assert pad.append(path, "🚢é") == 2
    threads = [
        threading.Thread(target=lambda i=i: [pad.append(path, f"{i}.") for _ in range(10)])
        for i in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert pad.read(path).count(".") == 40
    big = "ü" * 200_000
    assert pad.write(path, big) == len(big) and pad.read(path) == big
    assert path in [f["path"] for f in pad.list()]


@pytest.mark.oracle
@ORACLE_SKIP
def test_toolbox_and_skillbox_search_by_vector(oracle_harness):
    names = [t["function"]["name"] for t in oracle_harness.tools.retrieve("where is the ship", k=3)]
    assert len(names) == 3 + len(oracle_harness.tools.always_on)
    assert oracle_harness.skills.manifest("port congestion", k=2)
    rows = oracle_harness.backend.indexed_rows("toolbox")
    assert rows and json.loads(rows[0]["parameters"]) is not None


@pytest.mark.oracle
@ORACLE_SKIP
def test_stored_and_query_vectors_come_from_one_model(oracle_harness, oracle_memory):
    backend = oracle_harness.backend
    memory_id = oracle_memory.add("Reefer containers need power at the terminal.", kind="note")
    stored = backend.query("SELECT embedding FROM memories WHERE id = :id", {"id": memory_id})
    stored = np.asarray(stored[0]["embedding"], dtype=np.float32)
    again = oracle_harness.embed(["Reefer containers need power at the terminal."])[0]
    cosine = float(stored @ again / np.linalg.norm(stored) / np.linalg.norm(again))
    assert cosine > 0.999, f"stored and query vectors differ ({cosine:.4f}): mixed models?"
    assert (backend.embed_texts(["x"]) is not None) == backend.embeds_in_database


@pytest.mark.oracle
@ORACLE_SKIP
def test_a_missing_model_file_falls_back_without_error(oracle_harness):
    backend = oracle_harness.backend
    loaded = backend.embeddings.model_loaded()
    choice = choose_embedding_mode(
        "/no/such/model.zip", lambda: backend.load_onnx_model("/no/such/model.zip")
    )
    assert choice.in_database == loaded  # loaded: nothing to read; not loaded: client-side
    assert "embeddings:" in backend.describe()


@pytest.mark.oracle
@ORACLE_SKIP
def test_exec_js_runs_on_mle(oracle_harness):
    backend = oracle_harness.backend
    out = backend.run_js("console.log('n =', 3); [1, 2, 3].map(x => x * 2)", 2000)
    # No fallback here: the regular image has MLE, and a note means MLE itself failed.
    assert out == {"result": [2, 4, 6], "console": ["n = 3"]}, backend.describe()
    assert "exec_js: MLE" in backend.describe()
    assert "boom" in backend.run_js("throw new Error('boom')", 2000)["error"]
    assert "SyntaxError" in backend.run_js("this is not javascript", 2000)["error"]
    assert backend.run_js("[typeof require, typeof session]", 2000)["result"] == ["undefined"] * 2
    backend.run_js("globalThis.leak = 42", 2000)
    assert backend.run_js("typeof leak", 2000)["result"] == "undefined"
    assert backend.run_js("'é🚢' + '\\u2028'", 2000)["result"] == "é🚢\u2028"
    started = time.monotonic()
    assert "timed out" in backend.run_js("while (true) {}", 300)["error"]
    assert time.monotonic() - started < 10
    assert backend.run_js("6 * 7", 2000) == {"result": 42, "console": []}  # a new connection
    tool = json.loads(oracle_harness.tools.call("exec_js", {"code": "Math.max(3, 9, 4)"}))
    assert tool == {"result": 9, "console": []}


@pytest.mark.oracle
@ORACLE_SKIP
def test_the_pure_environment_is_created_once(oracle_harness):
    backend = oracle_harness.backend
    assert backend.run_js("1", 2000) == {"result": 1, "console": []}
    envs = backend.query(
        "SELECT COUNT(*) AS n FROM user_mle_envs WHERE env_name = :name", {"name": JS_ENVIRONMENT}
    )
    assert envs[0]["n"] == 1
    backend.javascript.drop_connection()  # the next call runs CREATE MLE ENV IF NOT EXISTS again
    assert backend.run_js("2", 2000) == {"result": 2, "console": []}
    assert backend.javascript.unavailable is None


@pytest.mark.oracle
@ORACLE_SKIP
def test_a_failing_mle_falls_back_to_v8_with_a_note(oracle_harness, monkeypatch):
    from agent_harness.backends.oracle import javascript

    backend = oracle_harness.backend
    backend.javascript.drop_connection()
    # A context from an environment that does not exist: MLE itself fails in the database.
    broken = javascript._EVAL_PLSQL.replace("environment => :env", "environment => :env || '_X'")
    assert broken != javascript._EVAL_PLSQL
    monkeypatch.setattr(javascript, "_EVAL_PLSQL", broken)
    try:
        out = backend.run_js("6 * 7", 2000)
        assert out["result"] == 42 and "client-side V8 sandbox" in out["note"], out
        assert "client-side V8" in backend.describe()
    finally:
        backend.javascript.unavailable = None
        backend.javascript.drop_connection()
