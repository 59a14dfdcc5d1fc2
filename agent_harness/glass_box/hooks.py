"""The glass box's turn hooks: the trail of the running turn, built live, and the context meter.

:class:`PanelHooks` is a :class:`~agent_harness.agent.turns.TurnHooks` that implements every stage
of
a turn. At each one it adds to :attr:`PanelHooks.tree` (the running turn in the shape of
:meth:`~agent_harness.agent.provenance.Provenance.explain`) what happened, with what the panel
shows beyond the stored trail (the skills in the manifest, each call's breaker state and
offload handle, which memory hit supplied a call's argument), recomputes the context budget of
the NEXT request (:func:`~agent_harness.glass_box.budget.context_budget`), then calls
``on_change``. It never writes to the database: the provenance recorder does that. It times
each stage (:attr:`PanelHooks.timings`; ``bench/bench_glass_box.py``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from agent_harness.agent.knowledge_hits import KnowledgeRecorder, hit_for_call, knowledge_hits
from agent_harness.agent.provenance import identity_detail
from agent_harness.agent.turns import STAGES, ModelStep, ToolCallRecord, TurnHooks, TurnResult
from agent_harness.glass_box.budget import context_budget, manifest_span, window_for
from agent_harness.parts.token_count import schema_tokens
from agent_harness.tools.policy import effective_state

__all__ = ["PanelHooks", "STAGES"]

_SKILL_LINE = re.compile(r"^- ([a-z0-9][a-z0-9-]*): ", re.MULTILINE)


def _node(kind: str, name=None, ok=None, duration_ms=None, detail=None, **fields) -> dict:
    return {
        "kind": kind,
        "name": name,
        "ok": ok,
        "duration_ms": duration_ms,
        "detail": {**(detail or {}), **fields},
        "children": [],
    }


def _manifest_skills(messages: list[dict]) -> list[str]:
    """The skill names of the manifest in the turn's first messages."""
    for message in messages[:2]:
        text = str(message.get("content") or "")
        span = manifest_span(text)
        if span is not None:
            return _SKILL_LINE.findall(text[span[0] : span[1]])
    return []


