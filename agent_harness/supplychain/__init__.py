"""The SUPPLYCHAIN demo data: a backend-neutral schema and a deterministic generator.

>>> from agent_harness.supplychain import TABLES, generate, REFERENCE_DATE
>>> rows = generate()  # {"carriers": [...], ...}, the same on every call
"""

from agent_harness.supplychain.generate import (
    REFERENCE_DATE,
    SEED,
    SeaRoute,
    data_digest,
    generate,
    haversine_nm,
    sea_route,
)
from agent_harness.supplychain.schema import (
    ENUMS,
    OWNER,
    TABLES,
    Column,
    ForeignKey,
    Table,
    table,
)

__all__ = [
    "REFERENCE_DATE",
    "SEED",
    "OWNER",
    "TABLES",
    "ENUMS",
    "Column",
    "ForeignKey",
    "Table",
    "SeaRoute",
    "table",
    "generate",
    "data_digest",
    "sea_route",
    "haversine_nm",
]
