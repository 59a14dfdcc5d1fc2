"""Database backends behind one interface (:class:`~agent_harness.backends.base.Backend`)."""

from __future__ import annotations

from agent_harness.backends.base import (
    SENTINEL_RANK,
    Backend,
    BackendError,
    ReadOnlyResult,
    ReadOnlyViolation,
    Scope,
)
from agent_harness.config import Settings

__all__ = [
    "Backend",
    "BackendError",
    "ReadOnlyResult",
    "ReadOnlyViolation",
    "Scope",
    "SENTINEL_RANK",
    "open_backend",
]


def open_backend(settings: Settings) -> Backend:
    """Open the backend the settings name.

    Raises:
        BackendError: The backend cannot be opened; the message says what to do.
    """
    if settings.backend == "embedded":
        from agent_harness.backends.embedded import EmbeddedBackend

        return EmbeddedBackend(settings.data_dir)
    raise BackendError(
        "The Oracle backend is not part of this version yet. Use WORKSHOP_BACKEND=embedded "
        "(the default: SQLite, no server needed)."
    )
