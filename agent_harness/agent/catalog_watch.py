"""A catalog that keeps itself current: detect schema changes, re-scan, retire what is stale.

Nobody has to run ``scan`` by hand after a new table or a changed comment:

* the **detector** is the catalog's fingerprint (the ``catalog_watch`` role,
  :mod:`agent_harness.backends.roles.catalog_watch`): one query over the data dictionary,
  hashed, compared with the fingerprint the memory scope last scanned; on Oracle a
  ``DBMS_SCHEDULER`` job also queues the changes it finds in the database every minute, and
  a queued change counts too;
* the harness **checks on a schedule**: at the start of an agent turn when the period has
  passed (:class:`CatalogFreshness`, a turn hook), in a background thread
  (:meth:`CatalogWatcher.start`), or in a terminal (``workshop rescan --watch``);
* a change **re-scans** the schema into memory (``CatalogScanner.scan``): changed facts are
  updated, facts of dropped objects removed, and other memories about a dropped table (notes,
  findings) **retired**: kept as kind ``retired`` with the reason, and left out of
  ``search_knowledge`` unless asked for.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from dataclasses import dataclass, field

from agent_harness.agent.turns import TurnHooks, TurnResult

__all__ = ["CatalogFreshness", "CatalogWatcher", "WatchResult", "DEFAULT_PERIOD_S"]

#: How often the harness checks, in seconds (a turn starting later than this checks first).
DEFAULT_PERIOD_S = 60.0


@dataclass
class WatchResult:
    """One check of the catalog.

    Attributes:
        checked_at: When (UTC).
        fingerprint: The catalog's fingerprint now.
        changed: True when it differed from the one last scanned (or a change was queued).
        queued: Changes the database's own job queued since the last check (Oracle).
        counts: What the re-scan did (``added``, ``updated``, ``unchanged``, ``removed``),
            None when nothing changed.
        retired: Ids of the memories retired because their table was dropped.
        seconds: How long the check took.
    """

    checked_at: dt.datetime
    fingerprint: str
    changed: bool
    queued: int = 0
    counts: dict | None = None
    retired: list[int] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        """One line for a terminal."""
        at = self.checked_at.strftime("%H:%M:%S")
        if not self.changed:
            return f"{at} catalog unchanged ({self.fingerprint[:12]}, {self.seconds * 1000:.0f} ms)"
        counts = ", ".join(f"{v} {k}" for k, v in (self.counts or {}).items())
        retired = f", {len(self.retired)} retired" if self.retired else ""
        return f"{at} catalog changed ({self.fingerprint[:12]}): re-scanned: {counts}{retired}"


class CatalogWatcher:
    """Keeps one schema's catalog facts in a harness's memory current.

    Args:
        harness: The harness whose memory scope holds the facts.
        owner: The schema.
        period_s: How often :meth:`maybe_check` and the thread check.
    """

    def __init__(self, harness, owner: str = "SUPPLYCHAIN", period_s: float = DEFAULT_PERIOD_S):
        self.harness = harness
        self.owner = owner.upper()
        self.period_s = float(period_s)
        self.last: WatchResult | None = None
        self.last_error: str | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self, force: bool = False) -> WatchResult:
        """Compare the fingerprint now with the one last scanned; re-scan when it moved.

        Args:
            force: Re-scan even when nothing changed (``workshop setup`` does, once).
        """
        started = time.perf_counter()
        with self._lock:
            h = self.harness
            watch = h.backend.catalog_watch
            now = dt.datetime.now(dt.timezone.utc)
            fingerprint = watch.fingerprint(self.owner)
            state = watch.state(self.owner, h.scope)
            queued = watch.queued_since(self.owner, state["checked_at"] if state else None)
            changed = state is None or state["fingerprint"] != fingerprint or queued > 0
            result = WatchResult(now, fingerprint, changed, queued)
            if changed or force:
                result.counts = h.catalog.scan(self.owner)
                result.retired = list(h.catalog.last_retired)
            watch.record(self.owner, h.scope, fingerprint, now, scanned=changed or force)
            result.seconds = time.perf_counter() - started
            self.last = result
            return result

    def due(self) -> bool:
        """True when no check ran in this process for a period."""
        if self.last is None:
            return True
        age = dt.datetime.now(dt.timezone.utc) - self.last.checked_at
        return age.total_seconds() >= self.period_s

    def maybe_check(self) -> WatchResult | None:
        """:meth:`check` when it is due, else None."""
        return self.check() if self.due() else None

    # --- a background thread ------------------------------------------------------------------
    def start(self, period_s: float | None = None) -> None:
        """Check every ``period_s`` seconds in a daemon thread until :meth:`stop`."""
        if period_s is not None:
            self.period_s = float(period_s)
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="catalog-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.check()
            except Exception as e:  # a closed harness or a locked database: say it, go on
                self.last_error = f"{type(e).__name__}: {e}"
            self._stop.wait(self.period_s)

    def stop(self) -> None:
        """Stop the thread (it finishes the check it is in)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    @property
    def running(self) -> bool:
        """True while the background thread runs."""
        return self._thread is not None and self._thread.is_alive()


class CatalogFreshness(TurnHooks):
    """Turn hook: before a turn, check the catalog when a period has passed."""

    def __init__(self, harness) -> None:
        self.harness = harness

    def on_turn_start(self, turn: TurnResult) -> None:
        self.harness.catalog_watch.maybe_check()
