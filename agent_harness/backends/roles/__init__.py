"""The role objects of a backend: one storage concern each, written once for both dialects.

Each role takes the backend's :class:`~agent_harness.backends.connection.Connection` and uses
only its public methods. A role's statements are portable SQL; where the dialects really
differ, the role has an abstract method (or a method a dialect overrides) that its dialect
package supplies, and ``tests/test_backend_layout.py`` lists every override with the dialect
feature that forces it.

===================  ========================================================================
``memories``         memory rows; the vector / full-text search fragments per dialect
``boxes``            toolbox and skillbox (vector-indexed, by name); the scratchpad
``telemetry``        one row per tool call; windowed statistics (the window per dialect)
``breakers``         breaker states, transitions, the registry's settings
``ranking``          tools ranked by meaning and track record in ONE statement
``provenance``       agent turns and the tree of their events
``definitions``      tools defined as data (definition and parameter rows)
``disclosure``       the skill graph (one recursive walk) and agents
``supplychain``      the demo data and ``run_sql``'s read-only path (all per dialect)
``policy``           who may read what: the access policy both dialects enforce
``documents``        voyage and vessel as JSON documents over the rows (per dialect)
``catalog_watch``    the catalog's fingerprint: has the schema changed since the last scan?
===================  ========================================================================
"""

from agent_harness.backends.roles.boxes import BOX_COLUMNS, IndexedBoxes, ScratchFiles
from agent_harness.backends.roles.breakers import Breakers
from agent_harness.backends.roles.catalog_watch import CatalogWatch
from agent_harness.backends.roles.common import (
    AGENT_COLUMNS,
    AGENT_SKILL_COLUMNS,
    BREAKER_COLUMNS,
    DEFINITION_COLUMNS,
    MAX_TEXT_BYTES,
    PARAMETER_COLUMNS,
    TELEMETRY_COLUMNS,
    RankWeights,
    Scope,
    TextTooLong,
    check_key,
    check_text_fits,
    in_list,
    text_bytes,
    utc_now,
)
from agent_harness.backends.roles.definitions import ToolDefinitions
from agent_harness.backends.roles.disclosure import Agents, SkillGraph
from agent_harness.backends.roles.documents import DOCUMENTS, Documents
from agent_harness.backends.roles.memories import MemoryTable
from agent_harness.backends.roles.provenance import ProvenanceLog
from agent_harness.backends.roles.ranking import RANK_MODES, ToolRanking
from agent_harness.backends.roles.supplychain import ReadOnlyResult, SupplyChain
from agent_harness.backends.roles.telemetry import Telemetry

__all__ = [
    "AGENT_COLUMNS",
    "AGENT_SKILL_COLUMNS",
    "BOX_COLUMNS",
    "BREAKER_COLUMNS",
    "DEFINITION_COLUMNS",
    "MAX_TEXT_BYTES",
    "PARAMETER_COLUMNS",
    "RANK_MODES",
    "TELEMETRY_COLUMNS",
    "Agents",
    "Breakers",
    "CatalogWatch",
    "DOCUMENTS",
    "Documents",
    "IndexedBoxes",
    "MemoryTable",
    "ProvenanceLog",
    "RankWeights",
    "ReadOnlyResult",
    "ScratchFiles",
    "Scope",
    "SkillGraph",
    "SupplyChain",
    "Telemetry",
    "TextTooLong",
    "ToolDefinitions",
    "ToolRanking",
    "check_key",
    "check_text_fits",
    "in_list",
    "text_bytes",
    "utc_now",
]
