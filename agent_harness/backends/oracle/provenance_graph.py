"""The SQL property graph over the provenance tables (its DDL; the migration creates it).

Property Graph Developer's Guide 26, "Creating a SQL Property Graph"; SQL Language Reference
26, CREATE PROPERTY GRAPH. The vertex and edge keys are declared (KEY, SOURCE KEY ...
REFERENCES, DESTINATION KEY ... REFERENCES), so the graph needs no extra constraints; CLOB
columns are left out of the properties.
"""

from __future__ import annotations

__all__ = ["PROPERTY_GRAPH_DDL"]

PROPERTY_GRAPH_DDL = """CREATE PROPERTY GRAPH provenance_graph
    VERTEX TABLES (
        agent_turns KEY (turn_id)
            LABEL turn PROPERTIES (turn_id, thread_id, status, started_at),
        turn_events KEY (id)
            LABEL event PROPERTIES (id, turn_id, kind, name, ok, telemetry_id, seq),
        toolbox KEY (name)
            LABEL tool PROPERTIES (name, category)
    )
    EDGE TABLES (
        turn_events AS in_turn KEY (id)
            SOURCE KEY (id) REFERENCES turn_events (id)
            DESTINATION KEY (turn_id) REFERENCES agent_turns (turn_id)
            LABEL in_turn NO PROPERTIES,
        turn_events AS child_of KEY (id)
            SOURCE KEY (id) REFERENCES turn_events (id)
            DESTINATION KEY (parent_id) REFERENCES turn_events (id)
            LABEL child_of NO PROPERTIES,
        turn_events AS uses_tool KEY (id)
            SOURCE KEY (id) REFERENCES turn_events (id)
            DESTINATION KEY (name) REFERENCES toolbox (name)
            LABEL uses_tool NO PROPERTIES
    )"""
