"""The typed records of an agent turn: each tool call, each model request, the whole turn, and
the hooks the loop calls as they fill in (see :mod:`agent_harness.agent.agent_loop`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_harness.tools.dispatch import HookFailures, ToolResult

__all__ = ["ToolCallRecord", "ModelStep", "TurnResult", "TurnHooks", "HookRunner", "STAGES"]


@dataclass
class ToolCallRecord:
    """One tool call of a model step.

    Attributes:
        id: The model's tool call id.
        name: The tool the model asked for.
        arguments: The arguments as the model wrote them (JSON text).
        result: What the dispatch returned (output, success, error_type, telemetry_id, ...).
        shown: What the model was sent (a preview when offloaded).
        offloaded: True when the whole output was stored and a preview shown.
        memory_id: The stored output's memory id when offloaded.
    """

    id: str
    name: str
    arguments: str
    result: ToolResult
    shown: str
    offloaded: bool = False
    memory_id: int | None = None

    @property
    def ok(self) -> bool:
        """True when the tool ran and returned a result."""
        return self.result.ok

    @property
    def output_chars(self) -> int:
        """Length of the whole output."""
        return self.result.output_chars


@dataclass
class ModelStep:
    """One request to the model and what came of it.

    Attributes:
        index: 0 for the first request of the turn.
        request_chars: Characters of the messages sent (context size).
        tools_sent: How many tool schemas went with the request (0 for a forced answer).
        tool_tokens: Tokens of those schemas (:mod:`agent_harness.parts.token_count`).
        content: The reply's text.
        tool_calls: The calls the reply asked for, with their results.
        usage: Token counts reported by the API (prompt_tokens, completion_tokens, ...).
        duration_ms: Time of the model request.
        forced: True for the final request without tools.
        reply: The model's message as the client returned it.
    """

    index: int
    request_chars: int
    tools_sent: int
    tool_tokens: int = 0
    content: str = ""
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    duration_ms: float = 0.0
    forced: bool = False
    reply: object = field(default=None, repr=False)


@dataclass
class TurnResult:
    """What happened in one turn (filled in step by step; hooks read it as it grows).

    Attributes:
        turn_id: This turn's id (provenance and telemetry use it).
        thread_id: The conversation.
        question: The user's question.
        answer: The final answer text.
        messages: Every message sent to or received from the model, in order.
        offered: The tool schemas offered so far this turn (a strategy may append to it after a
            tool call; never reordered).
        steps: One :class:`ModelStep` per model request.
        forced_final: True when the answer was forced because the budget ran out.
        episode_id: The id of the episodic memory stored for this turn.
        model: The model that answered.
        duration_ms: Wall-clock time of the whole turn.
        strategy: How tools were chosen (``all``, ``retrieve``, ``disclose``, ...).
        agent: The agent's name, if the turn ran as one.
        unlocks: What the strategy disclosed during the turn (skills loaded and their tools).
        status: ``running``, then ``answered``, ``forced`` (the budget ran out) or ``failed``
            (the model call or the loop raised; the exception is raised to the caller).
        error: For a failed turn, what went wrong (``"Class: message"``).
    """

    turn_id: str
    thread_id: str
    question: str
    answer: str = ""
    messages: list[dict] = field(default_factory=list)
    offered: list[dict] = field(default_factory=list)
    steps: list[ModelStep] = field(default_factory=list)
    forced_final: bool = False
    episode_id: int | None = None
    model: str | None = None
    duration_ms: float = 0.0
    strategy: str = "retrieve"
    agent: str | None = None
    unlocks: list = field(default_factory=list)
    status: str = "running"
    error: str | None = None

    @property
    def tool_calls(self) -> list[ToolCallRecord]:
        """Every tool call of the turn, in order."""
        return [c for s in self.steps for c in s.tool_calls]

    @property
    def iterations(self) -> int:
        """How many model replies asked for tools."""
        return sum(1 for s in self.steps if s.tool_calls)

    @property
    def request_chars(self) -> list[int]:
        """Characters of messages sent on each model request."""
        return [s.request_chars for s in self.steps]

    @property
    def offered_names(self) -> list[str]:
        """Names of the tools offered this turn."""
        return [t["function"]["name"] for t in self.offered]

    @property
    def tool_tokens(self) -> list[int]:
        """Tool-schema tokens sent with each model request (0 for a forced answer)."""
        return [s.tool_tokens for s in self.steps]

    def usage(self) -> dict:
        """Token counts summed over the turn's model requests."""
        total: dict[str, int] = {}
        for step in self.steps:
            for key, value in step.usage.items():
                if isinstance(value, int):
                    total[key] = total.get(key, 0) + value
        return total


