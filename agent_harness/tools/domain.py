"""The 20 SUPPLYCHAIN domain tools: vessels, ports, voyages, containers, cargo and units.

Importing this module registers them all. They live by topic: :mod:`.vessels`, :mod:`.ports`,
:mod:`.voyages`, :mod:`.cargo`, :mod:`.hs_codes` and :mod:`.units`; what they share (SQL, name
resolution, "today") is in :mod:`.lookups`, geography in :mod:`.geo`.
"""

from __future__ import annotations

from agent_harness.tools.cargo import (
    cargo_value,
    consignee_shipments,
    container_manifest,
    containers_on_hold,
    hazmat_containers,
    reefer_containers,
)
from agent_harness.tools.hs_codes import hs_code_lookup
from agent_harness.tools.ports import port_congestion, port_distance, port_info
from agent_harness.tools.units import convert_units
from agent_harness.tools.vessels import (
    carrier_fleet,
    eta_estimate,
    find_vessel,
    fleet_capacity_by_region,
    vessel_position,
    vessels_near_port,
)
from agent_harness.tools.voyages import delayed_voyages, voyage_status, voyages_between

__all__ = [
    "find_vessel",
    "vessel_position",
    "vessels_near_port",
    "port_info",
    "port_distance",
    "voyage_status",
    "delayed_voyages",
    "voyages_between",
    "container_manifest",
    "containers_on_hold",
    "cargo_value",
    "carrier_fleet",
    "hs_code_lookup",
    "eta_estimate",
    "convert_units",
    "hazmat_containers",
    "reefer_containers",
    "consignee_shipments",
    "port_congestion",
    "fleet_capacity_by_region",
]
