"""The errors a backend raises at its surface (no SQL, no driver in here)."""

from __future__ import annotations

__all__ = ["AccessDenied", "BackendError", "BindError", "DocumentConflict", "ReadOnlyViolation"]


class BackendError(RuntimeError):
    """A database problem the user can act on; the message says what to do."""


class ReadOnlyViolation(BackendError):
    """A statement sent to the read-only connection tried to change something."""


class AccessDenied(ReadOnlyViolation):
    """A statement read data outside the identity's access policy (refused, nothing returned)."""


class DocumentConflict(BackendError):
    """A document was changed since it was read (its etag no longer matches): read it again."""


class BindError(BackendError):
    """A value given for a statement cannot be bound (an integer no column holds): the
    caller's value, so a tool that lets it through is not at fault (``caller_error``)."""
