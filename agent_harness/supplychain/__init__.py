"""The SUPPLYCHAIN demo data: a backend-neutral schema and a deterministic generator.

Modules: ``schema`` (tables and columns), ``catalogue`` (carriers, ports, ships, goods),
``sealanes`` (the waypoint graph and ``sea_route``) and ``generate`` (the rows).

>>> from agent_harness.supplychain import TABLES, generate, REFERENCE_DATE
>>> rows = generate()  # {"carriers": [...], ...}, the same on every call
"""

from agent_harness.supplychain.generate import REFERENCE_DATE, SEED, data_digest, generate
from agent_harness.supplychain.schema import (
    ENUMS,
    OWNER,
    TABLES,
    Column,
    ForeignKey,
    Table,
    table,
)
from agent_harness.supplychain.sealanes import SeaRoute, haversine_nm, sea_route

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
