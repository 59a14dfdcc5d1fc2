"""MCP both ways: serve the registry's tools (``workshop mcp``), and use another server's tools
as tools of type ``mcp`` (:mod:`agent_harness.tools.mcp_client`)."""
