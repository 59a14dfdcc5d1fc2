"""The embedded (SQLite) provenance store: agent turns and the tree of their events.

``agent_turns`` holds one row per turn; ``turn_events`` one row per thing that happened in it
(tools offered, each offered tool, model steps, tool calls linked to their telemetry row,
offloads, the answer; later capabilities add their own kinds, e.g. skills that unlock tools),
each with its parent event. The tree is walked with a recursive CTE; on Oracle the same tables
are a SQL property graph queried with GRAPH_TABLE.
"""

from __future__ import annotations

import json
from typing import Any

from agent_harness.backends.embedded.registry import to_text, to_time
from agent_harness.backends.roles import ProvenanceStore

__all__ = ["EmbeddedProvenance"]


_TURN_TIMES = ("started_at",)


def _turn(row: dict) -> dict:
    row["started_at"] = to_time(row["started_at"])
    return row


class EmbeddedProvenance(ProvenanceStore):
    """``agent_turns`` + ``turn_events`` on SQLite."""

    def __init__(self, backend) -> None:
        self.backend = backend

    def start_turn(self, row: dict) -> None:
        self.backend.execute(
            "INSERT INTO agent_turns (turn_id, thread_id, user_id, agent_id, question, model,"
            " started_at) VALUES (:turn_id, :thread_id, :user_id, :agent_id, :question, :model,"
            " :started_at)",
            {**row, "started_at": to_text(row["started_at"])},
        )

    def finish_turn(self, turn_id: str, fields: dict) -> None:
        allowed = (
            "answer",
            "status",
            "duration_ms",
            "prompt_tokens",
            "completion_tokens",
            "total_tokens",
            "model",
        )
        sets = [f"{name} = :{name}" for name in allowed if name in fields]
        if sets:
            self.backend.execute(
                f"UPDATE agent_turns SET {', '.join(sets)} WHERE turn_id = :turn_id",
                {**{k: fields[k] for k in allowed if k in fields}, "turn_id": turn_id},
            )

    def add_event(self, row: dict) -> int:
        values: dict[str, Any] = {
            "turn_id": row["turn_id"],
            "parent_id": row.get("parent_id"),
            "seq": int(row["seq"]),
            "kind": row["kind"],
            "name": row.get("name"),
            "ok": None if row.get("ok") is None else int(bool(row["ok"])),
            "telemetry_id": row.get("telemetry_id"),
            "detail": json.dumps(row.get("detail") or {}, default=str, ensure_ascii=False),
            "at": to_text(row["at"]),
            "duration_ms": row.get("duration_ms"),
        }
        with self.backend._lock:
            return self.backend.conn.execute(
                "INSERT INTO turn_events (turn_id, parent_id, seq, kind, name, ok, telemetry_id,"
                " detail, at, duration_ms) VALUES (:turn_id, :parent_id, :seq, :kind, :name,"
                " :ok, :telemetry_id, :detail, :at, :duration_ms) RETURNING id",
                values,
            ).fetchall()[0][0]

    def turn(self, turn_id: str) -> dict | None:
        rows = self.backend.query("SELECT * FROM agent_turns WHERE turn_id = :t", {"t": turn_id})
        return _turn(rows[0]) if rows else None

    def events(self, turn_id: str) -> list[dict]:
        # Depth-first: each event's path is its ancestors' zero-padded seq numbers.
        rows = self.backend.query(
            """WITH RECURSIVE tree (id, depth, path) AS (
                   SELECT id, 0, printf('%06d', seq) FROM turn_events
                   WHERE turn_id = :turn_id AND parent_id IS NULL
                   UNION ALL
                   SELECT e.id, tree.depth + 1, tree.path || '/' || printf('%06d', e.seq)
                   FROM turn_events e JOIN tree ON e.parent_id = tree.id)
               SELECT e.*, tree.depth FROM tree JOIN turn_events e ON e.id = tree.id
               ORDER BY tree.path""",
            {"turn_id": turn_id},
        )
        for r in rows:
            r["detail"] = json.loads(r["detail"] or "{}")
            r["at"] = to_time(r["at"])
            r["ok"] = None if r["ok"] is None else bool(r["ok"])
        return rows

    def turns(self, limit: int = 50) -> list[dict]:
        rows = self.backend.query(
            "SELECT * FROM agent_turns ORDER BY started_at DESC, turn_id LIMIT :n",
            {"n": int(limit)},
        )
        return [_turn(r) for r in rows]

    def turns_using(self, tool: str, failed: bool | None = None) -> list[dict]:
        # Walk up from each call of the tool to its turn's root event, then to the turn.
        outcome = "" if failed is None else " AND e.ok = :ok"
        binds: dict[str, Any] = {"tool": tool}
        if failed is not None:
            binds["ok"] = 0 if failed else 1
        rows = self.backend.query(
            f"""WITH RECURSIVE up (event_id, id, parent_id) AS (
                    SELECT e.id, e.id, e.parent_id FROM turn_events e
                    WHERE e.kind = 'tool_call' AND e.name = :tool{outcome}
                    UNION ALL
                    SELECT up.event_id, p.id, p.parent_id
                    FROM up JOIN turn_events p ON p.id = up.parent_id)
                SELECT t.turn_id, t.question, t.started_at,
                       COUNT(*) AS calls, SUM(CASE WHEN c.ok = 0 THEN 1 ELSE 0 END) AS failures
                FROM up JOIN turn_events root ON root.id = up.id AND up.parent_id IS NULL
                JOIN turn_events c ON c.id = up.event_id
                JOIN agent_turns t ON t.turn_id = root.turn_id
                GROUP BY t.turn_id, t.question, t.started_at
                ORDER BY t.started_at DESC, t.turn_id""",
            binds,
        )
        return [_turn(r) for r in rows]

    def offered_never_called(self, turn_id: str | None = None) -> list[dict]:
        where = " AND o.turn_id = :turn_id" if turn_id else ""
        return self.backend.query(
            f"""SELECT o.name AS tool, COUNT(DISTINCT o.turn_id) AS turns
                FROM turn_events o
                WHERE o.kind = 'tool_offered'{where}
                  AND NOT EXISTS (SELECT 1 FROM turn_events c
                                  WHERE c.turn_id = o.turn_id AND c.kind = 'tool_call'
                                    AND c.name = o.name)
                GROUP BY o.name ORDER BY turns DESC, tool""",
            {"turn_id": turn_id} if turn_id else {},
        )
