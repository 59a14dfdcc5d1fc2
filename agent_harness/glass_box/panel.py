"""The glass box panel: chat with the agent on the left, watch every decision on the right.

``GlassBox(h)`` is an ipywidgets panel (display it in a notebook; ``workshop chat`` serves the
same panel as a page with Voilà). Left: the thread list (new, switch, reopen: threads come back
from the provenance tables), the conversation, the answer as it streams, and the question box.
Right, live while a turn runs (from the turn hooks, :class:`~.hooks.PanelHooks`): the context
meter of the next request (system prompt, manifest, tool schemas, history, tool outputs
against the model's window) and the trail: memory hits with kind and score, the skills in the
manifest and loaded, the tools offered with their schema tokens and the strategy, each model
step with its tokens, each tool call with its arguments, latency, outcome, breaker state and
offload handle, then the answer.

``box.ask(question)`` runs a turn the same way the Send button does (notebooks, tests).
"""

from __future__ import annotations

import time
import uuid

from agent_harness.glass_box.budget import PARTS, context_budget
from agent_harness.glass_box.hooks import PanelHooks
from agent_harness.glass_box.render import render
from agent_harness.glass_box.stream import StreamingLLM
from agent_harness.glass_box.threads import thread_turns, threads
from agent_harness.glass_box.trail import render_trail_html

__all__ = ["GlassBox", "render_meter_html", "render_chat_html"]

_PART_COLOURS = {
    "system": "#455a64",
    "manifest": "#00838f",
    "tool_schemas": "#1565c0",
    "history": "#ef6c00",
    "tool_outputs": "#2e7d32",
}
#: At most this often (seconds) the streamed answer is redrawn.
STREAM_REDRAW_S = 0.05


def render_meter_html(budget: dict | None, label: str = "next request") -> str:
    """The context meter (``templates/meter.html``): one bar per part, to scale against the
    model's window."""
    if not budget:
        return render("meter.html", parts=None)
    window = max(1, int(budget.get("window") or 1))
    total = int(budget.get("total") or 0)

    def share(tokens: float, scale: int) -> str:
        return f"{max(0.0, 100.0 * tokens / max(1, scale)):.4f}"

    parts = [
        {
            "name": p,
            "label": p.replace("_", " "),
            "colour": _PART_COLOURS[p],
            "tokens": f"{int(budget.get(p) or 0):,}",
            "of_window": share(float(budget.get(p) or 0), window),
            "of_request": share(float(budget.get(p) or 0), total),
        }
        for p in PARTS
    ]
    return render(
        "meter.html",
        parts=parts,
        label=label,
        total=f"{total:,}",
        window=f"{window:,}",
        percent=f"{100.0 * total / window:.2f}",
        free=f"{int(budget.get('free') or 0):,}",
    )


def render_chat_html(exchanges: list[tuple[str, str | None]]) -> str:
    """The conversation (``templates/chat.html``): each question and its answer (None: still
    running)."""
    return render("chat.html", exchanges=exchanges)


