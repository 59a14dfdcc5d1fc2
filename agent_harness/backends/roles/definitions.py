"""Tools defined as data: ``tool_definitions`` and ``tool_parameters`` rows, written once.

JSON is kept as text (``implementation``, ``default_value``, ``schema_extra``), so both
dialects hand the same text to the tool registry. A definition is replaced by DELETE + INSERT
in one transaction.
"""

from __future__ import annotations

from agent_harness.backends.connection import Connection
from agent_harness.backends.roles.common import (
    DEFINITION_COLUMNS,
    PARAMETER_COLUMNS,
    check_text_fits,
)

__all__ = ["ToolDefinitions", "NO_DESCRIPTION"]

#: What an empty parameter description is stored as: Oracle reads ``''`` as NULL and the
#: column is NOT NULL, so one space is stored and read back as ``''`` on both dialects.
NO_DESCRIPTION = " "


class ToolDefinitions:
    """The rows of data tools.

    Args:
        db: The backend's connection.
    """

    def __init__(self, db: Connection) -> None:
        self.db = db

    def put(self, definition: dict, parameters: list[dict]) -> None:
        """Insert or replace a definition (name, description, implementation_type,
        implementation (JSON text), category, access_level, timeout_s) and its parameter rows
        (ordinal, name, json_type, required, default_value, description, schema_extra), in one
        transaction.

        Raises:
            TextTooLong: A description, default or schema takes more than 4000 bytes (its
                column is a VARCHAR2(4000 CHAR)).
        """
        name = definition["name"]
        check_text_fits(definition["description"], f"tool {name!r}: the description")
        for row in parameters:
            for column in ("description", "default_value", "schema_extra"):
                what = f"tool {name!r}, argument {row['name']!r}: the {column.replace('_', ' ')}"
                check_text_fits(row[column], what)
        values = {c: definition[c] for c in DEFINITION_COLUMNS}
        values["implementation"] = self.db.text(values["implementation"])
        with self.db.transaction():
            self._delete(definition["name"])
            self.db.execute(
                f"INSERT INTO tool_definitions ({', '.join(DEFINITION_COLUMNS)}) VALUES"
                f" ({', '.join(':' + c for c in DEFINITION_COLUMNS)})",
                values,
            )
            for row in parameters:
                self.db.execute(
                    f"INSERT INTO tool_parameters (tool_name, {', '.join(PARAMETER_COLUMNS)})"
                    f" VALUES (:tool_name, {', '.join(':' + c for c in PARAMETER_COLUMNS)})",
                    {
                        "tool_name": definition["name"],
                        **{c: row[c] for c in PARAMETER_COLUMNS},
                        "required": int(bool(row["required"])),
                        "description": row["description"] or NO_DESCRIPTION,
                    },
                )

    def all(self) -> list[dict]:
        """Every definition, by name, each with its ``parameters`` rows (by ordinal)."""
        definitions = self.db.query(
            f"SELECT {', '.join(DEFINITION_COLUMNS)} FROM tool_definitions ORDER BY name"
        )
        parameters: dict[str, list[dict]] = {}
        for row in self.db.query(
            f"SELECT tool_name, {', '.join(PARAMETER_COLUMNS)} FROM tool_parameters"
            " ORDER BY tool_name, ordinal"
        ):
            if row["description"] == NO_DESCRIPTION or row["description"] is None:
                row["description"] = ""
            row["ordinal"], row["required"] = int(row["ordinal"]), int(row["required"])
            parameters.setdefault(row["tool_name"], []).append(row)
        for definition in definitions:
            if definition.get("timeout_s") is not None:
                definition["timeout_s"] = float(definition["timeout_s"])
            definition["parameters"] = parameters.get(definition["name"], [])
        return definitions

    def delete(self, name: str) -> bool:
        """Delete a definition and its parameters; True when one was there."""
        with self.db.transaction():
            return self._delete(name)

    def _delete(self, name: str) -> bool:
        self.db.execute("DELETE FROM tool_parameters WHERE tool_name = :name", {"name": name})
        return (
            self.db.execute("DELETE FROM tool_definitions WHERE name = :name", {"name": name}) > 0
        )
