"""LLM access: the real openai client against the offline replay server, and live settings."""

from __future__ import annotations

import pytest

from agent_harness.agent.llm import make_llm
from agent_harness.foundation.config import Settings


def test_offline_mode_uses_the_real_client_and_labels_answers(tmp_path):
    llm = make_llm(Settings.from_env(llm_mode="offline", data_dir=tmp_path))
    assert llm.mode == "offline" and "offline replay" in llm.describe()
    reply = llm.chat([{"role": "user", "content": "Hello there"}])
    assert reply.content.startswith("[offline replay]")


def test_offline_model_replays_a_tool_call_for_a_demo_prompt(harness):
    llm = make_llm(Settings.from_env(llm_mode="offline"))
    tools = harness.tools.retrieve("Which voyages are delayed in the Pacific?", k=5)
    reply = llm.chat(
        [{"role": "user", "content": "Which voyages are delayed in the Pacific?"}], tools=tools
    )
    call = reply.tool_calls[0]
    assert call.function.name == "delayed_voyages"
    assert '"PACIFIC"' in call.function.arguments


def test_auto_mode_is_offline_without_a_key(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert make_llm(Settings.from_env(llm_mode="auto", data_dir=tmp_path)).mode == "offline"


def test_auto_mode_is_live_with_a_key(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("WORKSHOP_MODEL", "my-model")
    llm = make_llm(Settings.from_env(llm_mode="auto", data_dir=tmp_path))
    assert llm.mode == "live" and llm.model == "my-model"
    assert "127.0.0.1:9" in str(llm.client.base_url)


def test_live_mode_without_a_key_says_what_to_set(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        make_llm(Settings.from_env(llm_mode="live", data_dir=tmp_path))


def test_the_offline_client_loads_no_certificates(tmp_path):
    """The offline model answers on loopback over plain HTTP: its client builds no TLS context
    from the system's CA bundle (that took 25.6 ms of CPU per client, in every notebook
    process that asks the model)."""
    llm = make_llm(Settings(llm_mode="offline", data_dir=tmp_path))
    assert llm.client.base_url.scheme == "http" and llm.client.base_url.host == "127.0.0.1"
    context = llm.client._client._transport._pool._ssl_context
    assert context.cert_store_stats()["x509_ca"] == 0
    assert llm.chat([{"role": "user", "content": "hello"}]).content  # it still answers
