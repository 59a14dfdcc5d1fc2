"""Token streaming for the glass box: the live model's answer as it is written.

:class:`StreamingLLM` stands in for :class:`~agent_harness.agent.llm.LLM` in the agent loop (it has
the same ``complete``): against a live OpenAI-compatible endpoint it asks for a stream with the
``openai`` client's own helper (``client.chat.completions.stream``, usage included), hands each
piece of text to ``on_token`` as it arrives, and returns the assembled completion, which the
loop reads as it reads a non-streamed one (choices, tool calls, usage, model). The offline
replay model does not stream (it answers ``stream=true`` with an error), so with it the whole
answer is handed over at once.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["StreamingLLM"]


class StreamingLLM:
    """A chat model whose answers are streamed to a callback.

    Args:
        llm: The harness's model (``h.llm``): ``client``, ``model``, ``mode``.
        on_token: Called with each piece of the answer's text as it arrives.
    """

    def __init__(self, llm, on_token: Callable[[str], None]) -> None:
        self.llm = llm
        self.on_token = on_token

    @property
    def model(self) -> str:
        """The model asked (the wrapped model's)."""
        return self.llm.model

    @property
    def streams(self) -> bool:
        """True when answers arrive token by token (a live endpoint)."""
        return getattr(self.llm, "mode", "live") == "live"

    def describe(self) -> str:
        """What answers, and whether it streams."""
        how = "streamed token by token" if self.streams else "whole (the offline model)"
        describe = getattr(self.llm, "describe", None)
        return f"{describe() if describe else self.model}; answers {how}"

    def complete(self, messages: list[dict], tools: list[dict] | None = None, **kwargs):
        """One chat completion, streamed when the endpoint is live; returns the whole
        completion (choices with the message and its tool calls, usage, model)."""
        if not self.streams:
            completion = self.llm.complete(messages, tools=tools, **kwargs)
            text = completion.choices[0].message.content
            if text:
                self.on_token(text)
            return completion
        params = {"model": self.model, "messages": messages, **kwargs}
        if tools:
            params["tools"] = tools
        params.setdefault("stream_options", {"include_usage": True})
        with self.llm.client.chat.completions.stream(**params) as stream:
            for event in stream:
                if event.type == "content.delta" and event.delta:
                    self.on_token(event.delta)
            return stream.get_final_completion()
