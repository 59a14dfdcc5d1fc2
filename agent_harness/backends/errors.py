"""The errors a backend raises at its surface (no SQL, no driver in here)."""

from __future__ import annotations

__all__ = ["BackendError", "ReadOnlyViolation"]


class BackendError(RuntimeError):
    """A database problem the user can act on; the message says what to do."""


class ReadOnlyViolation(BackendError):
    """A statement sent to the read-only connection tried to change something."""
