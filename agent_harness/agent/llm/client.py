"""Chat completions through the real ``openai`` client, live or offline.

* live: any OpenAI-compatible endpoint (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``,
  ``WORKSHOP_MODEL``). Retries are the client's own (``max_retries``).
* offline: the scripted replay server on loopback (:mod:`agent_harness.agent.llm.offline`); used
when
  no key is set (mode ``auto``) or when asked (``WORKSHOP_LLM=offline``). Its answers start with
  ``[offline replay]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import openai

from agent_harness.agent.llm.offline import MODEL_NAME as OFFLINE_MODEL
from agent_harness.agent.llm.offline import start_offline_model
from agent_harness.foundation.config import Settings

__all__ = ["LLM", "make_llm"]


@dataclass
class LLM:
    """A chat client and the model to ask.

    Attributes:
        client: An ``openai.OpenAI`` client.
        model: The model name to send.
        mode: ``live`` or ``offline``.
        offline: The offline server when mode is offline (for ``enqueue`` and ``requests``).
    """

    client: openai.OpenAI
    model: str
    mode: str
    offline: object | None = None

    def describe(self) -> str:
        """One line saying what answers: the live model and endpoint, or the offline replay."""
        if self.mode == "offline":
            return f"offline replay model at {self.client.base_url} (scripted, no network)"
        return f"live model {self.model} at {self.client.base_url}"

    def complete(self, messages: list[dict], tools: list[dict] | None = None, **kwargs):
        """One chat completion; returns the whole response (choices, usage, model)."""
        params = {"model": self.model, "messages": messages, **kwargs}
        if tools:
            params["tools"] = tools
        return self.client.chat.completions.create(**params)

    def chat(self, messages: list[dict], tools: list[dict] | None = None, **kwargs):
        """One chat completion; returns the first choice's message."""
        return self.complete(messages, tools=tools, **kwargs).choices[0].message


def make_llm(settings: Settings, timeout: float = 60.0) -> LLM:
    """The LLM the settings ask for.

    Raises:
        ValueError: ``WORKSHOP_LLM=live`` without ``OPENAI_API_KEY``.
    """
    live = settings.llm_mode == "live" or (settings.llm_mode == "auto" and settings.openai_api_key)
    if live:
        if not settings.openai_api_key:
            raise ValueError(
                "WORKSHOP_LLM=live needs OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI "
                "endpoint); or set WORKSHOP_LLM=offline to use the offline replay model."
            )
        client = openai.OpenAI(
            api_key=settings.openai_api_key,
            base_url=settings.openai_base_url,
            timeout=timeout,
            max_retries=3,
        )
        return LLM(client, settings.model, "live")
    server = start_offline_model()
    # Plain HTTP on loopback: no TLS, so no CA bundle to load. The default client builds an
    # SSL context with every system certificate (25.6 ms of CPU per client, measured), in
    # every notebook, graded run and MCP server that asks the offline model.
    http = openai.DefaultHttpxClient(verify=False)
    client = openai.OpenAI(
        api_key="offline", base_url=server.base_url, timeout=30, max_retries=0, http_client=http
    )
    return LLM(client, OFFLINE_MODEL, "offline", server)
