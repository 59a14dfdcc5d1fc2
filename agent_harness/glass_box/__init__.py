"""The glass box: chat with the harness and watch every decision live (notebook 08,
``workshop chat``).

* :mod:`.budget`: what a request carries, in tokens, by part (the context meter);
* :mod:`.trail`: a turn's trail as lines (live, or reopened from the provenance tables);
* :mod:`.hooks`: the turn hooks that build both while a turn runs;
* :mod:`.stream`: the live model's answer token by token;
* :mod:`.threads`: the conversations in the provenance tables;
* :mod:`.panel`: the ipywidgets panel; :mod:`.page`: the same panel served by Voilà.
"""

from agent_harness.glass_box.budget import PARTS, context_budget, window_for
from agent_harness.glass_box.hooks import STAGES, PanelHooks
from agent_harness.glass_box.panel import GlassBox, render_meter_html
from agent_harness.glass_box.stream import StreamingLLM
from agent_harness.glass_box.threads import thread_turns, threads
from agent_harness.glass_box.trail import event_line, render_trail_html, render_trail_text

__all__ = [
    "GlassBox",
    "PanelHooks",
    "STAGES",
    "StreamingLLM",
    "PARTS",
    "context_budget",
    "window_for",
    "render_meter_html",
    "render_trail_html",
    "render_trail_text",
    "event_line",
    "threads",
    "thread_turns",
]
