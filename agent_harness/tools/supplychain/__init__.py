"""The SUPPLYCHAIN tools: 20 domain tools over the demo data, and one flaky live feed.

Plain functions beside the data they read: importing this package registers nothing. Every
harness registers them through :func:`tools`. They live by topic: :mod:`.vessels`,
:mod:`.ports`, :mod:`.voyages`, :mod:`.cargo`, :mod:`.hs_codes` and :mod:`.units`; what they
share (SQL, name resolution, "today") is in :mod:`.lookups`, geography in :mod:`.geo`; the live
AIS feed that fails on purpose (notebook 06) in :mod:`.live_feeds`.
"""

from __future__ import annotations

import functools

from agent_harness.tools.supplychain.cargo import (
    cargo_value,
    consignee_shipments,
    container_manifest,
    containers_on_hold,
    hazmat_containers,
    reefer_containers,
)
from agent_harness.tools.supplychain.hs_codes import hs_code_lookup
from agent_harness.tools.supplychain.live_feeds import ais_live_position
from agent_harness.tools.supplychain.ports import port_congestion, port_distance, port_info
from agent_harness.tools.supplychain.units import convert_units
from agent_harness.tools.supplychain.vessels import (
    carrier_fleet,
    eta_estimate,
    find_vessel,
    fleet_capacity_by_region,
    vessel_position,
    vessels_near_port,
)
from agent_harness.tools.supplychain.voyages import (
    delayed_voyages,
    voyage_status,
    voyages_between,
)
from agent_harness.tools.tool import Tool

__all__ = [
    "tools",
    "DOMAIN_TOOLS",
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
    "ais_live_position",
]

#: The 20 domain tools; each takes its module's ``TOOL_CATEGORY``.
DOMAIN_TOOLS = (
    find_vessel,
    vessel_position,
    vessels_near_port,
    port_info,
    port_distance,
    voyage_status,
    delayed_voyages,
    voyages_between,
    container_manifest,
    containers_on_hold,
    cargo_value,
    carrier_fleet,
    hs_code_lookup,
    eta_estimate,
    convert_units,
    hazmat_containers,
    reefer_containers,
    consignee_shipments,
    port_congestion,
    fleet_capacity_by_region,
)


@functools.cache
def tools() -> tuple[Tool, ...]:
    """The SUPPLYCHAIN tools, built once, for a harness to register: the 20 domain tools and
    ``ais_live_position`` (0.5 s time limit: its hangs become time-outs)."""
    return (
        *(Tool.from_function(fn) for fn in DOMAIN_TOOLS),
        Tool.from_function(ais_live_position, timeout_s=0.5),
    )
