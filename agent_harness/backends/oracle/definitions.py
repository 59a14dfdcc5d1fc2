"""Tools defined as data on Oracle: ``tool_definitions`` and ``tool_parameters``.

JSON is kept as text in ``CLOB`` / ``VARCHAR2`` columns checked with ``IS JSON`` (JSON
Developer's Guide 23, "Creating a Table With a JSON Column"), so both dialects hand the same
text to :mod:`agent_harness.tools.data_tools`. A definition is replaced by DELETE + INSERT in
one transaction.
"""

from __future__ import annotations

from agent_harness.backends.roles import (
    DEFINITION_COLUMNS,
    PARAMETER_COLUMNS,
    ToolDefinitionStore,
)

__all__ = ["OracleToolDefinitions"]

_DEFINITION = DEFINITION_COLUMNS
_PARAMETER = PARAMETER_COLUMNS


class OracleToolDefinitions(ToolDefinitionStore):
    """The rows of data tools."""

    def __init__(self, backend) -> None:
        self.backend = backend

    def put(self, definition: dict, parameters: list[dict]) -> None:
        backend = self.backend
        values = {c: definition[c] for c in _DEFINITION}
        values["implementation"] = backend._clob(values["implementation"])
        with backend.transaction():
            self._delete(definition["name"])
            backend.execute(
                f"INSERT INTO tool_definitions ({', '.join(_DEFINITION)}) VALUES"
                f" ({', '.join(':' + c for c in _DEFINITION)})",
                values,
            )
            for row in parameters:
                backend.execute(
                    f"INSERT INTO tool_parameters (tool_name, {', '.join(_PARAMETER)}) VALUES"
                    f" (:tool_name, {', '.join(':' + c for c in _PARAMETER)})",
                    {
                        "tool_name": definition["name"],
                        **{c: row[c] for c in _PARAMETER},
                        "required": int(bool(row["required"])),
                        # '' is NULL in Oracle and the column is NOT NULL: no description
                        # is stored as one space and read back as ''.
                        "description": row["description"] or " ",
                    },
                )

    def all(self) -> list[dict]:
        definitions = self.backend.query(
            f"SELECT {', '.join(_DEFINITION)} FROM tool_definitions ORDER BY name"
        )
        parameters: dict[str, list[dict]] = {}
        for row in self.backend.query(
            f"SELECT tool_name, {', '.join(_PARAMETER)} FROM tool_parameters"
            " ORDER BY tool_name, ordinal"
        ):
            row["description"] = (row["description"] or "").strip()
            parameters.setdefault(row["tool_name"], []).append(row)
        for definition in definitions:
            definition["parameters"] = parameters.get(definition["name"], [])
        return definitions

    def delete(self, name: str) -> bool:
        with self.backend.transaction():
            return self._delete(name)

    def _delete(self, name: str) -> bool:
        self.backend.execute("DELETE FROM tool_parameters WHERE tool_name = :name", {"name": name})
        found = self.backend.query(
            "SELECT COUNT(*) AS n FROM tool_definitions WHERE name = :name", {"name": name}
        )[0]["n"]
        self.backend.execute("DELETE FROM tool_definitions WHERE name = :name", {"name": name})
        return found > 0
