"""exec_js: run JavaScript in an embedded V8 sandbox (mini-racer), a fresh context per call.

The context has no host objects: no file system, no network, no process, no ``require``. Each
call gets a time limit and a heap limit; ``console.log`` output is captured and returned.

The engine runs in worker processes (:mod:`agent_harness.foundation.js_workers`), never in the
caller's: calls from many threads (the MCP server's clients, a notebook, ``workshop chat``) run
side by side, each in its own process, and a crash of the engine ends that worker only.
"""

from __future__ import annotations

from agent_harness.foundation.js_worker import MAX_MEMORY_BYTES, MAX_OUTPUT_CHARS
from agent_harness.foundation.js_workers import JsEngineError, workers

__all__ = ["run_js", "MAX_CODE_CHARS", "MAX_MEMORY_BYTES", "MAX_OUTPUT_CHARS", "JsEngineError"]

MAX_CODE_CHARS = 100_000


def run_js(code: str, timeout_ms: int = 1000) -> dict:
    """Evaluate JavaScript and return ``{"result", "console"}`` or ``{"error", "console"}``.

    The result is the value of the last expression, converted through JSON.

    Args:
        code: JavaScript source.
        timeout_ms: Wall-clock limit for the evaluation (10 to 10000).

    Raises:
        JsEngineError: The engine itself stopped (its worker crashed or hung); the next call
            gets a fresh one.
    """
    if not isinstance(code, str) or not code.strip():
        return {"error": "no code: send a JavaScript expression or program", "console": []}
    if len(code) > MAX_CODE_CHARS:
        return {"error": f"code is longer than {MAX_CODE_CHARS} characters", "console": []}
    timeout_ms = max(10, min(int(timeout_ms), 10_000))
    return workers().run(code, timeout_ms)