class TurnHooks:
    """Base class of turn hooks: override what you need (every method is a no-op here).

    The stages, in the order the loop calls them, are :data:`STAGES`; a turn ends with
    exactly one of ``on_turn_end`` (answered) or ``on_turn_error`` (the model call or the loop
    raised: the hook closes what it opened, then the loop re-raises)."""

    def on_turn_start(self, turn: TurnResult) -> None: ...

    def on_tools_offered(self, turn: TurnResult) -> None: ...

    def before_model_step(self, turn: TurnResult, step: ModelStep) -> None: ...

    def on_model_step(self, turn: TurnResult, step: ModelStep) -> None: ...

    def on_tool_call(self, turn: TurnResult, step: ModelStep, record: ToolCallRecord) -> None: ...

    def on_tools_unlocked(
        self, turn: TurnResult, step: ModelStep | None, record: ToolCallRecord | None, unlock
    ) -> None:
        """Tools were added to the turn (``unlock`` is a :class:`~agent_harness.agent.disclosure.
        Unlock`; ``step`` and ``record`` are None for what a thread had loaded before)."""

    def on_turn_end(self, turn: TurnResult) -> None: ...

    def on_turn_error(self, turn: TurnResult, error: BaseException) -> None:
        """The turn failed (``turn.status`` is ``failed``, ``turn.error`` says why)."""


#: The hook stages, in the order a turn reaches them (``on_turn_error`` ends a turn whose
#: model call raised, instead of ``on_turn_end``). The glass box re-exports this tuple.
STAGES = (
    "on_turn_start",
    "on_tools_offered",
    "before_model_step",
    "on_model_step",
    "on_tool_call",
    "on_tools_unlocked",
    "on_turn_end",
    "on_turn_error",
)


class HookRunner(TurnHooks):
    """Calls every hook at each stage; a failing hook is counted in ``failures`` (and logged
    with its traceback the first time), the turn goes on. A hook may leave out stages it does
    not need (duck typing): those are skipped.

    Args:
        hooks: The turn hooks, called in order.
        failures: Where hook failures are counted (the registry's ``hook_failures``).
    """

    def __init__(self, hooks, failures: HookFailures) -> None:
        self.hooks, self.failures = list(hooks), failures

    def _each(self, stage: str, *args) -> None:
        for hook in self.hooks:
            method = getattr(hook, stage, None)
            if method is None:
                continue
            try:
                method(*args)
            except Exception as e:  # provenance or tracing must not break the turn
                self.failures.record(hook, stage, e)

    def on_turn_start(self, turn: TurnResult) -> None:
        self._each("on_turn_start", turn)

    def on_tools_offered(self, turn: TurnResult) -> None:
        self._each("on_tools_offered", turn)

    def before_model_step(self, turn: TurnResult, step: ModelStep) -> None:
        self._each("before_model_step", turn, step)

    def on_model_step(self, turn: TurnResult, step: ModelStep) -> None:
        self._each("on_model_step", turn, step)

    def on_tool_call(self, turn: TurnResult, step: ModelStep, record: ToolCallRecord) -> None:
        self._each("on_tool_call", turn, step, record)

    def on_tools_unlocked(self, turn, step, record, unlock) -> None:
        self._each("on_tools_unlocked", turn, step, record, unlock)

    def on_turn_end(self, turn: TurnResult) -> None:
        self._each("on_turn_end", turn)

    def on_turn_error(self, turn: TurnResult, error: BaseException) -> None:
        self._each("on_turn_error", turn, error)
