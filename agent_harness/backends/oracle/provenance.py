"""The Oracle provenance store: agent turns, their event trees, and a SQL property graph.

The same two tables as on the embedded backend, plus ``provenance_graph``: a SQL property
graph over them and the toolbox (Property Graph Developer's Guide 26, "Creating a SQL Property
Graph"; SQL Language Reference 26, CREATE PROPERTY GRAPH). Vertices: ``turn`` (agent_turns),
``event`` (turn_events), ``tool`` (toolbox, keyed by its unique name). Edges: ``in_turn``
(event -> turn), ``child_of`` (event -> parent event), ``uses_tool`` (event -> tool, by name).
The questions "which turns used tool X and failed" and "which tools were offered but never
called" are GRAPH_TABLE ... MATCH queries over it ("SQL Graph Queries" in the same guide);
the tree of one turn is a recursive WITH.
"""

from __future__ import annotations

import json
from typing import Any

from agent_harness.backends.oracle.provenance_graph import PROPERTY_GRAPH_DDL
from agent_harness.backends.oracle.registry import from_db_time, to_db_time
from agent_harness.backends.roles import ProvenanceStore

__all__ = ["OracleProvenance", "PROPERTY_GRAPH_DDL"]


_TURN = (
    "turn_id, thread_id, user_id, agent_id, question, model, answer, status, started_at,"
    " duration_ms, prompt_tokens, completion_tokens, total_tokens"
)
_EVENT = "id, turn_id, parent_id, seq, kind, name, ok, telemetry_id, detail, at, duration_ms"


def _turn(row: dict) -> dict:
    row["started_at"] = from_db_time(row["started_at"])
    return row


