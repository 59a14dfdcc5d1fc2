"""Tool-call telemetry: one ``tool_telemetry`` row per dispatch, written by a call hook.

Every call through ``h.tools.call`` (and so through the agent loop) ends in
:meth:`TelemetryRecorder.after_call`, refused calls included, so the table answers "what did
the agent try, what worked, how long did it take". Column names follow the OpenTelemetry GenAI
conventions (see :data:`agent_harness.backends.roles.TELEMETRY_COLUMNS`); ``success`` is 1 (the
tool returned), 0 (a tool fault: it raised unexpectedly, a service it depends on failed, or it
timed out) or NULL (the call says nothing about the tool's health: refused before it ran, or
the caller's mistake, a ToolError such as "nothing found"), so ``COUNT(success)`` counts the
calls that judge the tool and ``SUM(success)`` the ones that worked. ``error_type`` says which
(:mod:`agent_harness.tools.faults`), as the span's ``error.type`` does.

A failed write never breaks the call: the registry counts it and logs the first one
(``h.tools.hook_failures``).
"""

from __future__ import annotations

from agent_harness.foundation.values import dumps, safe_text

__all__ = ["TelemetryRecorder", "MAX_ARGUMENT_CHARS", "MAX_ERROR_CHARS"]

MAX_ARGUMENT_CHARS = 4000
MAX_ERROR_CHARS = 1000


def _arguments_text(arguments) -> str | None:
    if arguments is None:
        return None
    if isinstance(arguments, bytes):
        arguments = arguments.decode("utf-8", "replace")
    if isinstance(arguments, dict):  # keys sorted, as json.dumps(sort_keys=True) writes them
        arguments = dict(sorted(arguments.items(), key=lambda item: str(item[0])))
    if not isinstance(arguments, str):  # strict JSON: a NaN in the arguments is stored as null
        arguments = dumps(arguments)
    return safe_text(arguments[:MAX_ARGUMENT_CHARS])


class TelemetryRecorder:
    """The call hook that writes the telemetry row and sets ``result.telemetry_id``."""

    def __init__(self, store) -> None:
        self.store = store

    def before_call(self, call, tool) -> None:
        return None

    def after_call(self, result) -> None:
        call = result.call
        result.telemetry_id = self.store.record(
            {
                "gen_ai_tool_name": safe_text(str(call.name)[:200]),
                "gen_ai_tool_call_id": safe_text(str(call.call_id)[:200]),
                "gen_ai_tool_type": "function",
                "tool_category": result.category,
                "gen_ai_conversation_id": call.thread_id,
                "turn_id": call.turn_id,
                "gen_ai_tool_call_arguments": _arguments_text(call.arguments),
                "success": result.success,
                "error_type": result.error_type,
                "error_message": (result.error or None)
                and safe_text(result.error[:MAX_ERROR_CHARS]),
                "duration_ms": result.duration_ms,
                "output_chars": result.output_chars,
                "started_at": result.started_at,
            }
        )
