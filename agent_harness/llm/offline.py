"""An offline, scripted, OpenAI-compatible model for the workshop and CI.

`OfflineModel` serves ``GET /v1/models`` and ``POST /v1/chat/completions`` on 127.0.0.1, so the
real ``openai`` client can talk to it::

    with OfflineModel() as model:
        client = openai.OpenAI(base_url=model.base_url, api_key="offline")

It replays the tool calls scripted in `agent_harness.llm.scenarios` for the demo questions and
writes final answers that start with ``[offline replay]`` and quote the tool results it was sent,
so a participant can see what the agent loop did. Tests can `enqueue` exact responses, which are
served first, and read every request body from `requests`.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import re
import threading
import time
from collections import deque
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agent_harness.llm.scenarios import (
    QUESTION,
    Scenario,
    StepContext,
    ToolCall,
    ToolResult,
    find_scenario,
)
from agent_harness.llm.skill_choice import (
    DISCLOSURE_ID,
    is_disclosure,
    loaded_skills,
    read_manifest,
    skill_for,
)

__all__ = ["MODEL_NAME", "OfflineModel", "start_offline_model"]

MODEL_NAME = "offline-replay"
ANSWER_PREFIX = "[offline replay]"
_MAX_BODY_BYTES = 32 * 1024 * 1024
_EXCERPT_CHARS = 160
# The agent loop may put context (memories, skills) before the question; prefer a labelled one.
_QUESTION_LABEL = re.compile(r"(?:^|\n)\s*question\s*:\s*", re.IGNORECASE)


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
                (_call_id("queued", len(messages), i, messages), call["name"], call["arguments"])
                for i, call in enumerate(queued["tool_calls"])
            ]
            return _completion(body, queued["content"], calls)
        content, calls = _replay(body)
        return _completion(body, content, calls)


# --- replay logic ---------------------------------------------------------------------------------


def _text(content: Any) -> str:
    """Message content as text (it may be a list of content parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def _question(message: dict[str, Any]) -> str:
    text = _text(message.get("content"))
    labelled = _QUESTION_LABEL.split(text)
    # After a "Question:" label, the question is the paragraph that follows it.
    return labelled[-1].strip().split("\n\n")[0].strip() if len(labelled) > 1 else text.strip()


def _call_id(
    scenario: str, step: int, index: int, messages: list[Any], prefix: str = "call_"
) -> str:
    users = [_text(m.get("content")) for m in messages if m.get("role") == "user"]
    # The user-turn count keeps ids unique when a conversation asks the same question twice.
    key = f"{scenario}|{len(users)}|{step}|{index}|{users[0] if users else ''}"
    return prefix + hashlib.sha256(key.encode()).hexdigest()[:20]


def _offered_tools(body: dict[str, Any]) -> set[str]:
    names = set()
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.add(function["name"])
    choice = body.get("tool_choice")
    if choice == "none":
        return set()
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        names &= {choice["function"].get("name")}
    return names


def _conversation(messages: list[dict]) -> tuple[str | None, list[list[ToolResult]]]:
    """Return the last user question and the tool results since it, one list per round."""
    users = [i for i, message in enumerate(messages) if message.get("role") == "user"]
    if not users:
        return None, []
    anchor = users[-1]
    # A user message right after tool results is an instruction (the agent loop's "answer
    # now"), not a new question: keep the question before it and the tool rounds since then.
    if len(users) > 1 and anchor > 0 and messages[anchor - 1].get("role") == "tool":
        anchor = users[-2]
    rounds: list[list[ToolResult]] = []
    calls: dict[str, tuple[str, str]] = {}
    for message in messages[anchor + 1 :]:
        if message.get("role") == "assistant" and message.get("tool_calls"):
            rounds.append([])
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                calls[call.get("id")] = (function.get("name", "?"), function.get("arguments", ""))
        elif message.get("role") == "tool" and rounds:
            call_id = message.get("tool_call_id", "")
            name, arguments = calls.get(call_id, (message.get("name", "?"), ""))
            rounds[-1].append(ToolResult(call_id, name, arguments, _text(message.get("content"))))
    return _question(messages[anchor]), rounds


def _plan_step(
    scenario: Scenario | None,
    step: int,
    ctx: StepContext,
    offered: set[str],
    skills: dict | None = None,
) -> tuple[list[tuple[str, dict[str, Any]]], bool]:
    """The (tool, arguments) pairs to call next, and whether they are a disclosure round
    (``load_skill`` calls that unlock the scripted tools); empty means "write the final answer".
    ``skills`` holds the manifest (``read_manifest``) and the skills already loaded."""
    if scenario is None:
        planned = [ToolCall("search_knowledge", {"query": QUESTION, "k": 5})] if step == 0 else []
    else:
        planned = scenario.steps[step] if step < len(scenario.steps) else []
    manifest, loaded = (skills or {}).get("manifest", {}), (skills or {}).get("loaded", set())
    can_load = "load_skill" in offered and bool(manifest)
    calls: list[tuple[str, dict[str, Any]]] = []
    unlock: list[str] = []
    for call in planned:
        if call.name == "list_skills" and "list_skills" not in offered and manifest:
            continue  # the manifest in the prompt already lists the skills
        arguments = call.arguments_for(ctx)
        if arguments is None:
            continue
        needed = skill_for(call.name, manifest, loaded) if can_load else None
        if call.name in offered:
            calls.append((call.name, arguments))
        elif needed:
            unlock.append(needed)
        elif call.fallback and call.fallback in offered:
            calls.append((call.fallback, arguments))
        elif call.fallback and can_load and skill_for(call.fallback, manifest, loaded):
            unlock.append(skill_for(call.fallback, manifest, loaded))
        elif "search_knowledge" in offered and ctx.latest("search_knowledge") is None:
            # The scripted tool is not available this turn: look the question up instead.
            calls.append(("search_knowledge", {"query": ctx.question, "k": 5}))
    if unlock:
        return [("load_skill", {"name": name}) for name in dict.fromkeys(unlock)], True
    return list({json.dumps(call, sort_keys=True): call for call in calls}.values()), False


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _EXCERPT_CHARS else flat[: _EXCERPT_CHARS - 1] + "…"


def _final_answer(scenario: Scenario | None, results: list[ToolResult]) -> str:
    scripted = [] if scenario is None else [c.name for step in scenario.steps for c in step]
    if scenario is None:
        lead = "No scripted scenario for this question;"
    else:
        lead = f"Scripted for this question: {', '.join(dict.fromkeys(scripted))};"
    if not results:
        return f"{ANSWER_PREFIX} {lead} no tool was called, so there is no tool output to quote."
    if scenario is None or not any(result.name in scripted for result in results):
        lead += " here is what the tools returned:"
    else:
        lead = scenario.answer_hint
    names = ", ".join(dict.fromkeys(result.name for result in results))
    lines = [f"{ANSWER_PREFIX} {lead}", f"Tools called: {names}."]
    lines += [f'- {result.name}: "{_excerpt(result.content)}"' for result in results]
    return "\n".join(lines)


def _replay(body: dict[str, Any]) -> tuple[str | None, list[tuple[str, str, str]]]:
    """Play the next scripted step: (answer text, []) or (None, [(id, name, arguments)])."""
    messages = body["messages"]
    question, rounds = _conversation(messages)
    if question is None:
        return f"{ANSWER_PREFIX} There is no user message to answer.", []
    # Skill loads the model made to unlock tools are not steps of the script.
    step = sum(1 for r in rounds if not is_disclosure([c.call_id for c in r]))
    found = find_scenario(question)
    scenario, groups = found if found is not None else (None, {})
    results = [result for round_ in rounds for result in round_]
    manifest = read_manifest(messages)
    offered = _offered_tools(body)
    if scenario is not None and manifest and "list_skills" not in offered:
        # The manifest in the prompt lists the skills: skip the script's list_skills steps.
        skip = 0
        while skip < len(scenario.steps) and {c.name for c in scenario.steps[skip]} == {
            "list_skills"
        }:
            skip += 1
        step += skip
    ctx = StepContext(
        question, groups, tuple(results), tuple(rounds[-1] if rounds else ()), manifest
    )
    skills = {"manifest": manifest, "loaded": loaded_skills(messages)}
    # No tools (or tool_choice "none") is how the agent loop asks for its forced final answer.
    planned, disclosure = _plan_step(scenario, step, ctx, offered, skills) if offered else ([], 0)
    if not planned:
        return _final_answer(scenario, results), []
    name = scenario.name if scenario is not None else "unknown"
    return None, [
        (
            _call_id(name, step, index, messages, DISCLOSURE_ID if disclosure else "call_"),
            tool,
            json.dumps(arguments),
        )
        for index, (tool, arguments) in enumerate(planned)
    ]


def _tokens(value: Any) -> int:
    # About four characters per token: good enough for a usage block nobody bills.
    return max(1, len(json.dumps(value, default=str)) // 4)


def _completion(
    body: dict[str, Any], content: str | None, calls: list[tuple[str, str, str]]
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
            for call_id, name, args in calls
        ]
    prompt = _tokens(body.get("messages")) + _tokens(body.get("tools") or [])
    completion = _tokens(message)
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
    usage = {"prompt_tokens": prompt, "completion_tokens": completion}
    return {
        "id": "chatcmpl-offline-" + digest[:24],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL_NAME,
        "choices": [choice],
        "usage": {**usage, "total_tokens": prompt + completion},
    }


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
