"""One tool call, start to end: the typed request and result, validation, time limit, hooks.

Every call of a tool goes through :func:`dispatch` (``h.tools.call`` and the agent loop alike):

1. refusals before the tool runs: an unknown tool, a tool not offered in this turn (the error
   names the skill that would unlock it), a tool the agent's skills grant too little access to,
   arguments that are not JSON, do not validate (strictly: ``"12"`` is not a number, ``true``
   not an integer, NaN and Infinity are no numbers at all) or are out of the schema's range, a
   hook that refuses (the circuit breaker of an open tool); the result's ``success`` is
   ``None`` (the tool never ran);
2. the tool runs in a worker thread with its ``timeout_s``. ``success`` is True when it
   returned; None when it raised :class:`~agent_harness.tools.tool.ToolError` (the caller's
   mistake: nothing found, an ambiguous name; ``error_type`` ``caller_error``); False for a
   tool fault: an unexpected exception (``tool_error``), a failed dependency
   (``upstream_error``) or no answer in time (``timeout``), see :mod:`.faults`;
3. every hook's ``after_call`` sees the :class:`ToolResult` (telemetry writes its row, the
   breaker counts tool faults only). A hook that fails never breaks the call: the failure is
   counted and logged (with its traceback) the first time per hook.

Error texts are bounded (:data:`~agent_harness.tools.faults.MAX_ERROR_CHARS`; a quoted value
at most :data:`~agent_harness.tools.faults.QUOTE_CHARS`) and outputs are strict JSON (no NaN).
The whole call is an OpenTelemetry span ``execute_tool {name}`` (a no-op unless an SDK is set
up; see :mod:`agent_harness.parts.observability`).
"""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import math
import threading
import time
import uuid
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import pydantic

from agent_harness.backends.roles import utc_now
from agent_harness.foundation.values import dumps, safe_text
from agent_harness.parts.observability import tool_span
from agent_harness.tools import context
from agent_harness.tools.argument_checks import (
    INT64,
    MAX_DEPTH,
    out_of_range_integer,
    too_deep,
)
from agent_harness.tools.faults import (
    CALLER_ERROR,
    QUOTE_CHARS,
    REFUSALS,
    TIMEOUT,
    bounded,
    fault_of,
)
from agent_harness.tools.tool import Tool, allows

__all__ = [
    "ToolCall",
    "ToolResult",
    "CallHook",
    "HookFailures",
    "dispatch",
    "new_call_id",
    "REFUSALS",
    "unreported_hook_failures",
]

log = logging.getLogger(__name__)


def new_call_id() -> str:
    """A fresh tool call id like the ones models send (``call_...``)."""
    return f"call_{uuid.uuid4().hex[:24]}"


@dataclass
class ToolCall:
    """A request to run a tool.

    Attributes:
        name: The tool's name as the model wrote it.
        arguments: A dict, or JSON text exactly as the model sent it (may be invalid).
        call_id: The model's tool call id (a fresh one when called by hand).
        thread_id: The conversation (OpenTelemetry's ``gen_ai.conversation.id``).
        turn_id: The agent turn that made the call, if any.
        offered: The tool names offered in this turn; None means any registered tool.
        unlocked_by: Tool -> the skills that would unlock it (named when a tool that was not
            offered is called).
        grants: Tool -> the access the agent's skills grant it; None: no agent, no check.
            A ``write`` or ``execute`` tool runs only with a grant at least as strong.
        agent: The agent making the call (tools can read it: ``context.current_agent()``).
    """

    name: str
    arguments: Any = None
    call_id: str = field(default_factory=new_call_id)
    thread_id: str | None = None
    turn_id: str | None = None
    offered: frozenset[str] | None = None
    unlocked_by: Mapping[str, Sequence[str]] | None = None
    grants: Mapping[str, str] | None = None
    agent: str | None = None


