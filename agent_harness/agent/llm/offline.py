"""An offline, scripted, OpenAI-compatible model for the workshop and CI.

`OfflineModel` serves ``GET /v1/models`` and ``POST /v1/chat/completions`` on 127.0.0.1, so the
real ``openai`` client can talk to it::

    with OfflineModel() as model:
        client = openai.OpenAI(base_url=model.base_url, api_key="offline")

It replays the tool calls scripted in `agent_harness.agent.llm.scenarios` for the demo questions
(`agent_harness.agent.llm.replay` decides each answer) and
writes final answers that start with ``[offline replay]`` and quote the tool results it was sent,
so a participant can see what the agent loop did. Tests can `enqueue` exact responses, which are
served first, and read every request body from `requests`.
"""

from __future__ import annotations

import atexit
import json
import threading
from collections import deque
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agent_harness.agent.llm.replay import MODEL_NAME, call_id, completion, replay

__all__ = ["MODEL_NAME", "OfflineModel", "start_offline_model"]

_MAX_BODY_BYTES = 32 * 1024 * 1024


class OfflineModel:
    """A scripted OpenAI-compatible chat model served over HTTP on loopback.

    Attributes:
        MODEL_NAME: The model id it reports and answers with.
        requests: Every chat completion request body received, oldest first.
    """

    MODEL_NAME = MODEL_NAME

    def __init__(self, port: int = 0) -> None:
        """Prepare the server; call `start` (or use ``with``) to serve.

        Args:
            port: TCP port on 127.0.0.1; 0 picks a free one.
        """
        self._port = port
        self._lock = threading.Lock()
        self._queue: deque[dict[str, Any]] = deque()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.requests: list[dict[str, Any]] = []

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self) -> OfflineModel:
        """Start serving from a daemon thread; does nothing if already running."""
        with self._lock:
            if self._server is not None:
                return self
            server = ThreadingHTTPServer(("127.0.0.1", self._port), _Handler)
            server.daemon_threads = True
            server.model = self  # type: ignore[attr-defined]
            thread = threading.Thread(
                target=server.serve_forever,
                kwargs={"poll_interval": 0.1},
                name=f"offline-model-{server.server_address[1]}",
                daemon=True,
            )
            thread.start()
            self._server, self._thread = server, thread
        return self

    def stop(self) -> None:
        """Stop serving and free the port; safe to call twice."""
        with self._lock:
            server, thread = self._server, self._thread
            self._server = self._thread = None
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> OfflineModel:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        """True while the server is serving."""
        return self._server is not None

    @property
    def base_url(self) -> str:
        """The ``base_url`` to give the openai client, e.g. ``http://127.0.0.1:PORT/v1``."""
        server = self._server
        if server is None:
            raise RuntimeError("The offline model is not running: call start() first.")
        return f"http://127.0.0.1:{server.server_address[1]}/v1"

    # --- test hooks ---------------------------------------------------------------------------

    def enqueue(self, response: str | dict[str, Any]) -> None:
        """Queue an exact response, served (first in, first out) before any scenario logic.

        Args:
            response: A string (the final answer text) or a dict with ``"tool_calls"``, a list
                of ``{"name": ..., "arguments": dict or JSON string}``, and optional
                ``"content"``.

        Raises:
            TypeError: If ``response`` is neither a string nor a dict.
            ValueError: If a dict has neither ``content`` nor well-formed ``tool_calls``.
        """
        if isinstance(response, str):
            item: dict[str, Any] = {"content": response, "tool_calls": []}
        elif isinstance(response, dict):
            calls = []
            for call in response.get("tool_calls") or []:
                if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                    raise ValueError(
                        f"Each queued tool call needs a 'name' string, got {call!r}; "
                        'use {"name": "run_sql", "arguments": {"sql": "..."}}.'
                    )
                arguments = call.get("arguments", {})
                if not isinstance(arguments, str):
                    arguments = json.dumps(arguments)
                calls.append({"name": call["name"], "arguments": arguments})
            if not calls and not isinstance(response.get("content"), str):
                raise ValueError("A queued dict needs 'tool_calls' or a 'content' string.")
            item = {"content": response.get("content"), "tool_calls": calls}
        else:
            raise TypeError(f"enqueue() takes a str or a dict, not {type(response).__name__}.")
        with self._lock:
            self._queue.append(item)

    def reset(self) -> None:
        """Forget queued responses and recorded requests."""
        with self._lock:
            self._queue.clear()
            self.requests.clear()

    # --- request handling (called from server threads) ----------------------------------------

    def _record(self, body: dict[str, Any], take_queued: bool = True) -> dict[str, Any] | None:
        """Record a request body and pop the next queued response, if any (and asked to)."""
        with self._lock:
            self.requests.append(body)
            return self._queue.popleft() if take_queued and self._queue else None

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """Answer one chat completion request: a queued response first, else the scenario.

        Args:
            body: A validated, non-streaming request body; it is recorded in `requests`.

        Returns:
            The ``chat.completion`` JSON object to send back.
        """
        messages = body["messages"]
        queued = self._record(body)
        if queued is not None:
            calls = [
                (call_id("queued", len(messages), i, messages), call["name"], call["arguments"])
                for i, call in enumerate(queued["tool_calls"])
            ]
            return completion(body, queued["content"], calls)
        content, calls = replay(body)
        return completion(body, content, calls)


