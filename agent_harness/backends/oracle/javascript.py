"""``exec_js`` on Oracle: the JavaScript runs in the database (MLE) in a PURE context.

A PURE MLE environment (``CREATE MLE ENV ... PURE``) gives a context that can read or write no
database state: no SQL driver, no ``session``, ``soda``, ``plsffi``, ``oracledb``, and no
``require`` ("About Restricted Execution Contexts", JavaScript Developer's Guide 26). So the
wrapper cannot hand its outcome back through ``mle-js-bindings``; it ends with one expression,
``JSON.stringify(...)`` of ``{result | error, console}``, and ``DBMS_MLE.eval``'s ``result``
CLOB receives the outcome of the last statement ("Returning the Result of the Last
Execution", same guide). The user's code errors are caught inside the wrapper and come back as
data; an error of MLE itself (no privilege, no MLE, a failing context) falls back to the
client-side V8 sandbox, with a note saying why.
"""

from __future__ import annotations

import json
import threading

import oracledb

from agent_harness.backends.errors import BackendError
from agent_harness.backends.oracle.connection import connect_user
from agent_harness.backends.oracle.errors import error_code, first_line, full_code

__all__ = [
    "JS_ENVIRONMENT",
    "OracleJavaScript",
    "js_string_literal",
    "mle_source",
    "parse_mle_result",
]

JS_ENVIRONMENT = "WORKSHOP_JS_PURE"
JS_GRACE_MS = 2000  # creating the MLE context comes on top of the code's own time limit
MAX_OUTPUT_CHARS = 20_000

# The same conventions as the V8 sandbox (agent_harness/foundation/js_sandbox.py): the value of
# the last expression is the result, converted through JSON; console.* lines are captured.
_MLE_TEMPLATE = """
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
JSON.stringify(__res);
"""

# DBMS_MLE.eval's `result` variant appends the outcome of the snippet's last statement to an
# initialised CLOB; the context is dropped whether the code succeeded or not.
_EVAL_PLSQL = """DECLARE
  ctx DBMS_MLE.context_handle_t;
  outcome CLOB;
BEGIN
  DBMS_LOB.CREATETEMPORARY(lob_loc => outcome, cache => FALSE, dur => DBMS_LOB.SESSION);
  ctx := DBMS_MLE.create_context(environment => :env);
  BEGIN
    DBMS_MLE.eval(context_handle => ctx, language_id => 'JAVASCRIPT', source => :source,
                  result => outcome);
  EXCEPTION WHEN OTHERS THEN
    DBMS_MLE.drop_context(ctx);
    RAISE;
  END;
  DBMS_MLE.drop_context(ctx);
  :result := outcome;
END;"""


def mle_source(code: str) -> str:
    """The JavaScript run in a PURE MLE context for ``exec_js``.

    The user's code is a JSON string literal evaluated with indirect ``eval`` (the value of the
    last expression is the result, as in the V8 sandbox); console output is captured; the
    wrapper's own last statement is the outcome as one JSON text. It calls no host API, so it
    runs the same in MLE and in any plain JavaScript engine.
    """
    return _MLE_TEMPLATE.replace("__CODE__", json.dumps(code))


