"""LLM access: the openai client against a live endpoint or the offline replay model."""

from agent_harness.agent.llm.client import LLM, make_llm
from agent_harness.agent.llm.offline import MODEL_NAME as OFFLINE_MODEL_NAME
from agent_harness.agent.llm.offline import OfflineModel, start_offline_model

__all__ = ["LLM", "make_llm", "OfflineModel", "start_offline_model", "OFFLINE_MODEL_NAME"]