class GlassBox:
    """The panel; see the module docstring.

    Args:
        harness: The harness (``agent_harness.connect()``).
        agent: Run turns as this agent (progressive disclosure); None: retrieval.
        strategy: The tool strategy (default ``disclose`` with an agent, else ``retrieve``).
        budget: The context budget function the meter uses (default: the library's).
        thread_id: The thread to start in (default: a new one).
    """

    def __init__(self, harness, agent=None, strategy=None, budget=context_budget, thread_id=None):
        import ipywidgets as w

        self.harness = harness
        self.agent = agent
        self.strategy = strategy or ("disclose" if agent else "retrieve")
        self.thread_id = thread_id or f"chat-{uuid.uuid4().hex[:8]}"
        self.exchanges: list[tuple[str, str | None]] = []
        self.hooks = PanelHooks(harness, on_change=self._redraw_live, budget=budget)
        self.llm = StreamingLLM(harness.llm, self._on_token)
        self._streamed, self._last_draw = "", 0.0
        self._busy = False

        self.threads = w.Dropdown(description="thread", layout=w.Layout(width="100%"))
        self.new_button = w.Button(description="new thread", icon="plus")
        self.turns = w.Dropdown(description="trail of", layout=w.Layout(width="100%"))
        self.chat = w.HTML()
        self.stream = w.HTML()
        # The question reaches the kernel once, when the box loses focus (clicking Send), not
        # at every keystroke: the browser holds back a widget's later updates while the kernel
        # has not answered the first, and the click is not held back, so on a busy machine
        # Send ran with the first letter only ("W", seen in tests/test_chat_browser.py).
        self.question = w.Text(
            placeholder="Ask the agent…", layout=w.Layout(width="100%"), continuous_update=False
        )
        self.send = w.Button(description="Send", button_style="primary", icon="paper-plane")
        self.status = w.HTML()
        self.meter = w.HTML(render_meter_html(None))
        self.trail = w.HTML(render_trail_html(None))
        for widget, name in [
            (self.question, "gb-input"),
            (self.send, "gb-send"),
            (self.threads, "gb-threads"),
            (self.new_button, "gb-new-thread"),
            (self.turns, "gb-turns"),
            (self.chat, "gb-chat-box"),
            (self.stream, "gb-stream"),
            (self.status, "gb-status-line"),
            (self.meter, "gb-meter-box"),
            (self.trail, "gb-trail-box"),
        ]:
            widget.add_class(name)
        left = w.VBox(
            [
                w.HBox([self.threads, self.new_button]),
                self.chat,
                self.stream,
                w.HBox([self.question, self.send]),
            ],
            layout=w.Layout(width="42%", padding="4px"),
        )
        right = w.VBox(
            [self.status, self.meter, self.turns, self.trail],
            layout=w.Layout(
                width="58%", padding="4px", border="1px solid #cfd8dc", overflow="hidden"
            ),
        )
        self.widget = w.HBox([left, right], layout=w.Layout(width="100%"))
        self.send.on_click(self._send_clicked)
        self.new_button.on_click(lambda _: self.new_thread())
        self.threads.observe(self._on_thread_picked, names="value")
        self.turns.observe(self._on_turn_picked, names="value")
        self._refresh_threads()
        self._set_status()

    # --- display ------------------------------------------------------------------------------
    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def _set_status(self, extra: str = "") -> None:
        identity = getattr(self.harness, "identity", None)
        self.status.value = render(
            "status.html",
            identity=None if identity is None else identity.describe(),
            model=self.llm.describe(),
            strategy=self.strategy,
            where=f"agent {self.agent}" if self.agent else "no agent",
            thread_id=self.thread_id,
            extra=extra,
        )

    def _redraw_live(self, hooks: PanelHooks) -> None:
        self.trail.value = render_trail_html(hooks.tree)
        self.meter.value = render_meter_html(hooks.budget_now, hooks.budget_label)

    def _on_token(self, text: str) -> None:
        self._streamed += text
        now = time.monotonic()
        if now - self._last_draw >= STREAM_REDRAW_S:
            self._last_draw = now
            self.stream.value = render("stream.html", text=self._streamed)

    # --- threads ------------------------------------------------------------------------------
    def _refresh_threads(self) -> None:
        known = threads(self.harness)
        options = [(t.label(), t.thread_id) for t in known]
        if self.thread_id not in {t.thread_id for t in known}:
            options.insert(0, (f"{self.thread_id} · new", self.thread_id))
        self._switching = True
        try:
            self.threads.options = options
            self.threads.value = self.thread_id
        finally:
            self._switching = False

    def _on_thread_picked(self, change) -> None:
        if not getattr(self, "_switching", False) and change["new"] != self.thread_id:
            self.open_thread(change["new"])

    def _on_turn_picked(self, change) -> None:
        if change["new"] and not getattr(self, "_switching", False):
            self.show_turn(change["new"])

    def new_thread(self) -> str:
        """Start a new conversation; returns its id."""
        self.thread_id = f"chat-{uuid.uuid4().hex[:8]}"
        self.exchanges = []
        self.chat.value = render_chat_html(self.exchanges)
        self.trail.value = render_trail_html(None)
        self.turns.options = []
        self._refresh_threads()
        self._set_status()
        return self.thread_id

    def open_thread(self, thread_id: str) -> list[dict]:
        """Reopen a thread from the provenance tables: its questions and answers, and the
        trail of its latest turn. Returns the thread's turns (oldest first)."""
        rows = thread_turns(self.harness, thread_id)
        self.thread_id = thread_id
        self.exchanges = [(r["question"], r["answer"] or f"[{r['status']}]") for r in rows]
        self.chat.value = render_chat_html(self.exchanges)
        self._switching = True
        try:
            self.turns.options = [
                (f"{i}. {r['question'][:60]}", r["turn_id"]) for i, r in enumerate(rows, 1)
            ]
            self.turns.value = rows[-1]["turn_id"] if rows else None
        finally:
            self._switching = False
        if rows:
            self.show_turn(rows[-1]["turn_id"])
        self._refresh_threads()
        self._set_status()
        return rows

    def show_turn(self, turn_id: str) -> dict:
        """Show a stored turn's trail (from the provenance tables); returns its tree."""
        tree = self.harness.provenance.explain(turn_id)
        self.trail.value = render_trail_html(tree, title="stored trail: ")
        return tree

    # --- a turn -------------------------------------------------------------------------------
    def _send_clicked(self, _button) -> None:
        try:
            self.ask(self.question.value)
        except Exception:  # shown in the panel (the trail's failed turn, the chat's answer)
            pass

    def ask(self, question: str):
        """Run one turn in the current thread, drawing it live; returns the
        :class:`~agent_harness.agent.turns.TurnResult` (None for an empty question or while a turn
        runs). A turn that fails is shown failed; an error the loop raises is raised again."""
        from agent_harness.agent.agent_loop import agent_turn

        question = (question or "").strip()
        if not question or self._busy:
            return None
        self._busy = True
        self.send.disabled = True
        self.question.value = ""
        self.exchanges.append((question, None))
        self.chat.value = render_chat_html(self.exchanges)
        self._streamed, self.stream.value = "", ""
        try:
            turn = agent_turn(
                self.harness,
                question,
                thread_id=self.thread_id,
                llm=self.llm,
                hooks=[*self.harness.turn_hooks, self.hooks],
                strategy=self.strategy,
                agent=self.agent,
            )
        except Exception as error:
            self.hooks.fail(error)
            self._redraw_live(self.hooks)
            self.exchanges[-1] = (question, f"[failed: {type(error).__name__}: {error}]")
            self.chat.value = render_chat_html(self.exchanges)
            raise
        finally:
            self._busy = False
            self.send.disabled = False
            self.stream.value = ""
        failed = self.hooks.tree is not None and self.hooks.tree.get("status") == "failed"
        answer = f"[failed: {self.hooks.tree.get('error')}]" if failed else turn.answer
        self.exchanges[-1] = (question, answer)
        self.chat.value = render_chat_html(self.exchanges)
        self._redraw_live(self.hooks)
        self._refresh_threads()
        self._switching = True
        try:
            rows = thread_turns(self.harness, self.thread_id)
            self.turns.options = [
                (f"{i}. {r['question'][:60]}", r["turn_id"]) for i, r in enumerate(rows, 1)
            ]
            self.turns.value = turn.turn_id
        finally:
            self._switching = False
        return turn
