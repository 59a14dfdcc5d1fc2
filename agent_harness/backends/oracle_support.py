"""The pure-Python half of the Oracle backend: no SQL and no connection in here.

Everything that can be decided without a database lives here, so it is tested on every machine
(``tests/test_oracle_backend.py``), while :mod:`agent_harness.backends.oracle` keeps every SQL
statement:

* :func:`contains_query`: any user text -> a safe Oracle Text query (``{word}`` ACCUM-joined).
* :func:`screen_readonly_sql`: the statement check in front of the read-only user.
* :func:`read_onnx_model` and :func:`choose_embedding_mode`: where the in-database embedding
  model comes from, and which embedding mode is used when it cannot be loaded.
* :func:`mle_source` and :func:`parse_mle_result`: the JavaScript wrapper run by ``exec_js``.
"""

from __future__ import annotations

import io
import json
import re
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_harness.backends.base import BackendError, ReadOnlyViolation
from agent_harness.backends.tokens import query_tokens

__all__ = [
    "NO_MATCH_WORD",
    "contains_query",
    "escape_text_token",
    "screen_readonly_sql",
    "ModelSourceError",
    "model_disabled",
    "read_onnx_model",
    "EmbeddingChoice",
    "DATABASE_MODE",
    "CLIENT_MODE",
    "choose_embedding_mode",
    "memory_embed_text",
    "bind_text",
    "column_label",
    "mle_source",
    "parse_mle_result",
]

# --- Oracle Text queries ----------------------------------------------------------------------
#: The only word of the index's stoplist: a query of just this word matches nothing, without
#: an error. It is what an empty or all-punctuation query becomes.
NO_MATCH_WORD = "zzqxworkshopnomatch"
MAX_TOKEN_BYTES = 64  # Oracle Text keeps at most 64 bytes of a word
MAX_QUERY_BYTES = 3500  # stays below the 4000-byte VARCHAR2 limit of the query argument


def escape_text_token(token: str) -> str:
    """One word as an escaped Oracle Text term: ``{word}``, with ``}`` doubled inside.

    Inside braces every operator character and reserved word (AND, NEAR, ACCUM, ``%``, ``$``,
    ...) is plain text; ``}}`` is how a closing brace is written there.
    """
    return "{" + token.replace("}", "}}") + "}"