class OracleProvenance(ProvenanceStore):
    """``agent_turns`` + ``turn_events`` (+ ``provenance_graph``) on Oracle."""

    def __init__(self, backend) -> None:
        self.backend = backend

    def start_turn(self, row: dict) -> None:
        self.backend.execute(
            "INSERT INTO agent_turns (turn_id, thread_id, user_id, agent_id, question, model,"
            " started_at) VALUES (:turn_id, :thread_id, :user_id, :agent_id, :question, :model,"
            " :started_at)",
            {
                **row,
                "question": self.backend._clob(row["question"]),
                "started_at": to_db_time(row["started_at"]),
            },
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
        values = {k: fields[k] for k in allowed if k in fields}
        if "answer" in values:
            values["answer"] = self.backend._clob(values["answer"])
        if values:
            sets = ", ".join(f"{k} = :{k}" for k in values)
            self.backend.execute(
                f"UPDATE agent_turns SET {sets} WHERE turn_id = :turn_id",
                {**values, "turn_id": turn_id},
            )

    def add_event(self, row: dict) -> int:
        import oracledb

        values: dict[str, Any] = {
            "turn_id": row["turn_id"],
            "parent_id": row.get("parent_id"),
            "seq": int(row["seq"]),
            "kind": row["kind"],
            "name": row.get("name"),
            "ok": None if row.get("ok") is None else int(bool(row["ok"])),
            "telemetry_id": row.get("telemetry_id"),
            "detail": self.backend._clob(
                json.dumps(row.get("detail") or {}, default=str, ensure_ascii=False)
            ),
            "at": to_db_time(row["at"]),
            "duration_ms": row.get("duration_ms"),
        }
        with self.backend.transaction(), self.backend.conn.cursor() as cur:
            new_id = cur.var(oracledb.DB_TYPE_NUMBER)
            cur.execute(
                "INSERT INTO turn_events (turn_id, parent_id, seq, kind, name, ok, telemetry_id,"
                " detail, at, duration_ms) VALUES (:turn_id, :parent_id, :seq, :kind, :name,"
                " :ok, :telemetry_id, :detail, :at, :duration_ms) RETURNING id INTO :new_id",
                {**values, "new_id": new_id},
            )
            return int(new_id.getvalue()[0])

    def turn(self, turn_id: str) -> dict | None:
        rows = self.backend.query(
            f"SELECT {_TURN} FROM agent_turns WHERE turn_id = :turn_id", {"turn_id": turn_id}
        )
        return _turn(rows[0]) if rows else None

    def events(self, turn_id: str) -> list[dict]:
        # Recursive subquery factoring; the path of zero-padded seq numbers orders the walk.
        rows = self.backend.query(
            f"""WITH tree (id, depth, path) AS (
                    SELECT id, 0, LPAD(seq, 6, '0') FROM turn_events
                    WHERE turn_id = :turn_id AND parent_id IS NULL
                    UNION ALL
                    SELECT e.id, tree.depth + 1, tree.path || '/' || LPAD(e.seq, 6, '0')
                    FROM turn_events e JOIN tree ON e.parent_id = tree.id)
                SELECT {", ".join("e." + c.strip() for c in _EVENT.split(","))}, tree.depth
                FROM tree JOIN turn_events e ON e.id = tree.id ORDER BY tree.path""",
            {"turn_id": turn_id},
        )
        for r in rows:
            r["detail"] = json.loads(r["detail"] or "{}")
            r["at"] = from_db_time(r["at"])
            r["ok"] = None if r["ok"] is None else bool(r["ok"])
        return rows

    def turns(self, limit: int = 50) -> list[dict]:
        rows = self.backend.query(
            f"SELECT {_TURN} FROM agent_turns ORDER BY started_at DESC, turn_id"
            " FETCH FIRST :n ROWS ONLY",
            {"n": int(limit)},
        )
        return [_turn(r) for r in rows]

    def turns_using(self, tool: str, failed: bool | None = None) -> list[dict]:
        outcome = "" if failed is None else " AND e.ok = :ok"
        binds: dict[str, Any] = {"tool": tool}
        if failed is not None:
            binds["ok"] = 0 if failed else 1
        rows = self.backend.query(
            f"""SELECT g.turn_id, g.started_at, COUNT(*) AS calls,
                       SUM(CASE WHEN g.ok = 0 THEN 1 ELSE 0 END) AS failures
                FROM GRAPH_TABLE (provenance_graph
                    MATCH (t IS turn) <-[IS in_turn]- (e IS event) -[IS uses_tool]-> (x IS tool)
                    WHERE e.kind = 'tool_call' AND x.name = :tool{outcome}
                    COLUMNS (t.turn_id AS turn_id, t.started_at AS started_at, e.ok AS ok)) g
                GROUP BY g.turn_id, g.started_at
                ORDER BY g.started_at DESC, g.turn_id""",
            binds,
        )
        questions = {
            r["turn_id"]: r["question"]
            for r in self.backend.query(
                "SELECT turn_id, question FROM agent_turns WHERE turn_id IN"
                " (SELECT turn_id FROM turn_events WHERE kind = 'tool_call' AND name = :tool)",
                {"tool": tool},
            )
        }
        return [_turn({**r, "question": questions.get(r["turn_id"])}) for r in rows]

    def offered_never_called(self, turn_id: str | None = None) -> list[dict]:
        where = " AND t.turn_id = :turn_id" if turn_id else ""
        return self.backend.query(
            f"""SELECT g.tool, COUNT(DISTINCT g.turn_id) AS turns
                FROM GRAPH_TABLE (provenance_graph
                    MATCH (t IS turn) <-[IS in_turn]- (o IS event) -[IS uses_tool]-> (x IS tool)
                    WHERE o.kind = 'tool_offered'{where}
                    COLUMNS (t.turn_id AS turn_id, x.name AS tool)) g
                WHERE NOT EXISTS (SELECT 1 FROM turn_events c
                                  WHERE c.turn_id = g.turn_id AND c.kind = 'tool_call'
                                    AND c.name = g.tool)
                GROUP BY g.tool ORDER BY turns DESC, g.tool""",
            {"turn_id": turn_id} if turn_id else {},
        )