@dataclass
class ToolResult:
    """What one call did: the model's observation plus everything telemetry records.

    Attributes:
        call: The request.
        output: The JSON text the model sees (a result, or ``{"error": ...}``).
        success: True: the tool returned; False: a tool fault (it raised unexpectedly, a
            dependency failed, it timed out); None: the call says nothing about the tool's
            health (refused before it ran, or the caller's mistake: a ToolError).
        error_type: None, one of :data:`REFUSALS`, ``caller_error`` (a ToolError), or a tool
            fault: ``tool_error``, ``upstream_error``, ``timeout`` (:mod:`.faults`).
        error: The error message, if any (at most about 1,000 characters).
        duration_ms: Wall-clock time of the whole dispatch.
        category: The tool's category (None for an unknown tool).
        started_at: When the call started (UTC).
        telemetry_id: The id of its telemetry row, once written.
    """

    call: ToolCall
    output: str
    success: bool | None
    error_type: str | None = None
    error: str | None = None
    duration_ms: float = 0.0
    category: str | None = None
    started_at: dt.datetime = field(default_factory=utc_now)
    telemetry_id: int | None = None

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.call.name

    @property
    def ok(self) -> bool:
        """True when the tool ran and returned a result."""
        return self.success is True

    @property
    def output_chars(self) -> int:
        """Length of the output in characters."""
        return len(self.output)


class CallHook(Protocol):
    """Something that watches (and may refuse) tool calls: telemetry, the circuit breaker."""

    def before_call(self, call: ToolCall, tool: Tool) -> str | None:
        """Return a refusal message to stop the call before it runs, else None."""

    def after_call(self, result: ToolResult) -> None:
        """See the finished call (refused ones too)."""


_LIVE_FAILURES: weakref.WeakSet = weakref.WeakSet()


class HookFailures:
    """Counts hook failures (a broken hook never breaks a call or a turn); logs the first of
    each hook with its traceback.

    Attributes:
        counts: ``"Hook.stage"`` -> how many times it failed.
        last: ``"Hook.stage"`` -> the latest error, as ``"Class: message"``.
    """

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.last: dict[str, str] = {}
        self._unreported: list[str] = []
        _LIVE_FAILURES.add(self)

    def record(self, hook: Any, stage: str, error: BaseException) -> None:
        """Count one failure of ``hook`` at ``stage``; log it (with traceback) if it is the
        first of its kind."""
        key = f"{getattr(hook, '__qualname__', None) or type(hook).__name__}.{stage}"
        self.counts[key] = self.counts.get(key, 0) + 1
        self.last[key] = f"{type(error).__name__}: {error}"
        self._unreported.append(f"{key}: {self.last[key]}")
        if self.counts[key] == 1:
            log.warning(
                "%s failed (the call or turn went on; counted from now): %s",
                key,
                error,
                exc_info=(type(error), error, error.__traceback__),
            )

    def take(self) -> dict[str, int]:
        """The counts so far, then start again from zero (a test that provokes failures on
        purpose takes them, so the suite's guard does not report them)."""
        counts = dict(self.counts)
        self.counts.clear()
        self.last.clear()
        self._unreported.clear()
        return counts


def unreported_hook_failures() -> list[str]:
    """Every hook failure recorded since the last call, by any live registry or turn (and
    forget them): the test suite fails a test that leaves any behind."""
    found: list[str] = []
    for failures in list(_LIVE_FAILURES):
        found += failures._unreported
        failures._unreported.clear()
    return found


#: At most this many problems are listed for one call's arguments.
MAX_PROBLEMS = 5


def _quote(value: Any) -> str:
    """A short ``repr`` of a value for an error message (never the whole of a big one)."""
    text = repr(value)
    return text if len(text) <= QUOTE_CHARS else f"{text[:QUOTE_CHARS]}...({len(text)} chars)"


