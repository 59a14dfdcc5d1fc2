"""The harness parts: memory, the catalog scanner, skills and agents, access levels, the
scratchpad, tool-output offload, observability and token counts, each on the storage roles."""
