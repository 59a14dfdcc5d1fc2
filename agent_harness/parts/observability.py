"""OpenTelemetry spans for tool calls and agent turns (GenAI semantic conventions).

The harness only uses ``opentelemetry-api``: without an SDK every span is a no-op that costs a
few microseconds. Two ways to see the spans:

* **OTLP**: set ``OTEL_EXPORTER_OTLP_ENDPOINT`` (e.g. ``http://localhost:4318``, a Phoenix,
  Langfuse or Jaeger collector) and :func:`configure_from_env` (called by
  :func:`agent_harness.connect`) installs the SDK with a batching OTLP/HTTP exporter;
* **in a notebook**: ``with capture_spans() as spans: ...`` collects the finished spans of the
  block in memory (the SDK's span processor API, no exporter needed).

Names and attributes follow the GenAI conventions: a tool call is a span ``execute_tool
{gen_ai.tool.name}`` with ``gen_ai.operation.name = execute_tool``, ``gen_ai.tool.name``,
``gen_ai.tool.call.id``, ``gen_ai.tool.type`` and, on failure, ``error.type`` (whose fault:
``caller_error``, a refusal such as ``invalid_arguments``, or a tool fault ``tool_error``,
``upstream_error``, ``timeout``: :mod:`agent_harness.tools.faults`); its duration also
goes to the histogram ``gen_ai.execute_tool.duration`` (seconds). An agent turn is a span
``invoke_agent {gen_ai.agent.name}`` and each model request a span ``chat {gen_ai.request.model}``.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

__all__ = [
    "tool_span",
    "start_span",
    "end_span",
    "capture_spans",
    "configure_from_env",
    "TRACER_NAME",
]

TRACER_NAME = "agent_harness"
_tracer = trace.get_tracer(TRACER_NAME)
_duration = metrics.get_meter(TRACER_NAME).create_histogram(
    "gen_ai.execute_tool.duration", unit="s", description="Duration of tool executions"
)
_setup_lock = threading.Lock()
_captures: list[list] = []
_forwarder_installed = False


class _ToolSpan:
    """The span of one tool call; :meth:`finish` records the outcome."""

    def __init__(self, span) -> None:
        self.span = span

    def finish(self, result) -> None:
        attributes = {"gen_ai.tool.name": result.name, "gen_ai.operation.name": "execute_tool"}
        if result.error_type:
            attributes["error.type"] = result.error_type
            self.span.set_attribute("error.type", result.error_type)
            self.span.set_status(Status(StatusCode.ERROR, (result.error or "")[:200]))
        self.span.set_attribute("workshop.tool.output_chars", result.output_chars)
        _duration.record(result.duration_ms / 1000.0, attributes)


@contextmanager
def tool_span(call, tool) -> Iterator[_ToolSpan]:
    """A span ``execute_tool {name}`` around one tool call (child of the current span)."""
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": str(call.name),
        "gen_ai.tool.call.id": str(call.call_id),
        "gen_ai.tool.type": "function",
    }
    if tool is not None:
        attributes["gen_ai.tool.description"] = tool.description[:200]
        attributes["workshop.tool.category"] = tool.category
    if call.thread_id:
        attributes["gen_ai.conversation.id"] = str(call.thread_id)
    with _tracer.start_as_current_span(
        f"execute_tool {call.name}",
        kind=SpanKind.INTERNAL,
        attributes=attributes,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        yield _ToolSpan(span)


def start_span(name: str, attributes: dict[str, Any], kind: SpanKind = SpanKind.INTERNAL):
    """Start a span and make it the current one; returns ``(span, token)`` for :func:`end_span`.

    For spans that open and close in different hook calls (an agent turn)."""
    span = _tracer.start_span(name, kind=kind, attributes=attributes)
    token = otel_context.attach(trace.set_span_in_context(span))
    return span, token


def end_span(
    span, token, error_type: str | None = None, error: BaseException | None = None, **attributes
) -> None:
    """End a span from :func:`start_span` and restore the previous current span; with an
    ``error_type`` (and the ``error`` itself, recorded as an exception event) it ends failed."""
    for key, value in attributes.items():
        if value is not None:
            span.set_attribute(key, value)
    if error is not None:
        span.record_exception(error)
    if error_type:
        span.set_attribute("error.type", error_type)
        span.set_status(Status(StatusCode.ERROR, str(error or "")[:200] or None))
    span.end()
    otel_context.detach(token)


def _sdk_provider():
    """The SDK tracer provider, installed globally on first use (once per process)."""
    from opentelemetry.sdk.trace import TracerProvider

    provider = trace.get_tracer_provider()
    if isinstance(provider, TracerProvider):
        return provider
    with _setup_lock:
        provider = trace.get_tracer_provider()
        if not isinstance(provider, TracerProvider):
            from opentelemetry.sdk.resources import Resource

            provider = TracerProvider(resource=Resource.create({"service.name": "agent-harness"}))
            trace.set_tracer_provider(provider)
    return trace.get_tracer_provider()


def configure_from_env() -> str:
    """Install OTLP/HTTP export when ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or the traces variant)
    is set; otherwise do nothing. Returns what it did, for ``workshop doctor``."""
    if not (
        os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    ):
        return "no OTLP endpoint set: spans are no-ops unless captured"
    global _exporting
    with _setup_lock:
        if _exporting:
            return "OTLP export already configured"
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:  # installed without the extra: say how, do not stop the harness
            message = (
                "OTEL_EXPORTER_OTLP_ENDPOINT is set but the OTLP exporter is not installed:"
                " spans are not exported. Install it with"
                " pip install 'agent-harness-workshop[otlp]' (or unset the variable)."
            )
            warnings.warn(message, RuntimeWarning, stacklevel=2)
            return message
        _exporting = True
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    _sdk_provider().add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return "OTLP export to " + (
        os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        or os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"]
    )


_exporting = False


class _Forwarder:
    """A span processor that hands finished spans to the active :func:`capture_spans` blocks."""

    def on_start(self, span, parent_context=None) -> None:
        pass

    def on_end(self, span) -> None:
        for sink in list(_captures):
            sink.append(span)

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True

    def _on_ending(self, span) -> None:  # newer SDKs call it; nothing to do
        pass


@contextmanager
def capture_spans() -> Iterator[list]:
    """Collect the spans that finish inside the block (installs the SDK if needed).

    Yields:
        A list that fills with ``ReadableSpan`` objects (``.name``, ``.attributes``,
        ``.parent``, ``.context``, ``.start_time``, ``.end_time`` in ns).
    """
    global _forwarder_installed
    provider = _sdk_provider()
    with _setup_lock:
        if not _forwarder_installed:
            provider.add_span_processor(_Forwarder())
            _forwarder_installed = True
    sink: list = []
    _captures.append(sink)
    try:
        yield sink
    finally:
        _captures.remove(sink)