def _format_validation_error(tool: Tool, error: pydantic.ValidationError) -> str:
    problems = []
    items = error.errors()
    for item in items[:MAX_PROBLEMS]:
        where = ".".join(str(p) for p in item["loc"])[:QUOTE_CHARS] or "arguments"
        if item["type"] == "missing":
            problems.append(f"missing required argument '{where}'")
        elif item["type"] == "extra_forbidden":
            problems.append(f"unexpected argument '{where}'")
        else:
            message = str(item["msg"])[:200]
            problems.append(f"argument '{where}': {message} (got {_quote(item.get('input'))})")
    if len(items) > MAX_PROBLEMS:
        problems.append(f"and {len(items) - MAX_PROBLEMS} more problems")
    return f"{'; '.join(problems)}. {tool.takes()}"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number in JSON")


def _non_finite(value: Any, where: str = "") -> str | None:
    """Where a NaN or an infinity hides in the arguments (None when there is none)."""
    if isinstance(value, float) and not math.isfinite(value):
        return where or "arguments"
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _non_finite(item, f"{where}.{key}" if where else str(key))
        if found:
            return found
    return None


def _parse_arguments(tool: Tool, arguments: Any) -> dict:
    """The validated keyword arguments, or raise ValueError with a message for the model."""
    if arguments is None or arguments == "":
        arguments = {}
    if isinstance(arguments, (str, bytes)):
        try:
            arguments = json.loads(arguments, parse_constant=_no_constant)
        except RecursionError:
            raise ValueError(
                f"arguments nest deeper than {MAX_DEPTH} levels. {tool.takes()}"
            ) from None
        except ValueError as e:
            raise ValueError(
                f"arguments are not valid JSON ({bounded(e, 200)}). {tool.takes()}"
            ) from None
    if not isinstance(arguments, dict):
        raise ValueError(
            f"arguments must be a JSON object, not {type(arguments).__name__}. {tool.takes()}"
        )
    if too_deep(arguments):
        raise ValueError(f"arguments nest deeper than {MAX_DEPTH} levels. {tool.takes()}")
    where = _non_finite(arguments)
    if where:
        raise ValueError(
            f"argument '{where[:QUOTE_CHARS]}': NaN and Infinity are not numbers in JSON;"
            f" send a finite number. {tool.takes()}"
        )
    where = out_of_range_integer(arguments)
    if where:
        raise ValueError(
            f"argument '{where[:QUOTE_CHARS]}': the integer does not fit 64 bits (no database"
            f" column holds it); send one from {INT64[0]} to {INT64[1]}. {tool.takes()}"
        )
    try:
        return tool.validate(arguments)
    except pydantic.ValidationError as e:
        raise ValueError(_format_validation_error(tool, e)) from None
    except ValueError:
        raise
    except Exception as e:  # converting the caller's arguments failed: the caller's doing
        raise ValueError(
            f"the arguments could not be converted ({type(e).__name__}: {bounded(e, 200)})."
            f" {tool.takes()}"
        ) from None


class _TimedOut(Exception):
    """The tool did not answer within its ``timeout_s``."""


def _run_with_timeout(tool: Tool, kwargs: dict, harness, agent=None) -> tuple[bool, Any]:
    """Run the tool in a worker thread; (True, value) or (False, exception)."""
    outcome: list = []
    ctx = contextvars.copy_context()

    def work() -> None:
        try:
            with context.using(harness, agent):
                outcome.append((True, tool.function(**kwargs)))
        except BaseException as e:  # reported to the caller below
            outcome.append((False, e))

    worker = threading.Thread(target=ctx.run, args=(work,), name=f"tool-{tool.name}", daemon=True)
    worker.start()
    worker.join(tool.timeout_s)
    if worker.is_alive():
        return False, _TimedOut(f"{tool.name} did not answer within {tool.timeout_s:g} s")
    return outcome[0]


