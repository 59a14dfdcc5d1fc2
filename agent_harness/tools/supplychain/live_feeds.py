"""A live feed that fails: the workshop's flaky tool, for the circuit breaker to catch.

``ais_live_position`` asks a (simulated) live AIS feed where a ship is right now. It overlaps
the reliable ``vessel_position`` (the last position stored in SUPPLYCHAIN), like a real
registry where a fast-moving external source and a dependable internal one answer the same
question. The feed misbehaves the way live feeds do: part of the calls fail with
``FeedUnavailable`` (an HTTP 503) and part hang past the tool's 0.5 s time limit.

The misbehaviour is deterministic: a seeded random sequence decides each call, so a fresh run
of a notebook or a test sees the same failures in the same order. :data:`AIS_FEED` holds the
knobs (``configure(failure_rate=..., seed=...)``; ``reset()`` restarts the sequence).
"""

from __future__ import annotations

import random
import threading
import time

from agent_harness.backends.roles import utc_now
from agent_harness.tools.supplychain.vessels import vessel_position

__all__ = ["ais_live_position", "AisFeed", "AIS_FEED", "FeedUnavailable"]

TOOL_CATEGORY = "vessels"
#: The tools of this module reach outside the database (MCP clients see ``openWorldHint``).
OPEN_WORLD = True


class FeedUnavailable(ConnectionError):
    """The live feed did not deliver (the simulated 503)."""


class AisFeed:
    """The simulated feed's behaviour.

    Attributes:
        failure_rate: Share of calls that fail (0-1).
        hang_share: Share of the failures that hang instead of answering 503.
        hang_s: How long a hanging call sleeps (more than the tool's time limit).
        latency_s: Time a good answer takes.
        seed: Seed of the random sequence.
        calls: Calls so far in this sequence.
    """

    def __init__(self, failure_rate: float = 0.6, hang_share: float = 0.3, seed: int = 7):
        self._lock = threading.Lock()
        self.hang_s = 1.0
        self.latency_s = 0.03
        self.configure(failure_rate=failure_rate, hang_share=hang_share, seed=seed)

    def configure(
        self,
        failure_rate: float | None = None,
        hang_share: float | None = None,
        seed: int | None = None,
    ) -> AisFeed:
        """Change the knobs and restart the sequence; returns the feed."""
        with self._lock:
            if failure_rate is not None:
                if not 0 <= failure_rate <= 1:
                    raise ValueError("failure_rate is a share between 0 and 1")
                self.failure_rate = float(failure_rate)
            if hang_share is not None:
                if not 0 <= hang_share <= 1:
                    raise ValueError("hang_share is a share between 0 and 1")
                self.hang_share = float(hang_share)
            if seed is not None:
                self.seed = int(seed)
            self._random = random.Random(self.seed)
            self.calls = 0
        return self

    def reset(self) -> AisFeed:
        """Restart the random sequence with the same knobs."""
        return self.configure()

    def next_outcome(self) -> str:
        """``ok``, ``unavailable`` or ``hang`` for the next call."""
        with self._lock:
            self.calls += 1
            failed = self._random.random() < self.failure_rate
            hang = self._random.random() < self.hang_share
        if not failed:
            return "ok"
        return "hang" if hang else "unavailable"


AIS_FEED = AisFeed()


def ais_live_position(vessel: str) -> dict:
    """Live position of a ship from the AIS feed, as received now: latitude/longitude, speed,
    heading, navigation status, voyage and nearest port. Fresher than the stored track, but
    the live feed is sometimes unavailable: then use vessel_position.

    Args:
        vessel: Ship name (or part of it) or 7-digit IMO number.
    """
    outcome = AIS_FEED.next_outcome()
    if outcome == "hang":
        time.sleep(AIS_FEED.hang_s)
    if outcome != "ok":
        raise FeedUnavailable("AIS live feed answered 503 Service Unavailable")
    time.sleep(AIS_FEED.latency_s)
    position = vessel_position(vessel)
    return {"source": "AIS live feed (simulated)", "received_at": utc_now().isoformat(), **position}
