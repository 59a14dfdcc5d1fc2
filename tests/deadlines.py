"""How long a test waits for an event before it gives up.

A test waits for the event it needs (a port that listens, a kernel that answers, a process
that is gone) and goes on the moment it happens, so a generous deadline costs nothing when
things go right; it only decides when a test stops waiting for something that will never
happen. On a 2-core machine running the suite in parallel (load 4-7), starting JupyterLab,
a kernel or a browser takes many times what it takes on a quiet one: no deadline here is a
claim about speed (speed targets live in bench/).
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["PATIENCE_S", "wait_for"]

#: The deadline for anything a test waits for: a start, a stop, an answer.
PATIENCE_S = 300.0


def wait_for(ready: Callable[[], object], what: str, seconds: float = PATIENCE_S, every=0.1):
    """Poll ``ready()`` until it returns something true and return that; AssertionError naming
    ``what`` when ``seconds`` pass first."""
    deadline = time.monotonic() + seconds
    while True:
        found = ready()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {seconds:.0f} s")
        time.sleep(every)