def dispatch(
    tools: dict[str, Tool], call: ToolCall, harness, hooks, failures, clock=utc_now
) -> ToolResult:
    """Run one call through refusals, validation, the tool and the hooks; never raises for
    the model's mistakes or the tool's failures (they become ``{"error": ...}`` outputs).
    ``clock`` gives the call's start time (the registry's clock)."""
    started = time.perf_counter()
    started_at = clock()
    tool = tools.get(call.name) if isinstance(call.name, str) else None
    with tool_span(call, tool) as span:
        result = _execute(tools, tool, call, harness, hooks, failures)
        result.started_at = started_at
        result.duration_ms = round((time.perf_counter() - started) * 1000, 3)
        span.finish(result)
    for hook in hooks:
        try:
            hook.after_call(result)
        except Exception as e:  # telemetry must never break a call
            failures.record(hook, "after_call", e)
    return result


def _execute(tools, tool, call: ToolCall, harness, hooks, failures) -> ToolResult:
    def refuse(error_type: str, message: str, success: bool | None = None) -> ToolResult:
        message = bounded(message)
        return ToolResult(
            call,
            dumps({"error": message}),
            success,
            error_type,
            message,
            category=tool.category if tool else None,
        )

    if tool is None:
        name = _quote(call.name)
        if call.offered is not None:
            return refuse(
                "unknown_tool",
                f"unknown tool {name}: not available in this turn; use one of: "
                f"{', '.join(sorted(call.offered))}",
            )
        names = ", ".join(sorted(tools))
        return refuse("unknown_tool", f"unknown tool {name}. Available tools: {names}")
    if call.offered is not None and call.name not in call.offered:
        skills = list((call.unlocked_by or {}).get(call.name) or [])
        unlock = (
            f"; load_skill({skills[0]!r}) unlocks it"
            + (f" (so do: {', '.join(skills[1:])})" if len(skills) > 1 else "")
            if skills
            else ""
        )
        return refuse(
            "not_offered",
            f"tool {call.name!r} is not available in this turn{unlock}; available now: "
            f"{', '.join(sorted(call.offered))}",
        )
    if call.grants is not None and not allows(call.grants.get(call.name), tool.access_level):
        have = call.grants.get(call.name)
        return refuse(
            "access_denied",
            f"tool {call.name!r} needs {tool.access_level} access and this agent's skills grant "
            f"{have + ' access' if have else 'none'} to it; answer without it, or ask for an "
            "agent whose skills grant it",
        )
    try:
        kwargs = _parse_arguments(tool, call.arguments)
    except ValueError as e:
        return refuse("invalid_arguments", str(e))
    for hook in hooks:
        try:
            refusal = hook.before_call(call, tool)
        except Exception as e:  # a broken hook does not stop the tool
            failures.record(hook, "before_call", e)
            continue
        if refusal:
            return refuse("circuit_open", refusal)
    ran, value = _run_with_timeout(tool, kwargs, harness, call.agent)
    if ran:
        output = safe_text(value) if isinstance(value, str) else dumps(value)
        return ToolResult(call, output, True, category=tool.category)
    if isinstance(value, _TimedOut):
        return refuse(TIMEOUT, f"{value}; try again later or use another tool", success=False)
    if not isinstance(value, Exception):  # KeyboardInterrupt, SystemExit: not the model's
        raise value
    fault = fault_of(value)
    message = _shorten_quotes(str(value), kwargs)
    if fault == CALLER_ERROR:  # the tool answered: the request cannot be met as asked
        return refuse(CALLER_ERROR, message, success=None)
    return refuse(fault, f"{call.name} failed: {type(value).__name__}: {message}", False)


def _long_strings(value: Any, found: list[str]) -> list[str]:
    if isinstance(value, str) and len(value) > QUOTE_CHARS:
        found.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _long_strings(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _long_strings(item, found)
    return found


def _shorten_quotes(message: str, arguments: dict) -> str:
    """A tool's error message with every long argument it quotes cut to a short prefix."""
    for text in sorted(_long_strings(arguments, []), key=len, reverse=True):
        if text in message:
            message = message.replace(text, f"{text[:QUOTE_CHARS]}...({len(text)} chars)")
    return message
