"""Tools defined as data on SQLite: ``tool_definitions`` and ``tool_parameters``."""

from __future__ import annotations

from agent_harness.backends.embedded.migrations import NOW
from agent_harness.backends.roles import (
    DEFINITION_COLUMNS,
    PARAMETER_COLUMNS,
    ToolDefinitionStore,
)

__all__ = ["EmbeddedToolDefinitions"]

_DEFINITION = DEFINITION_COLUMNS
_PARAMETER = PARAMETER_COLUMNS


class EmbeddedToolDefinitions(ToolDefinitionStore):
    """The rows of data tools."""

    def __init__(self, backend) -> None:
        self.backend = backend

    def put(self, definition: dict, parameters: list[dict]) -> None:
        values = {c: definition[c] for c in _DEFINITION}
        updates = ", ".join(f"{c} = excluded.{c}" for c in _DEFINITION[1:])
        with self.backend._lock, self.backend.conn:
            conn = self.backend.conn
            conn.execute(
                f"INSERT INTO tool_definitions ({', '.join(_DEFINITION)}) VALUES"
                f" ({', '.join(':' + c for c in _DEFINITION)}) ON CONFLICT (name) DO UPDATE SET"
                f" {updates}, updated_at = {NOW}",
                values,
            )
            conn.execute("DELETE FROM tool_parameters WHERE tool_name = ?", (definition["name"],))
            for row in parameters:
                conn.execute(
                    f"INSERT INTO tool_parameters (tool_name, {', '.join(_PARAMETER)}) VALUES"
                    f" (:tool_name, {', '.join(':' + c for c in _PARAMETER)})",
                    {
                        "tool_name": definition["name"],
                        **{c: row[c] for c in _PARAMETER},
                        "required": int(bool(row["required"])),
                    },
                )

    def all(self) -> list[dict]:
        definitions = self.backend.query("SELECT * FROM tool_definitions ORDER BY name")
        parameters: dict[str, list[dict]] = {}
        for row in self.backend.query("SELECT * FROM tool_parameters ORDER BY tool_name, ordinal"):
            parameters.setdefault(row["tool_name"], []).append(row)
        for definition in definitions:
            definition["parameters"] = parameters.get(definition["name"], [])
        return definitions

    def delete(self, name: str) -> bool:
        with self.backend._lock, self.backend.conn:
            self.backend.conn.execute("DELETE FROM tool_parameters WHERE tool_name = ?", (name,))
            gone = self.backend.conn.execute(
                "DELETE FROM tool_definitions WHERE name = ? RETURNING name", (name,)
            ).fetchall()
        return bool(gone)
