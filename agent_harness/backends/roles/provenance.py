"""Agent turns and the tree of their events, written once for both dialects.

``agent_turns`` holds one row per turn; ``turn_events`` one row per thing that happened in it
(tools offered, each offered tool, model steps, tool calls linked to their telemetry row,
offloads, the answer; later capabilities add their own kinds), each with its parent event. The
tree of one turn is ONE recursive ``WITH`` that both dialects read: no ``RECURSIVE`` keyword
(Oracle has none, SQLite does not need it), the path column CAST in the anchor (a recursive
WITH takes its column types from the anchor member, so Oracle would cut a longer path) and the
sequence numbers padded with ``SUBSTR('000000' || seq, -6)``.

A dialect may answer "which turns used tool X" and "which offered tools were never called"
its own way (Oracle: ``GRAPH_TABLE`` over a SQL property graph); the answers must be the same.
"""

from __future__ import annotations

import json
from typing import Any

from agent_harness.backends.connection import Connection

__all__ = ["ProvenanceLog", "TURN_COLUMNS", "EVENT_COLUMNS"]

TURN_COLUMNS = (
    "turn_id",
    "thread_id",
    "user_id",
    "agent_id",
    "question",
    "model",
    "answer",
    "status",
    "started_at",
    "duration_ms",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
)
EVENT_COLUMNS = (
    "id",
    "turn_id",
    "parent_id",
    "seq",
    "kind",
    "name",
    "ok",
    "telemetry_id",
    "detail",
    "at",
    "duration_ms",
)
_FINISH = (
    "answer",
    "status",
    "duration_ms",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "model",
)
# Depth-first: each event's path is its ancestors' zero-padded seq numbers.
_TREE = f"""WITH tree (id, depth, path) AS (
    SELECT id, 0, CAST(SUBSTR('000000' || seq, -6) AS VARCHAR(4000)) FROM turn_events
    WHERE turn_id = :turn_id AND parent_id IS NULL
    UNION ALL
    SELECT e.id, tree.depth + 1, tree.path || '/' || SUBSTR('000000' || e.seq, -6)
    FROM turn_events e JOIN tree ON e.parent_id = tree.id)
SELECT {", ".join("e." + c for c in EVENT_COLUMNS)}, tree.depth
FROM tree JOIN turn_events e ON e.id = tree.id ORDER BY tree.path, e.id"""


