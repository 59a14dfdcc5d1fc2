"""Database backends behind one interface (:class:`~agent_harness.backends.base.Backend`).

``embedded`` (SQLite, the default) and ``oracle`` (Oracle AI Database in a container).
"""

from __future__ import annotations

from agent_harness.backends.base import (
    ROLES,
    SENTINEL_RANK,
    Backend,
    BackendError,
    ReadOnlyResult,
    ReadOnlyViolation,
    Scope,
)
from agent_harness.foundation.config import Settings
from agent_harness.foundation.identity import Identity

__all__ = [
    "Backend",
    "BackendError",
    "ROLES",
    "ReadOnlyResult",
    "ReadOnlyViolation",
    "Scope",
    "SENTINEL_RANK",
    "open_backend",
]


def open_backend(settings: Settings, identity: Identity | None = None) -> Backend:
    """Open the backend the settings name, its data connections bound to ``identity``.

    Raises:
        BackendError: The backend cannot be opened; the message says what to do.
    """
    if settings.backend == "embedded":
        from agent_harness.backends.embedded import EmbeddedBackend

        return EmbeddedBackend(settings.data_dir, identity)
    if settings.backend == "oracle":
        try:
            from agent_harness.backends.oracle import OracleBackend
        except ImportError as e:  # oracledb missing from this environment
            raise BackendError(
                f"the Oracle backend needs python-oracledb ({e}): pip install -r requirements.txt"
            ) from e
        return OracleBackend(settings, identity)
    raise BackendError(
        f"unknown backend {settings.backend!r}: use WORKSHOP_BACKEND=embedded or oracle"
    )