# --- HTTP -----------------------------------------------------------------------------------------


def _error(message: str, code: str, param: str | None = None) -> dict[str, Any]:
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    }


class _Handler(BaseHTTPRequestHandler):
    server_version = "OfflineReplay/1.0"

    def log_message(self, *args: Any) -> None:
        pass  # keep notebooks and test output quiet

    def _send(self, status: HTTPStatus, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _not_found(self) -> None:
        path = self.path.split("?")[0]
        message = f"Unknown path {self.command} {path}; the offline model serves "
        message += "GET /v1/models and POST /v1/chat/completions."
        self._send(HTTPStatus.NOT_FOUND, _error(message, "unknown_url"))

    def do_GET(self) -> None:  # noqa: N802
        if self.path.split("?")[0].rstrip("/") != "/v1/models":
            return self._not_found()
        model = {"id": MODEL_NAME, "object": "model", "created": 0, "owned_by": "agent_harness"}
        self._send(HTTPStatus.OK, {"object": "list", "data": [model]})

    def do_POST(self) -> None:  # noqa: N802
        if self.path.split("?")[0].rstrip("/") != "/v1/chat/completions":
            return self._not_found()
        body, problem = self._read_body()
        if problem is not None:
            return self._send(HTTPStatus.BAD_REQUEST, problem)
        model: OfflineModel = self.server.model  # type: ignore[attr-defined]
        if body.get("stream"):
            model._record(body, take_queued=False)
            message = "Streaming is not supported by the offline model: send stream=false."
            problem = _error(message, "stream_unsupported", "stream")
            return self._send(HTTPStatus.BAD_REQUEST, problem)
        try:
            answer = model.complete(body)
        except Exception as exc:  # a bug in a scenario must not kill the server thread
            message = f"The offline model failed on this request: {type(exc).__name__}: {exc}"
            return self._send(HTTPStatus.INTERNAL_SERVER_ERROR, _error(message, "replay_failed"))
        self._send(HTTPStatus.OK, answer)

    def _read_body(self) -> tuple[dict[str, Any], dict[str, Any] | None]:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length <= 0 or length > _MAX_BODY_BYTES:
            self.close_connection = True
            message = f"Send a JSON body of at most {_MAX_BODY_BYTES} bytes with a Content-Length."
            return {}, _error(message, "invalid_body")
        try:
            body = json.loads(self.rfile.read(length))
        except (ValueError, UnicodeDecodeError) as exc:
            return {}, _error(f"The request body is not valid JSON: {exc}", "invalid_json")
        if not isinstance(body, dict):
            return {}, _error("The request body must be a JSON object.", "invalid_body")
        messages = body.get("messages")
        if (
            not isinstance(messages, list)
            or not messages
            or not all(isinstance(m, dict) for m in messages)
        ):
            message = "'messages' must be a list of chat message objects."
            return {}, _error(message, "invalid_messages", "messages")
        for entry in messages:
            calls = entry.get("tool_calls") or []
            if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
                message = "'tool_calls' must be a list of objects."
                return {}, _error(message, "invalid_messages", "messages")
        return body, None


# --- process-wide instance ------------------------------------------------------------------------

_shared: OfflineModel | None = None
_shared_lock = threading.Lock()


def start_offline_model() -> OfflineModel:
    """Return the process-wide offline model, starting it on first use.

    It is stopped when the interpreter exits.

    Returns:
        The running shared `OfflineModel`.
    """
    global _shared
    with _shared_lock:
        if _shared is None or not _shared.running:
            if _shared is None:
                atexit.register(_stop_shared)
            _shared = OfflineModel().start()
        return _shared


def _stop_shared() -> None:
    if _shared is not None:
        _shared.stop()
