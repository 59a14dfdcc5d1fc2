"""Decision provenance: every agent turn leaves its trail in the database, in the same
transaction-capable database as everything else (not a second graph store).

:class:`ProvenanceRecorder` is a turn hook (see :mod:`agent_harness.agent.agent_loop`). Per turn
it writes one ``agent_turns`` row and a tree of ``turn_events``:

* ``tools_offered`` (strategy, agent, count, schema bytes and tokens) with one
  ``tool_offered`` child per tool (position, schema bytes, tokens);
* ``model_step`` per model request (request size, tools sent, usage tokens, duration, forced),
  with one ``tool_call`` child per call (linked to its telemetry row by ``telemetry_id``; ok,
  error type, output size) and an ``offload`` child when the output was stored whole;
* ``identity`` first, when the harness acts for an identity: who, their roles and regions,
  and what the database's access policy showed them;
* ``answer`` (forced or not), or ``error`` when the turn failed (the model call or the loop
  raised): the turn's status is then ``failed`` and the event says what went wrong.

* ``skill_loaded`` under the ``load_skill`` call that unlocked tools (or under
  ``tools_offered`` for skills loaded in an earlier turn of the thread), with one
  ``tool_offered`` child per tool it appended (and what it withheld, cycles, missing skills);
  ``fetch_tool_output`` added after an offload is a ``tool_offered`` event under the call.

Later capabilities add their own event kinds to the same tree. :class:`Provenance`
(``h.provenance``) reads it back: :meth:`Provenance.explain` returns a turn as a tree,
:meth:`Provenance.turns_using` and :meth:`Provenance.offered_never_called` answer the two
classic questions. On Oracle the tables are also a SQL property graph (``GRAPH_TABLE``); on
the embedded backend the walks are recursive CTEs.
"""

from __future__ import annotations

import json

from agent_harness.agent.turns import ModelStep, ToolCallRecord, TurnHooks, TurnResult
from agent_harness.backends.roles import utc_now
from agent_harness.foundation.values import finite
from agent_harness.parts.observability import end_span, start_span
from agent_harness.parts.token_count import schema_tokens

__all__ = ["Provenance", "ProvenanceRecorder", "TurnTracer", "identity_detail", "schema_bytes"]


def identity_detail(identity) -> dict:
    """The ``identity`` event's detail: who a turn acted for and what the database showed them
    (the stored trail and the glass box's live one have the same)."""
    return finite({**identity.to_dict(), "policy": identity.describe()})


def schema_bytes(schema: dict) -> int:
    """Size of a tool schema as sent (compact JSON, UTF-8 bytes)."""
    return len(json.dumps(schema, separators=(",", ":"), ensure_ascii=False).encode())