_JS_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def js_string_literal(text: str) -> str | None:
    """The value of a JavaScript string literal in ``'...'``, ``"..."`` or backticks (None when
    ``text`` is not one): escapes ``\\n``, ``\\'``, ``\\xHH``, ``\\uHHHH``, ``\\u{H...}`` read."""
    if len(text) < 2 or text[0] not in "'\"`" or text[-1] != text[0]:
        return None
    body, out, i = text[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c == text[0]:
            return None  # an unescaped quote: not one literal
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt == "x":
            out.append(chr(int(body[i + 2 : i + 4], 16)))
            i += 4
        elif nxt == "u" and body[i + 2 : i + 3] == "{":
            end = body.index("}", i)
            out.append(chr(int(body[i + 3 : end], 16)))
            i = end + 1
        elif nxt == "u":
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        elif nxt == "\n":
            i += 2  # a line continuation
        else:
            out.append(_JS_ESCAPES.get(nxt, nxt))
            i += 2
    return "".join(out)


def parse_mle_result(text: str | None, max_output_chars: int = MAX_OUTPUT_CHARS) -> dict:
    """``{"result", "console"}`` or ``{"error", "console"}`` from the wrapper's JSON text.

    Accepts the text itself or a string literal holding it: ``DBMS_MLE.eval``'s result is
    there "to mimic the behavior of a similar REPL session in Node.js" ("Returning the Result
    of the Last Execution", JavaScript Developer's Guide 23), and a Node.js REPL shows a string
    quoted, in single quotes (double quotes or backticks when the text holds single quotes).
    """
    try:
        try:
            data = json.loads(text or "")
        except ValueError:
            data = js_string_literal((text or "").strip())
            if data is None:
                raise
        if isinstance(data, str):
            data = js_string_literal(data.strip()) or data
            data = json.loads(data)
        if not isinstance(data, dict):
            raise ValueError("not an object")
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


def _in_v8(code: str, timeout_ms: int, why: str) -> dict:
    """Run the code in the client-side V8 sandbox and say why it did not run in MLE."""
    from agent_harness.foundation.js_sandbox import run_js

    return {**run_js(code, timeout_ms), "note": f"ran in the client-side V8 sandbox: {why}"}


class OracleJavaScript:
    """``exec_js`` on MLE, on a connection of its own.

    Args:
        settings: WORKSHOP_ORACLE_DSN and the harness owner's name and password.

    Attributes:
        unavailable: Why MLE is not used, once known (then code runs in the V8 sandbox).
    """

    def __init__(self, settings) -> None:
        self.settings = settings
        self._js: oracledb.Connection | None = None
        self._js_lock = threading.Lock()
        self.unavailable: str | None = None

    def _js_connection(self) -> oracledb.Connection | None:
        """A connection of its own (a timed-out call may break it), with the PURE environment:
        code in it can read or write no database state."""
        if self._js is not None:
            return self._js
        s = self.settings
        try:
            conn = connect_user(s, s.oracle_user, s.oracle_password, "harness owner, exec_js")
        except BackendError:
            return None  # not remembered: the database may be back on the next call
        try:
            with conn.cursor() as cur:
                cur.execute(f"CREATE MLE ENV IF NOT EXISTS {JS_ENVIRONMENT} PURE")
        except oracledb.DatabaseError as e:
            conn.close()
            self.unavailable = f"no PURE MLE environment ({first_line(e)})"
            return None
        self._js = conn
        return conn

    def drop_connection(self) -> None:
        """Close the MLE connection; a new one opens on the next call."""
        try:
            if self._js is not None:
                self._js.close()
        except oracledb.Error:
            pass  # the interrupted connection is replaced on the next call
        self._js = None

    def run_js(self, code: str, timeout_ms: int) -> dict | None:
        from agent_harness.foundation.js_sandbox import MAX_CODE_CHARS

        if not isinstance(code, str) or not code.strip() or len(code) > MAX_CODE_CHARS:
            return None  # the client-side sandbox words the usual errors
        timeout_ms = max(10, min(int(timeout_ms), 10_000))
        if self.unavailable:
            return _in_v8(code, timeout_ms, self.unavailable)
        with self._js_lock:
            conn = self._js_connection()
            if conn is None:  # the database is down: V8 silently; no PURE environment: say so
                why = self.unavailable
                return _in_v8(code, timeout_ms, why) if why else None
            conn.call_timeout = timeout_ms + JS_GRACE_MS
            try:
                with conn.cursor() as cur:
                    result = cur.var(oracledb.DB_TYPE_CLOB)
                    cur.execute(
                        _EVAL_PLSQL,
                        env=JS_ENVIRONMENT,
                        source=conn.createlob(oracledb.DB_TYPE_CLOB, mle_source(code)),
                        result=result,
                    )
                    value = result.getvalue()
                    text = value.read() if hasattr(value, "read") else value
            except oracledb.Error as e:
                return self._js_error(e, code, timeout_ms)
        return parse_mle_result(text)

    def _js_error(self, error: oracledb.Error, code: str, timeout_ms: int) -> dict:
        """A time limit or a memory limit is the code's outcome; anything else means MLE itself
        failed (the wrapper catches the code's own errors): fall back to V8 from now on."""
        if full_code(error) == "DPY-4024" or error_code(error) in (1013, 3156):
            self.drop_connection()
            return {"error": f"timed out after {timeout_ms} ms", "console": []}
        message = first_line(error)
        if "memory" in message.lower():
            return {"error": f"JavaScript ran out of memory: {message}", "console": []}
        self.drop_connection()
        self.unavailable = f"MLE failed in the database ({message})"
        return _in_v8(code, timeout_ms, self.unavailable)
