"""The Oracle provenance store's two graph questions, asked with ``GRAPH_TABLE``.

The turns and events are written and walked by the shared
:class:`~agent_harness.backends.roles.provenance.ProvenanceLog`. On Oracle the same tables are also
``provenance_graph``, a SQL property graph (Property Graph Developer's Guide 26, "Creating a SQL
Property Graph"; SQL Language Reference 26, CREATE PROPERTY GRAPH): vertices ``turn``
(agent_turns), ``event`` (turn_events), ``tool`` (toolbox); edges ``in_turn`` (event -> turn),
``child_of`` (event -> parent event), ``uses_tool`` (event -> tool, by name). "Which turns
called tool X" and "which offered tools were never called" are ``GRAPH_TABLE ... MATCH``
queries over it ("SQL Graph Queries" in the same guide). They match the tool by the event's
name, not through the ``uses_tool`` edge, so calls of tools that are no longer (or never were)
in the toolbox count, as on the embedded backend.
"""

from __future__ import annotations

from agent_harness.backends.oracle.provenance_graph import PROPERTY_GRAPH_DDL
from agent_harness.backends.roles.provenance import ProvenanceLog

__all__ = ["OracleProvenance", "PROPERTY_GRAPH_DDL"]


class OracleProvenance(ProvenanceLog):
    """``agent_turns`` + ``turn_events``, with the graph questions over ``provenance_graph``."""

    def calls_sql(self, by_outcome: bool) -> str:
        outcome = " AND e.ok = :ok" if by_outcome else ""
        return f"""SELECT turn_id, ok FROM GRAPH_TABLE (provenance_graph
            MATCH (t IS turn) <-[IS in_turn]- (e IS event)
            WHERE e.kind = 'tool_call' AND e.name = :tool{outcome}
            COLUMNS (t.turn_id AS turn_id, e.ok AS ok))"""

    def offered_sql(self, one_turn: bool) -> str:
        where = " AND t.turn_id = :turn_id" if one_turn else ""
        return f"""SELECT turn_id, tool FROM GRAPH_TABLE (provenance_graph
            MATCH (t IS turn) <-[IS in_turn]- (o IS event)
            WHERE o.kind = 'tool_offered'{where}
            COLUMNS (t.turn_id AS turn_id, o.name AS tool))"""