class ProvenanceRecorder(TurnHooks):
    """Writes each turn's trail (a turn hook)."""

    def __init__(self, harness) -> None:
        self.harness = harness
        self.store = harness.backend.provenance
        self._seq: dict[str, int] = {}
        self._step_event: dict[tuple[str, int], int] = {}
        self._call_event: dict[tuple[str, str], int] = {}
        self._offered_event: dict[str, int] = {}

    def _event(self, turn: TurnResult, kind: str, parent: int | None = None, **fields) -> int:
        seq = self._seq.get(turn.turn_id, 0) + 1
        self._seq[turn.turn_id] = seq
        return self.store.add_event(
            {
                "turn_id": turn.turn_id,
                "parent_id": parent,
                "seq": seq,
                "kind": kind,
                "at": utc_now(),
                **fields,
                "detail": finite(fields.get("detail") or {}),  # stored as strict JSON
            }
        )

    def on_turn_start(self, turn: TurnResult) -> None:
        scope = self.harness.scope
        self.store.start_turn(
            {
                "turn_id": turn.turn_id,
                "thread_id": turn.thread_id,
                "user_id": scope.user_id,
                "agent_id": scope.agent_id,
                "question": turn.question,
                "model": turn.model,
                "started_at": utc_now(),
            }
        )
        identity = getattr(self.harness, "identity", None)
        if identity is not None and not identity.owner:  # why this turn saw what it saw
            # seq 0, written before any other hook's: the trail starts with it
            self.store.add_event(
                {
                    "turn_id": turn.turn_id,
                    "seq": 0,
                    "kind": "identity",
                    "at": utc_now(),
                    "name": identity.user,
                    "detail": identity_detail(identity),
                }
            )

    def on_tools_offered(self, turn: TurnResult) -> None:
        sizes = [schema_bytes(t) for t in turn.offered]
        tokens = [schema_tokens(t) for t in turn.offered]
        parent = self._event(
            turn,
            "tools_offered",
            name=turn.strategy,
            detail={
                "strategy": turn.strategy,
                "agent": turn.agent,
                "count": len(sizes),
                "schema_bytes": sum(sizes),
                "tokens": sum(tokens),
            },
        )
        self._offered_event[turn.turn_id] = parent
        for position, schema in enumerate(turn.offered, start=1):
            self._offered(turn, parent, position, schema)

    def _offered(self, turn, parent, position, schema, **extra) -> None:
        self._event(
            turn,
            "tool_offered",
            parent,
            name=schema["function"]["name"],
            detail={
                "position": position,
                "schema_bytes": schema_bytes(schema),
                "tokens": schema_tokens(schema),
                **extra,
            },
        )

    def on_tools_unlocked(self, turn: TurnResult, step, record, unlock) -> None:
        parent = (
            self._call_event.get((turn.turn_id, record.id))
            if record is not None
            else self._offered_event.get(turn.turn_id)
        )
        if unlock.skill is not None:
            parent = self._event(
                turn,
                "skill_loaded",
                parent,
                name=unlock.skill,
                ok=True,
                detail={
                    "reason": unlock.reason,
                    "added": unlock.added,
                    "already": unlock.already,
                    "withheld": unlock.withheld,
                    "closed": unlock.closed,
                    "cycles": unlock.cycles,
                    "missing": unlock.missing,
                },
            )
        names = turn.offered_names
        for tool in unlock.added:
            position = names.index(tool) + 1
            self._offered(
                turn,
                parent,
                position,
                turn.offered[position - 1],
                reason=unlock.reason,
                via=unlock.via.get(tool),
            )

    def on_model_step(self, turn: TurnResult, step: ModelStep) -> None:
        self._step_event[(turn.turn_id, step.index)] = self._event(
            turn,
            "model_step",
            name=turn.model,
            duration_ms=step.duration_ms,
            detail={
                "index": step.index,
                "request_chars": step.request_chars,
                "tools_sent": step.tools_sent,
                "tool_tokens": step.tool_tokens,
                "forced": step.forced,
                "tool_calls": len(step.reply.tool_calls or []) if step.reply else 0,
                "usage": step.usage,
            },
        )

    def on_tool_call(self, turn: TurnResult, step: ModelStep, record: ToolCallRecord) -> None:
        result = record.result
        event = self._event(
            turn,
            "tool_call",
            self._step_event.get((turn.turn_id, step.index)),
            name=record.name,
            ok=result.ok,
            telemetry_id=result.telemetry_id,
            duration_ms=result.duration_ms,
            detail={
                "call_id": record.id,
                "error_type": result.error_type,
                "output_chars": result.output_chars,
                "arguments": record.arguments[:500],
            },
        )
        self._call_event[(turn.turn_id, record.id)] = event
        if record.offloaded:
            self._event(
                turn,
                "offload",
                event,
                name=record.name,
                detail={
                    "memory_id": record.memory_id,
                    "chars": result.output_chars,
                    "shown_chars": len(record.shown),
                },
            )

    def on_turn_end(self, turn: TurnResult) -> None:
        self._event(
            turn, "answer", ok=True, detail={"forced": turn.forced_final, "chars": len(turn.answer)}
        )
        self._finish(turn, "forced" if turn.forced_final else "answered", turn.answer)

    def on_turn_error(self, turn: TurnResult, error: BaseException) -> None:
        self._event(
            turn,
            "error",
            name=type(error).__name__,
            ok=False,
            detail={"error_type": type(error).__name__, "message": turn.error or str(error)},
        )
        self._finish(turn, "failed", None)

    def _finish(self, turn: TurnResult, status: str, answer: str | None) -> None:
        usage = turn.usage()
        self.store.finish_turn(
            turn.turn_id,
            {
                "answer": answer,
                "status": status,
                "duration_ms": turn.duration_ms,
                "model": turn.model,
                "prompt_tokens": usage.get("prompt_tokens"),
                "completion_tokens": usage.get("completion_tokens"),
                "total_tokens": usage.get("total_tokens"),
            },
        )
        self._seq.pop(turn.turn_id, None)
        self._offered_event.pop(turn.turn_id, None)
        for cache in (self._step_event, self._call_event):
            for key in [k for k in cache if k[0] == turn.turn_id]:
                del cache[key]


