"""The JavaScript worker: a process of its own that owns one V8 engine and runs one program at
a time (started and fed by :mod:`agent_harness.foundation.js_workers`; never imported by the
harness).

Why a process: mini-racer runs each isolate's work on a thread of its own and documents no
promise about several ``MiniRacer`` objects made and closed at once from many threads (the
server's worker threads did exactly that, and a SIGSEGV in ``libmini_racer.so`` ended the whole
MCP server, every client's connection with it). Here each program gets a fresh ``MiniRacer``
in this process's main thread, one after the other: a single owning thread per isolate, as
mini-racer's own examples use it. A crash of the engine ends this process only; the pool
starts another.

Protocol (standard library only, so it runs as a plain script): ``{"ready": true}`` on stdout
once the engine is loaded; then one JSON object per line on stdin, ``{"code": ...,
"timeout_ms": ...}``, answered by one JSON object per line on stdout, the result of
:func:`evaluate`. End of input ends the process.
"""

from __future__ import annotations

import json
import sys

MAX_MEMORY_BYTES = 64 * 1024 * 1024
MAX_OUTPUT_CHARS = 20_000

_PRELUDE = """
var __out = [];
var __fmt = function (v) {
  if (typeof v === 'string') return v;
  try { var s = JSON.stringify(v); return s === undefined ? String(v) : s; }
  catch (e) { return String(v); }
};
var console = {
  log: function () { __out.push(Array.prototype.map.call(arguments, __fmt).join(' ')); },
};
console.info = console.warn = console.error = console.debug = console.log;
"""


def _error_text(error: Exception, timeout_ms: int) -> str:
    kind = type(error).__name__
    if "Timeout" in kind:
        return f"timed out after {timeout_ms} ms"
    if "OOM" in kind or "Memory" in kind:
        return "JavaScript ran out of memory (64 MB limit)"
    return f"{kind}: {str(error).strip()[:2000]}"


def _console(lines: list) -> list[str]:
    kept, used = [], 0
    for line in lines:
        if used + len(line) > MAX_OUTPUT_CHARS:
            kept.append(f"...[console output cut at {MAX_OUTPUT_CHARS} characters]")
            break
        kept.append(line)
        used += len(line)
    return kept


def evaluate(code: str, timeout_ms: int) -> dict:
    """Run ``code`` in a fresh V8 context: ``{"result", "console"}`` or ``{"error", "console"}``
    (the result is the value of the last expression, converted through JSON)."""
    from py_mini_racer import MiniRacer

    ctx = MiniRacer()
    try:
        ctx.set_hard_memory_limit(MAX_MEMORY_BYTES)
        ctx.eval(_PRELUDE)
        wrapped = (
            "(function(){ var __r = (0, eval)(" + json.dumps(code) + ");"
            " return JSON.stringify({r: __r === undefined ? null : __r}); })()"
        )
        error = None
        try:
            raw = ctx.eval(wrapped, timeout_sec=timeout_ms / 1000, max_memory=MAX_MEMORY_BYTES)
            result = json.loads(raw)["r"] if isinstance(raw, str) else None
        except Exception as e:  # JS exceptions, timeouts and memory limits
            result, error = None, _error_text(e, timeout_ms)
        try:
            output = json.loads(ctx.eval("JSON.stringify(__out)"))
        except Exception:
            output = []
    finally:
        ctx.close()
    if error:
        return {"error": error, "console": _console(output)}
    return {"result": result, "console": _console(output)}


def main() -> None:
    """Load the engine, say so (``{"ready": true}``), then answer requests until stdin closes."""
    import py_mini_racer  # noqa: F401 - loaded before the first program's time limit starts

    out = sys.stdout
    sys.stdout = sys.stderr  # nothing but answers on the answer channel
    out.write('{"ready": true}\n')
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            answer = evaluate(str(request["code"]), int(request["timeout_ms"]))
        except Exception as e:  # the engine failed to start or stop: say so, keep serving
            answer = {"error": f"the JavaScript engine failed: {type(e).__name__}: {e}"[:2000]}
        out.write(json.dumps(answer, ensure_ascii=True) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