class ProvenanceLog:
    """``agent_turns`` + ``turn_events``.

    Args:
        db: The backend's connection.
    """

    def __init__(self, db: Connection) -> None:
        self.db = db
        self.dialect = db.dialect

    def _turn(self, row: dict) -> dict:
        row["started_at"] = self.dialect.read_time(row["started_at"])
        return row

    def start_turn(self, row: dict) -> None:
        """Insert a turn (turn_id, thread_id, user_id, agent_id, question, model, started_at)."""
        self.db.execute(
            "INSERT INTO agent_turns (turn_id, thread_id, user_id, agent_id, question, model,"
            " started_at) VALUES (:turn_id, :thread_id, :user_id, :agent_id, :question, :model,"
            " :started_at)",
            {
                **{k: row.get(k) for k in ("turn_id", "thread_id", "user_id", "agent_id", "model")},
                "question": self.db.text(row["question"]),
                "started_at": self.dialect.time(row["started_at"]),
            },
        )

    def finish_turn(self, turn_id: str, fields: dict) -> None:
        """Set answer, status, duration_ms, model and the token counts of a turn."""
        values = {k: fields[k] for k in _FINISH if k in fields}
        if "answer" in values:
            values["answer"] = self.db.text(values["answer"])
        if values:
            sets = ", ".join(f"{k} = :{k}" for k in values)
            self.db.execute(
                f"UPDATE agent_turns SET {sets} WHERE turn_id = :turn_id",
                {**values, "turn_id": turn_id},
            )

    def add_event(self, row: dict) -> int:
        """Insert an event (turn_id, parent_id, seq, kind, name, ok, telemetry_id, detail
        (dict), at, duration_ms); return its id."""
        detail = json.dumps(row.get("detail") or {}, default=str, ensure_ascii=False)
        return self.db.insert(
            "INSERT INTO turn_events (turn_id, parent_id, seq, kind, name, ok, telemetry_id,"
            " detail, at, duration_ms) VALUES (:turn_id, :parent_id, :seq, :kind, :name,"
            " :ok, :telemetry_id, :detail, :at, :duration_ms)",
            {
                "turn_id": row["turn_id"],
                "parent_id": row.get("parent_id"),
                "seq": int(row["seq"]),
                "kind": row["kind"],
                "name": row.get("name"),
                "ok": None if row.get("ok") is None else int(bool(row["ok"])),
                "telemetry_id": row.get("telemetry_id"),
                "detail": self.db.text(detail),
                "at": self.dialect.time(row["at"]),
                "duration_ms": row.get("duration_ms"),
            },
        )

    def turn(self, turn_id: str, user_id: str | None = None) -> dict | None:
        """One turn's row (only a turn of ``user_id``'s when given)."""
        mine = " AND user_id = :user_id" if user_id is not None else ""
        rows = self.db.query(
            f"SELECT {', '.join(TURN_COLUMNS)} FROM agent_turns WHERE turn_id = :turn_id{mine}",
            {"turn_id": turn_id, **({"user_id": user_id} if user_id is not None else {})},
        )
        return self._turn(rows[0]) if rows else None

    def events(self, turn_id: str) -> list[dict]:
        """A turn's events in tree order (parents before children, siblings by seq), each with
        its ``depth``: the walk is one recursive statement."""
        rows = self.db.query(_TREE, {"turn_id": turn_id})
        for r in rows:
            r["detail"] = json.loads(r["detail"] or "{}")
            r["at"] = self.dialect.read_time(r["at"])
            r["ok"] = None if r["ok"] is None else bool(r["ok"])
            r["depth"] = int(r["depth"])
        return rows

    def turns(self, limit: int = 50, user_id: str | None = None) -> list[dict]:
        """The latest turns, newest first (only ``user_id``'s when given)."""
        mine = " WHERE user_id = :user_id" if user_id is not None else ""
        rows = self.db.query(
            f"SELECT {', '.join(TURN_COLUMNS)} FROM agent_turns{mine}"
            f" ORDER BY started_at DESC, turn_id {self.dialect.limit('n')}",
            {"n": int(limit), **({"user_id": user_id} if user_id is not None else {})},
        )
        return [self._turn(r) for r in rows]

    def calls_sql(self, by_outcome: bool) -> str:
        """A query of ``(turn_id, ok)``: one row per call of tool ``:tool`` (only calls whose
        ``ok`` equals ``:ok`` when ``by_outcome``)."""
        outcome = " AND ok = :ok" if by_outcome else ""
        return (
            "SELECT turn_id, ok FROM turn_events WHERE kind = 'tool_call' AND name = :tool"
            + outcome
        )

    def turns_using(
        self, tool: str, failed: bool | None = None, user_id: str | None = None
    ) -> list[dict]:
        """Turns with a call of ``tool`` (only failed calls when ``failed`` is True, only
        successful ones when False; only ``user_id``'s turns when given): turn_id, question,
        started_at, calls, failures; newest first. Calls of tools that are no longer (or never
        were) in the toolbox count too."""
        binds: dict[str, Any] = {"tool": tool}
        if failed is not None:
            binds["ok"] = 0 if failed else 1
        mine = ""
        if user_id is not None:
            binds["user_id"], mine = user_id, " WHERE t.user_id = :user_id"
        rows = self.db.query(
            f"""SELECT t.turn_id, t.question, t.started_at, c.calls, c.failures
                FROM agent_turns t JOIN (
                    SELECT turn_id, COUNT(*) AS calls,
                           SUM(CASE WHEN ok = 0 THEN 1 ELSE 0 END) AS failures
                    FROM ({self.calls_sql(failed is not None)}) calls GROUP BY turn_id) c
                  ON c.turn_id = t.turn_id{mine}
                ORDER BY t.started_at DESC, t.turn_id""",
            binds,
        )
        for r in rows:
            r["calls"], r["failures"] = int(r["calls"]), int(r["failures"] or 0)
        return [self._turn(r) for r in rows]

    def offered_sql(self, one_turn: bool) -> str:
        """A query of ``(turn_id, tool)``: one row per tool offered in a turn (only turn
        ``:turn_id`` when ``one_turn``)."""
        where = " AND turn_id = :turn_id" if one_turn else ""
        return f"SELECT turn_id, name AS tool FROM turn_events WHERE kind = 'tool_offered'{where}"

    def offered_never_called(
        self, turn_id: str | None = None, user_id: str | None = None
    ) -> list[dict]:
        """Per tool: how often it was offered and never called in the same turn (one turn, or
        all; only ``user_id``'s turns when given): tool, turns (count); most often first, ties
        by tool."""
        binds = {"turn_id": turn_id} if turn_id is not None else {}
        mine = ""
        if user_id is not None:
            binds["user_id"] = user_id
            mine = " AND g.turn_id IN (SELECT turn_id FROM agent_turns WHERE user_id = :user_id)"
        rows = self.db.query(
            f"""SELECT g.tool, COUNT(DISTINCT g.turn_id) AS turns
                FROM ({self.offered_sql(turn_id is not None)}) g
                WHERE NOT EXISTS (SELECT 1 FROM turn_events c
                                  WHERE c.turn_id = g.turn_id AND c.kind = 'tool_call'
                                    AND c.name = g.tool){mine}
                GROUP BY g.tool ORDER BY turns DESC, g.tool""",
            binds,
        )
        for r in rows:
            r["turns"] = int(r["turns"])
        return rows