class TurnTracer(TurnHooks):
    """OpenTelemetry spans of a turn: ``invoke_agent {agent}`` around it, ``chat {model}``
    around each model request; the tool calls' ``execute_tool`` spans nest inside."""

    def __init__(self, harness) -> None:
        self.harness = harness
        self._spans: dict = {}

    def on_turn_start(self, turn: TurnResult) -> None:
        self._spans[turn.turn_id] = start_span(
            f"invoke_agent {self.harness.scope.agent_id}",
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": self.harness.scope.agent_id,
                "gen_ai.conversation.id": turn.thread_id,
                "workshop.turn_id": turn.turn_id,
            },
        )

    def before_model_step(self, turn: TurnResult, step: ModelStep) -> None:
        model = turn.model or "model"
        self._spans[(turn.turn_id, step.index)] = start_span(
            f"chat {model}", {"gen_ai.operation.name": "chat", "gen_ai.request.model": model}
        )

    def on_model_step(self, turn: TurnResult, step: ModelStep) -> None:
        span, token = self._spans.pop((turn.turn_id, step.index))
        end_span(
            span,
            token,
            **{
                "gen_ai.usage.input_tokens": step.usage.get("prompt_tokens"),
                "gen_ai.usage.output_tokens": step.usage.get("completion_tokens"),
                "gen_ai.response.model": turn.model,
            },
        )

    def on_turn_end(self, turn: TurnResult) -> None:
        span, token = self._spans.pop(turn.turn_id)
        end_span(span, token)

    def on_turn_error(self, turn: TurnResult, error: BaseException) -> None:
        """End the spans the turn left open, innermost first, marked with the error."""
        open_steps = sorted(k for k in self._spans if isinstance(k, tuple) and k[0] == turn.turn_id)
        for key in reversed(open_steps):
            span, token = self._spans.pop(key)
            end_span(span, token, error_type=type(error).__name__, error=error)
        if turn.turn_id in self._spans:
            span, token = self._spans.pop(turn.turn_id)
            end_span(span, token, error_type=type(error).__name__, error=error)


class Provenance:
    """Reads the trail (``h.provenance``).

    A harness acting for an identity reads that identity's turns only (its memory scope's
    ``user_id``), like its memories: another identity's questions, answers and tool arguments
    never reach it, whatever turn id it asks for. The workshop owner reads every turn.

    Args:
        backend: The backend whose ``provenance`` role holds the tables.
        user_id: Read only the turns of this ``user_id`` (None: every turn).
    """

    def __init__(self, backend, user_id: str | None = None) -> None:
        self.store = backend.provenance
        self.user_id = user_id

    def turns(self, limit: int = 20) -> list[dict]:
        """The latest turns, newest first."""
        return self.store.turns(limit, user_id=self.user_id)

    def explain(self, turn_id: str) -> dict:
        """A turn as a tree: the turn's row plus ``events``, each with its ``children``.

        Raises:
            KeyError: No turn with that id that this harness may read (the message lists the
                latest ones it may).
        """
        turn = self.store.turn(turn_id, user_id=self.user_id)
        if turn is None:
            latest = ", ".join(t["turn_id"] for t in self.turns(5)) or "none yet"
            raise KeyError(f"no turn {turn_id!r}; the latest turns: {latest}")
        nodes: dict[int, dict] = {}
        roots: list[dict] = []
        for event in self.store.events(turn_id):  # parents come before their children
            node = {**event, "children": []}
            nodes[event["id"]] = node
            parent = nodes.get(event["parent_id"])
            (parent["children"] if parent else roots).append(node)
        return {**turn, "events": roots}

    def render(self, turn_id: str) -> str:
        """The tree of :meth:`explain` as indented text (for a notebook or terminal)."""
        tree = self.explain(turn_id)
        lines = [
            f"turn {tree['turn_id']} [{tree['status']}] {tree['question']!r} "
            f"({tree['duration_ms'] or 0:.0f} ms, {tree['total_tokens'] or 0} tokens)"
        ]

        def walk(nodes: list[dict], depth: int) -> None:
            for node in nodes:
                ok = "" if node["ok"] is None else (" ok" if node["ok"] else " FAILED")
                detail = {k: v for k, v in node["detail"].items() if k != "arguments"}
                lines.append(
                    f"{'  ' * (depth + 1)}- {node['kind']}"
                    f"{' ' + node['name'] if node['name'] else ''}{ok} {detail}"
                )
                walk(node["children"], depth + 1)

        walk(tree["events"], 0)
        return "\n".join(lines)

    def turns_using(self, tool: str, failed: bool | None = None) -> list[dict]:
        """Turns that called ``tool`` (only with a failed call when ``failed=True``)."""
        return self.store.turns_using(tool, failed, user_id=self.user_id)

    def offered_never_called(self, turn_id: str | None = None) -> list[dict]:
        """Tools offered but never called in the same turn, with how many turns."""
        if turn_id is not None and self.store.turn(turn_id, user_id=self.user_id) is None:
            return []
        return self.store.offered_never_called(turn_id, user_id=self.user_id)