class PanelHooks(TurnHooks):
    """Builds the running turn's trail and the next request's budget, live.

    Args:
        harness: The harness (its knowledge recorder's hits, the breaker states).
        on_change: Called with this object after every stage (the panel redraws).
        budget: ``budget(messages, tools, window) -> dict`` (default: the library's
            :func:`context_budget`; notebook 08 plugs the attendee's in).
        window: The model's context window (default: :func:`window_for` the turn's model).

    Attributes:
        tree: The running (or last) turn, as :meth:`Provenance.explain` shapes it.
        budget_now: The budget of the next request (None before the first turn).
        timings: ``(stage, milliseconds)`` of every stage run, on_change included.
    """

    def __init__(
        self,
        harness,
        on_change: Callable[[PanelHooks], None] | None = None,
        budget: Callable[[list, list, int], dict] = context_budget,
        window: int | None = None,
    ) -> None:
        self.harness = harness
        self.on_change = on_change
        self.budget = budget
        self.window = window
        self.tree: dict | None = None
        self.budget_now: dict | None = None
        #: What :attr:`budget_now` measures ("next request" while a turn runs).
        self.budget_label = "next request"
        self.timings: list[tuple[str, float]] = []
        self._hits: list[dict] = []
        self._steps: dict[int, dict] = {}

    # --- helpers --------------------------------------------------------------------------------
    def _changed(self, stage: str, started: float) -> None:
        if self.on_change is not None:
            self.on_change(self)
        self.timings.append((stage, (time.perf_counter() - started) * 1000))

    def _measure(self, turn: TurnResult, tools: list[dict] | None, label="next request") -> None:
        self.budget_label = label
        window = self.window or window_for(turn.model)
        self.budget_now = self.budget(list(turn.messages), list(tools or []), window)

    def _memory_hits(self, turn: TurnResult) -> list[dict]:
        for hook in self.harness.turn_hooks:
            if isinstance(hook, KnowledgeRecorder) and turn.turn_id in hook.latest:
                return [dict(hit) for hit in hook.latest[turn.turn_id]]
        return [
            {"memory_id": m.id, "kind": m.kind, "subject": m.subject, "score": m.score}
            | {"content": m.content[:160]}
            for m in knowledge_hits(self.harness, turn.question)
        ]

    # --- the stages -----------------------------------------------------------------------------
    def on_turn_start(self, turn: TurnResult) -> None:
        started = time.perf_counter()
        self._steps = {}
        self._hits = self._memory_hits(turn)
        knowledge = _node("knowledge", "memory", count=len(self._hits))
        knowledge["children"] = [_node("memory_hit", h["kind"], detail=h) for h in self._hits]
        skills = _node("skills", turn.agent or "retrieve", manifest=_manifest_skills(turn.messages))
        events = [knowledge, skills]
        identity = getattr(self.harness, "identity", None)
        if identity is not None and not identity.owner:  # first, as the stored trail has it
            events.insert(0, _node("identity", identity.user, detail=identity_detail(identity)))
        self.tree = {
            "turn_id": turn.turn_id,
            "thread_id": turn.thread_id,
            "question": turn.question,
            "status": "running",
            "answer": None,
            "events": events,
        }
        self._measure(turn, None)
        self._changed("on_turn_start", started)

    def on_tools_offered(self, turn: TurnResult) -> None:
        started = time.perf_counter()
        # The loop writes the turn's first messages (system prompt, manifest) after
        # on_turn_start: the manifest's skills are read here, where they are known.
        for event in self.tree.get("events", []) if self.tree else []:
            if event["kind"] == "skills" and not event["detail"].get("manifest"):
                event["detail"]["manifest"] = _manifest_skills(turn.messages)
        tokens = [schema_tokens(s) for s in turn.offered]
        offered = _node(
            "tools_offered",
            turn.strategy,
            strategy=turn.strategy,
            agent=turn.agent,
            count=len(tokens),
            tokens=sum(tokens),
        )
        offered["children"] = [
            _node("tool_offered", name, tokens=n, position=i)
            for i, (name, n) in enumerate(zip(turn.offered_names, tokens), start=1)
        ]
        self.tree["events"].append(offered)
        self._measure(turn, turn.offered)
        self._changed("on_tools_offered", started)

    def before_model_step(self, turn: TurnResult, step: ModelStep) -> None:
        started = time.perf_counter()
        node = _node(
            "model_step",
            turn.model,
            index=step.index,
            forced=step.forced,
            tools_sent=step.tools_sent,
            tool_tokens=step.tool_tokens,
            request_chars=step.request_chars,
            usage={},
        )
        self._steps[step.index] = node
        self.tree["events"].append(node)
        self._measure(turn, None if step.forced else turn.offered)
        self._changed("before_model_step", started)

    def on_model_step(self, turn: TurnResult, step: ModelStep) -> None:
        started = time.perf_counter()
        node = self._steps.get(step.index)
        if node is not None:
            node["duration_ms"] = step.duration_ms
            node["name"] = turn.model
            node["detail"]["usage"] = dict(step.usage)
            node["detail"]["tool_calls"] = len(getattr(step.reply, "tool_calls", None) or [])
        self._changed("on_model_step", started)

    def on_tool_call(self, turn: TurnResult, step: ModelStep, record: ToolCallRecord) -> None:
        started = time.perf_counter()
        result = record.result
        registry = self.harness.tools
        state = effective_state(registry.states().get(record.name), registry.clock())
        call = _node(
            "tool_call",
            record.name,
            ok=result.ok,
            duration_ms=result.duration_ms,
            call_id=record.id,
            arguments=record.arguments,
            error_type=result.error_type,
            output_chars=result.output_chars,
            breaker=state,
        )
        if record.offloaded:
            call["children"].append(
                _node(
                    "offload",
                    record.name,
                    memory_id=record.memory_id,
                    chars=result.output_chars,
                    shown_chars=len(record.shown),
                    call_id=record.id,
                )
            )
        supplier = hit_for_call(self._hits, record.arguments, turn.question)
        if supplier is not None:
            call["detail"]["memory"] = supplier.get("memory_id")
            self._mark_supplier(supplier, record)
        self._steps.get(step.index, {"children": []})["children"].append(call)
        self._measure(turn, turn.offered)
        self._changed("on_tool_call", started)

    def _mark_supplier(self, supplier: dict, record: ToolCallRecord) -> None:
        for hit in self.tree["events"][0]["children"]:
            if hit["detail"].get("memory_id") == supplier.get("memory_id"):
                hit["detail"]["supplied"] = f"an argument of {record.name}"

    def on_tools_unlocked(self, turn: TurnResult, step, record, unlock) -> None:
        started = time.perf_counter()
        if unlock.skill is not None:
            node = _node(
                "skill_loaded",
                unlock.skill,
                ok=True,
                reason=unlock.reason,
                added=list(unlock.added),
                withheld=list(unlock.withheld),
            )
        else:
            node = _node("tools_offered", unlock.reason, strategy=unlock.reason)
            node["detail"].update(count=len(unlock.added), tokens=None)
        for name in unlock.added:
            node["children"].append(_node("tool_offered", name))
        parent = None
        if step is not None and record is not None:
            calls = self._steps.get(step.index, {"children": []})["children"]
            parent = next((c for c in calls if c["detail"].get("call_id") == record.id), None)
        (parent["children"] if parent else self.tree["events"]).append(node)
        self._measure(turn, turn.offered)
        self._changed("on_tools_unlocked", started)

    def on_turn_end(self, turn: TurnResult) -> None:
        started = time.perf_counter()
        self.tree["status"] = "forced" if turn.forced_final else "answered"
        self.tree["answer"] = turn.answer
        self.tree["duration_ms"] = turn.duration_ms
        self.tree["events"].append(
            _node("answer", ok=True, forced=turn.forced_final, chars=len(turn.answer))
        )
        # the turn's context is rebuilt for the next question: show what this turn ended with
        self._measure(turn, turn.offered, "the turn's last request, with its answer")
        self._changed("on_turn_end", started)

    def on_turn_error(self, turn: TurnResult, error: BaseException) -> None:
        """The model call raised: the turn ends here, failed, with the error in the trail."""
        started = time.perf_counter()
        self.fail(error, turn)
        self._changed("on_turn_error", started)

    def fail(self, error: BaseException, turn: TurnResult | None = None) -> None:
        """Mark the running turn failed with ``error`` (the panel calls it when the loop
        raised without an ``on_turn_error`` stage). Does nothing when it is marked already."""
        if self.tree is None or self.tree["status"] == "failed":
            return
        self.tree["status"] = "failed"
        message = f"{type(error).__name__}: {error}"
        self.tree["answer"] = None
        self.tree["error"] = message
        failure = _node("turn_error", type(error).__name__, ok=False, error=message)
        self.tree["events"].append(failure)