def _cut_utf8(text: str, max_bytes: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", "ignore")


def contains_query(text: str) -> str:
    """Turn any text into an Oracle Text ``CONTAINS`` query that cannot fail to parse.

    The words of :func:`~agent_harness.backends.tokens.query_tokens` (letters and digits of any
    script) are each escaped with :func:`escape_text_token` and joined with ``ACCUM``, so a
    document scores higher the more of the words it contains. Words are cut to 64 bytes, the
    whole query to 3500 bytes; no words at all gives the stopword :data:`NO_MATCH_WORD`, a
    valid query that matches nothing. Never raises.
    """
    parts: list[str] = []
    size = 0
    for token in query_tokens("" if text is None else text):
        token = _cut_utf8(token, MAX_TOKEN_BYTES)
        if not any(c.isalnum() for c in token):  # "_" alone is no word to the lexer
            continue
        part = escape_text_token(token)
        cost = len(part.encode("utf-8")) + (len(" ACCUM ") if parts else 0)
        if size + cost > MAX_QUERY_BYTES:
            break
        parts.append(part)
        size += cost
    return " ACCUM ".join(parts) if parts else escape_text_token(NO_MATCH_WORD)


# --- the read-only statement check ------------------------------------------------------------
_QUERY_KEYWORDS = ("SELECT", "WITH")
_Q_QUOTE_CLOSE = {"[": "]", "{": "}", "<": ">", "(": ")"}


def _mask(sql: str) -> str:
    """The SQL with comments and the insides of literals and quoted names blanked out.

    Same length as the input, so a position in the mask is a position in the SQL. Handles
    ``--`` and ``/* */`` comments, ``'...'`` (with ``''``), ``"names"`` and Oracle's
    alternative quoting ``q'[...]'`` / ``nq'{...}'`` with any delimiter.
    """
    out = list(sql)
    i, n = 0, len(sql)

    def blank(start: int, end: int) -> None:
        for j in range(start, min(end, n)):
            if out[j] not in "\r\n":
                out[j] = " "

    while i < n:
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif sql[i] in "qQ" and sql[i + 1 : i + 2] == "'" and i + 2 < n and _starts_q(sql, i):
            close = _Q_QUOTE_CLOSE.get(sql[i + 2], sql[i + 2])
            end = sql.find(close + "'", i + 3)
            end = n if end < 0 else end + 2
            blank(i + 2, end - 1)
            i = end
        elif sql[i] == "'":
            j = i + 1
            while j < n:
                if sql[j] == "'" and j + 1 < n and sql[j + 1] == "'":
                    j += 2
                elif sql[j] == "'":
                    break
                else:
                    j += 1
            blank(i + 1, j)
            i = j + 1
        elif sql[i] == '"':
            end = sql.find('"', i + 1)
            end = n if end < 0 else end
            blank(i + 1, end)
            i = end + 1
        else:
            i += 1
    return "".join(out)


def _starts_q(sql: str, i: int) -> bool:
    """True when the q at ``i`` opens q'...' quoting (alone, or after the N of nq'...')."""
    before = sql[i - 1] if i else " "
    if before in "nN":
        before = sql[i - 2] if i > 1 else " "
    return not (before.isalnum() or before in "_$#")


def screen_readonly_sql(sql: str) -> str:
    """Check a statement for the read-only user; return it ready to run (trailing ``;`` cut).

    The read-only user itself is the guard (CREATE SESSION and SELECT grants only). This check
    comes first so the refusal is clear and nothing reaches the database that could lock rows
    or run PL/SQL: exactly one statement, starting with SELECT or WITH, no INSERT, UPDATE,
    DELETE or MERGE behind a WITH, no ``WITH FUNCTION`` / ``WITH PROCEDURE`` (PL/SQL inside a
    query), no ``FOR UPDATE`` (row locks).

    Raises:
        ReadOnlyViolation: The statement is not a plain query.
        BackendError: Empty SQL, only comments, or more than one statement.
    """
    if not isinstance(sql, str) or not sql.strip():
        raise BackendError("empty SQL: send one SELECT statement")
    masked = _mask(sql)
    end = len(masked.rstrip())
    while end and masked[end - 1] == ";":  # a trailing ';' is harmless: drop it
        end = len(masked[: end - 1].rstrip())
    statement, masked = sql[:end], masked[:end]
    if not masked.strip():
        raise BackendError("no SQL statement found (only comments or ';'): send a SELECT")
    upper = masked.upper()
    match = re.match(r"[\s(]*([A-Z]+)", upper)
    keyword = match.group(1) if match else ""
    if keyword not in _QUERY_KEYWORDS:
        raise ReadOnlyViolation(
            f"read-only connection: a {keyword or 'statement'} statement cannot run here."
            " Only one SELECT (or WITH ... SELECT) query is allowed."
        )
    if re.search(r"\bFOR\s+UPDATE\b", upper):
        raise ReadOnlyViolation(
            "read-only connection: SELECT ... FOR UPDATE locks rows and is not allowed here."
            " Send the SELECT without FOR UPDATE."
        )
    if re.search(r"\bWITH\s+(FUNCTION|PROCEDURE)\b", upper):
        raise ReadOnlyViolation(
            "read-only connection: WITH FUNCTION / WITH PROCEDURE runs PL/SQL and is not"
            " allowed here. Send a plain SELECT."
        )
    if ";" in masked:
        raise BackendError("only one SQL statement per call: remove everything after the first ';'")
    hidden = re.search(r"\b(INSERT|UPDATE|DELETE|MERGE)\b", upper)
    if hidden:  # e.g. WITH x AS (SELECT 1) DELETE FROM ...
        raise ReadOnlyViolation(
            f"read-only connection: a {hidden.group(1)} cannot run here, not even behind WITH."
            " Only one SELECT (or WITH ... SELECT) query is allowed."
        )
    return statement


def column_label(name: str) -> str:
    """A result column's name as the user wrote it: Oracle upper-cases unquoted aliases."""
    return name.lower() if name == name.upper() else name


# --- the in-database embedding model ----------------------------------------------------------
class ModelSourceError(BackendError):
    """The ONNX model could not be read from its URL or file."""


def model_disabled(source: str | None) -> bool:
    """True when WORKSHOP_ONNX_MODEL asks for client-side embeddings (``none``, ``off``, "")."""
    return (source or "").strip().lower() in ("", "none", "off", "client", "no")


def read_onnx_model(source: str, cache_dir: Path | None = None, timeout_s: float = 60.0) -> bytes:
    """The bytes of the ONNX model named by a URL or a local path (a .zip holding it or .onnx).

    A download is kept in ``cache_dir`` (when given) so the next setup reads it from there.

    Raises:
        ModelSourceError: Unreachable URL, missing file, or a zip without a ``.onnx`` file.
    """
    source = source.strip()
    scheme = urllib.parse.urlparse(source).scheme.lower()
    if scheme in ("http", "https"):
        name = Path(urllib.parse.urlparse(source).path).name or "model.zip"
        cached = cache_dir / name if cache_dir else None
        if cached is not None and cached.is_file():
            data = cached.read_bytes()
        else:
            try:
                with urllib.request.urlopen(source, timeout=timeout_s) as response:
                    data = response.read()
            except (OSError, ValueError) as e:  # URLError, timeouts, HTTP errors are OSErrors
                raise ModelSourceError(f"cannot download the ONNX model from {source}: {e}") from e
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                partial = cached.with_suffix(cached.suffix + ".part")
                partial.write_bytes(data)
                partial.replace(cached)
    else:
        path = Path(source[len("file://") :] if scheme == "file" else source).expanduser()
        if not path.is_file():
            raise ModelSourceError(f"no ONNX model file at {path}")
        data = path.read_bytes()
    if data[:4] != b"PK\x03\x04":
        return data  # a bare .onnx file
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [m for m in archive.namelist() if m.lower().endswith(".onnx")]
            if not members:
                raise ModelSourceError(f"{source} is a zip without a .onnx file")
            return archive.read(members[0])
    except zipfile.BadZipFile as e:
        raise ModelSourceError(f"{source} is not a readable zip file: {e}") from e


@dataclass(frozen=True)
class EmbeddingChoice:
    """Which model computes every stored and query vector, and why.

    Attributes:
        key: ``database:<model>`` or ``client:<model>``; stored in the database, never mixed.
        reason: Why this mode (shown by ``describe()`` and ``workshop setup``).
    """

    key: str
    reason: str = ""

    @property
    def in_database(self) -> bool:
        """True when the database computes the vectors (VECTOR_EMBEDDING)."""
        return self.key.startswith("database:")


DATABASE_MODE = "database:ALL_MINILM_L12_V2"
CLIENT_MODE = "client:all-MiniLM-L6-v2"


def choose_embedding_mode(source: str | None, load: Callable[[], str]) -> EmbeddingChoice:
    """Decide the embedding mode: in the database when the model loads, else client-side.

    Args:
        source: WORKSHOP_ONNX_MODEL (``none`` means client-side, ``load`` is not called).
        load: Loads the model (idempotently) and returns what it did; raises on any failure.

    Returns:
        The choice; a failure of ``load`` is the reason of a client-side choice, never raised.
    """
    if model_disabled(source):
        return EmbeddingChoice(CLIENT_MODE, "WORKSHOP_ONNX_MODEL=none")
    try:
        return EmbeddingChoice(DATABASE_MODE, load())
    except Exception as e:  # any failure means: fall back, and say why
        return EmbeddingChoice(CLIENT_MODE, f"in-database model unavailable ({str(e)[:300]})")


def memory_embed_text(subject: str | None, content: str) -> str:
    """The text a memory's vector is computed from: as in ``MemoryStore`` (subject: content)."""
    return f"{subject}: {content}" if subject else content


def bind_text(text: str, max_chars: int = 1000) -> str:
    """Text safe to bind for VECTOR_EMBEDDING: no lone surrogates or NULs, never empty (Oracle
    reads '' as NULL), cut to ``max_chars`` so it fits a 4000-byte VARCHAR2."""
    text = str(text)[:max_chars].encode("utf-8", "replace").decode("utf-8").replace("\x00", " ")
    return text if text.strip() else " "


# --- exec_js on MLE ---------------------------------------------------------------------------
MLE_RESULT = "workshop_result"

_MLE_TEMPLATE = """
const __bindings = require("mle-js-bindings");
for (const __name of ["require", "fetch", "session", "oracledb", "soda", "plsffi"]) {
  try { delete globalThis[__name]; } catch (e) {}
  try { if (typeof globalThis[__name] !== "undefined") { globalThis[__name] = undefined; } }
  catch (e) {}
}
const __out = [];
const __fmt = function (v) {
  if (typeof v === "string") return v;
  try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; }
  catch (e) { return String(v); }
};
const __log = function () { __out.push(Array.prototype.map.call(arguments, __fmt).join(" ")); };
globalThis.console = { log: __log, info: __log, warn: __log, error: __log, debug: __log };
let __res;
try {
  const __r = (0, eval)(__CODE__);
  __res = { result: JSON.parse(JSON.stringify({ r: __r === undefined ? null : __r })).r };
} catch (e) {
  const name = e && e.name ? e.name + ": " : "";
  __res = { error: name + (e && e.message !== undefined ? e.message : String(e)) };
}
__res.console = __out;
__bindings.exportValue("__RESULT__", JSON.stringify(__res));
"""


def mle_source(code: str) -> str:
    """The JavaScript run in a PURE MLE context for ``exec_js``.

    The user's code is a JSON string literal evaluated with indirect ``eval`` (the value of the
    last expression is the result, as in the mini-racer sandbox); console output is captured;
    the outcome goes back as one JSON text through ``mle-js-bindings``. ``require``, ``fetch``
    and the SQL driver globals are removed before the code runs.
    """
    return _MLE_TEMPLATE.replace("__CODE__", json.dumps(code)).replace("__RESULT__", MLE_RESULT)


def parse_mle_result(text: str | None, max_output_chars: int = 20_000) -> dict:
    """``{"result", "console"}`` or ``{"error", "console"}`` from the wrapper's JSON text."""
    try:
        data = json.loads(text or "")
    except ValueError:
        return {
            "error": f"JavaScript returned no readable result: {str(text)[:200]!r}",
            "console": [],
        }
    lines, used = [], 0
    for line in data.get("console") or []:
        if used + len(line) > max_output_chars:
            lines.append(f"...[console output cut at {max_output_chars} characters]")
            break
        lines.append(line)
        used += len(line)
    if "error" in data:
        return {"error": data["error"], "console": lines}
    return {"result": data.get("result"), "console": lines}
