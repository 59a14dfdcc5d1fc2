"""Two lanes for the MCP server's tool calls, so a fast call never waits behind slow ones.

Every call starts in the **fast lane**. A call still running after ``slow_after_s`` is a slow
call: it takes a place in the **slow lane** and gives its fast place back, so the next fast
call starts at once. Eight 5-second calls then fill the slow lane and leave the fast lane
free: a ``SELECT 1`` beside them waits for nothing (``bench/bench_mcp_sessions.py`` measures
it). A slow call that finds no slow place keeps running (a thread cannot be paused) and keeps
its fast place until a slow place frees up: never more than ``fast + slow`` calls run.

Each lane is bounded twice: for all clients together (``fast``, ``slow``) and for each client
(the :class:`Places` its calls take, :mod:`agent_harness.mcp.callers`), so one client's slow
calls never take every slow place, and its fast calls never every fast place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread

__all__ = ["Lanes", "Places", "SLOW_AFTER_S"]

#: A call running longer than this is a slow call (a SELECT or a lookup answers in a few ms).
SLOW_AFTER_S = 0.1


@dataclass
class Places:
    """One client's places: how many of its calls may be in each lane at once."""

    per_lane: int = 4
    fast: anyio.CapacityLimiter = field(init=False)
    slow: anyio.CapacityLimiter = field(init=False)

    def __post_init__(self) -> None:
        self.fast = anyio.CapacityLimiter(self.per_lane)
        self.slow = anyio.CapacityLimiter(self.per_lane)


class Lanes:
    """The fast and the slow lane of one server.

    Args:
        fast: Calls of all clients in the fast lane at once.
        slow: Calls of all clients in the slow lane at once.
        slow_after_s: When a running call counts as slow.
    """

    def __init__(self, fast: int = 8, slow: int = 8, slow_after_s: float = SLOW_AFTER_S) -> None:
        self.fast = anyio.CapacityLimiter(fast)
        self.slow = anyio.CapacityLimiter(slow)
        self.slow_after_s = slow_after_s
        self._threads = anyio.CapacityLimiter(fast + slow)

    async def run(self, places: Places, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn(*args)`` in a worker thread for a client with ``places``: in the fast lane,
        then in the slow lane once it has run ``slow_after_s`` seconds. Returns its result (or
        raises its exception)."""
        token = object()  # the borrower of this call's places (all taken and given back here)
        fast, slow = (self.fast, places.fast), (places.slow, self.slow)
        outcome: dict = {}
        done = anyio.Event()

        async def work() -> None:
            try:
                outcome["value"] = await anyio.to_thread.run_sync(fn, *args, limiter=self._threads)
            except BaseException as e:  # handed to the caller below
                outcome["error"] = e
            finally:
                done.set()

        async def move_to_slow_lane() -> None:
            for limiter in slow:
                await limiter.acquire_on_behalf_of(token)
            for limiter in fast:
                limiter.release_on_behalf_of(token)

        try:
            for limiter in fast:
                await limiter.acquire_on_behalf_of(token)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(work)
                with anyio.move_on_after(self.slow_after_s):
                    await done.wait()
                if not done.is_set():  # a slow call: into the slow lane, the fast place back
                    async with anyio.create_task_group() as race:
                        race.start_soon(move_to_slow_lane)
                        await done.wait()  # (it may end before a slow place is free)
                        race.cancel_scope.cancel()
        finally:
            for limiter in (*fast, *slow):
                if token in limiter.statistics().borrowers:
                    limiter.release_on_behalf_of(token)
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]
