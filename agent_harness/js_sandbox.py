"""exec_js: run JavaScript in an embedded V8 sandbox (mini-racer), a fresh context per call.

The context has no host objects: no file system, no network, no process, no ``require``. Each
call gets a time limit and a heap limit; ``console.log`` output is captured and returned.
"""

from __future__ import annotations

import json

__all__ = ["run_js", "MAX_CODE_CHARS"]

MAX_CODE_CHARS = 100_000
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


def run_js(code: str, timeout_ms: int = 1000) -> dict:
    """Evaluate JavaScript and return ``{"result", "console"}`` or ``{"error", "console"}``.

    The result is the value of the last expression, converted through JSON.

    Args:
        code: JavaScript source.
        timeout_ms: Wall-clock limit for the evaluation (10 to 10000).
    """
    from py_mini_racer import MiniRacer

    if not isinstance(code, str) or not code.strip():
        return {"error": "no code: send a JavaScript expression or program", "console": []}
    if len(code) > MAX_CODE_CHARS:
        return {"error": f"code is longer than {MAX_CODE_CHARS} characters", "console": []}
    timeout_ms = max(10, min(int(timeout_ms), 10_000))
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
            result = None
            kind = type(e).__name__
            if "Timeout" in kind:
                error = f"timed out after {timeout_ms} ms"
            elif "OOM" in kind or "Memory" in kind:
                error = "JavaScript ran out of memory (64 MB limit)"
            else:
                error = f"{kind}: {str(e).strip()[:2000]}"
        try:
            output = json.loads(ctx.eval("JSON.stringify(__out)"))
        except Exception:
            output = []
    finally:
        ctx.close()
    text_out = []
    used = 0
    for line in output:
        if used + len(line) > MAX_OUTPUT_CHARS:
            text_out.append(f"...[console output cut at {MAX_OUTPUT_CHARS} characters]")
            break
        text_out.append(line)
        used += len(line)
    if error:
        return {"error": error, "console": text_out}
    return {"result": result, "console": text_out}
