"""The agent: the loop (``agent_loop.py``), its typed records and hooks (``turns.py``), which
tools a turn offers (``disclosure.py``), the model clients (``llm/``), and the turn hooks that
write provenance, memory hits and the catalog's freshness."""
