"""The grader's one way of writing a file: atomically (a temporary file in the same folder, then
``os.replace``), so a reader never sees half a file and a failure leaves the previous one as it
was. Grades, feedback pages, exports, the ledger and the caches all write through it."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write_text"]


def atomic_write_text(path, text: str, errors: str = "strict") -> Path:
    """Write ``text`` (UTF-8) through a temporary file in the same folder and ``os.replace``.

    Args:
        path: The file to write; its folder is created.
        text: The whole content.
        errors: How to encode what UTF-8 cannot (``surrogateescape`` keeps undecodable bytes
            of file names, ``replace`` writes ``?``).

    Returns:
        The path written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors=errors, newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path
