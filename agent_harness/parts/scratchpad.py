"""The scratchpad: a small file store in the database for the agent's working notes."""

from __future__ import annotations

from agent_harness.backends.base import Backend, Scope

__all__ = ["Scratchpad", "MAX_FILE_CHARS"]

MAX_FILE_CHARS = 1_000_000


class Scratchpad:
    """Files of one scope: write, read, append (atomic), list."""

    def __init__(self, backend: Backend, scope: Scope):
        self.backend = backend
        self.scope = scope

    def write(self, path: str, content: str) -> int:
        """Replace a file's content; returns its new length."""
        self._check(content)
        return self.backend.scratch.put(self.scope, path, content, append=False)

    def append(self, path: str, content: str) -> int:
        """Append to a file (creating it) in one atomic statement; returns its new length."""
        self._check(content)
        current = self.backend.scratch.get(self.scope, path) or ""
        if len(current) + len(content) > MAX_FILE_CHARS:
            raise ValueError(f"a scratch file holds at most {MAX_FILE_CHARS} characters")
        return self.backend.scratch.put(self.scope, path, content, append=True)

    def read(self, path: str) -> str | None:
        """A file's content, or None when it does not exist."""
        return self.backend.scratch.get(self.scope, path)

    def list(self) -> list[dict]:
        """Files with ``path``, ``size`` and ``updated_at``."""
        return self.backend.scratch.paths(self.scope)

    @staticmethod
    def _check(content: str) -> None:
        if not isinstance(content, str):
            raise TypeError("scratchpad content must be text")
        if len(content) > MAX_FILE_CHARS:
            raise ValueError(f"a scratch file holds at most {MAX_FILE_CHARS} characters")
