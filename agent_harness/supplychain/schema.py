"""The SUPPLYCHAIN schema, described once for every backend.

Seven tables of a container-shipping business. Each backend renders its own DDL from these
descriptions (types are neutral: ``text``, ``int``, ``decimal``, ``date``, ``timestamp``), and
the catalog scanner reads the comments back from the database, so every table and every column
carries a comment written for an agent: what the value means, its unit, its allowed values.

Names are fixed by ``docs/supplychain-contract.md``; never rename them here.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Column",
    "ForeignKey",
    "Table",
    "TABLES",
    "OWNER",
    "ENUMS",
    "OCEAN_REGIONS",
    "VOYAGE_STATUSES",
    "CONTAINER_TYPES",
    "CONTAINER_STATUSES",
    "NAV_STATUSES",
    "table",
]

OWNER = "SUPPLYCHAIN"

OCEAN_REGIONS = ("PACIFIC", "ATLANTIC", "INDIAN", "MEDITERRANEAN")
VOYAGE_STATUSES = ("ACTIVE", "DELAYED", "SCHEDULED", "COMPLETED")
CONTAINER_TYPES = ("DRY", "REEFER", "OPEN_TOP", "HAZMAT")
CONTAINER_STATUSES = ("LOADED", "IN_TRANSIT", "DISCHARGED", "CUSTOMS_HOLD")
NAV_STATUSES = ("UNDER_WAY", "AT_ANCHOR", "MOORED")


@dataclass(frozen=True)
class Column:
    """One column.

    Attributes:
        name: Column name (unquoted identifier, lower case).
        type: One of ``text``, ``int``, ``decimal``, ``date``, ``timestamp``.
        length: Maximum characters for ``text``; precision (total digits) for ``decimal``.
        scale: Digits after the decimal point for ``decimal``.
        nullable: False renders NOT NULL (primary keys are never null).
        comment: What the column means, for people and agents.
    """

    name: str
    type: str
    length: int | None = None
    scale: int | None = None
    nullable: bool = True
    comment: str = ""

    @property
    def declared_type(self) -> str:
        """The Oracle type of the column (``VARCHAR2(n)``, ``NUMBER(p,s)``, ``DATE``, ...).

        Both backends declare these: Oracle natively, SQLite through its type affinities
        (VARCHAR2 -> TEXT, NUMBER -> NUMERIC), so the data dictionary reads the same.
        """
        if self.type == "text":
            return f"VARCHAR2({self.length or 4000})"
        if self.type == "int":
            return f"NUMBER({self.length or 10})"
        if self.type == "decimal":
            return f"NUMBER({self.length},{self.scale or 0})"
        if self.type == "date":
            return "DATE"
        if self.type == "timestamp":
            return "TIMESTAMP"
        raise ValueError(f"unknown column type {self.type!r}")


@dataclass(frozen=True)
class ForeignKey:
    """``column`` references ``ref_table.ref_column``."""

    column: str
    ref_table: str
    ref_column: str


@dataclass(frozen=True)
class Table:
    """One table: columns in order, primary key, foreign keys and unique columns."""

    name: str
    comment: str
    columns: tuple[Column, ...]
    primary_key: str
    foreign_keys: tuple[ForeignKey, ...] = ()
    unique: tuple[str, ...] = ()

    def column(self, name: str) -> Column:
        """The column called ``name`` (KeyError listing the columns if there is none)."""
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(f"{self.name} has no column {name!r}; columns: {self.column_names}")

    @property
    def column_names(self) -> tuple[str, ...]:
        """Column names in table order (the order of generated row tuples)."""
        return tuple(c.name for c in self.columns)


def _values(values: tuple[str, ...]) -> str:
    return "|".join(values)


CARRIERS = Table(
    "carriers",
    "Container shipping lines (ocean carriers) that operate the vessels. One row per carrier; "
    "join vessels.carrier_id to carrier_id.",
    (
        Column("carrier_id", "int", nullable=False, comment="Carrier identifier (primary key)."),
        Column("name", "text", 80, nullable=False, comment="Trading name of the shipping line."),
        Column(
            "scac_code",
            "text",
            4,
            nullable=False,
            comment="Standard Carrier Alpha Code: the unique 4-letter industry code of the "
            "carrier (e.g. MAEU for Maersk, MSCU for MSC), used on bills of lading.",
        ),
        Column("country", "text", 60, comment="Country where the carrier is headquartered."),
        Column("headquarters", "text", 80, comment="City of the carrier's head office."),
        Column("founded_year", "int", comment="Year the company was founded (4-digit year)."),
    ),
    primary_key="carrier_id",
    unique=("scac_code",),
)

PORTS = Table(
    "ports",
    "Container ports the voyages sail between, keyed by UN/LOCODE, with position and ocean "
    "region. Join voyages.origin_port / voyages.dest_port to port_code.",
    (
        Column(
            "port_code",
            "text",
            5,
            nullable=False,
            comment="UN/LOCODE of the port (primary key): 2-letter country code + 3-letter "
            "location, e.g. CNSHA = Shanghai, NLRTM = Rotterdam.",
        ),
        Column("name", "text", 80, nullable=False, comment="Port name in English."),
        Column("country", "text", 60, comment="Country the port is in."),
        Column(
            "ocean_region",
            "text",
            20,
            nullable=False,
            comment="Ocean basin the port opens onto, one of "
            f"{_values(OCEAN_REGIONS)}. PACIFIC includes the China seas and Singapore; "
            "ATLANTIC includes the North Sea; INDIAN includes the Red Sea, the Gulf and the "
            "Strait of Malacca.",
        ),
        Column(
            "latitude",
            "decimal",
            9,
            6,
            comment="Latitude of the container terminal in decimal degrees (WGS84, north "
            "positive).",
        ),
        Column(
            "longitude",
            "decimal",
            9,
            6,
            comment="Longitude of the container terminal in decimal degrees (WGS84, east "
            "positive).",
        ),
        Column("berths", "int", comment="Number of container berths."),
        Column(
            "max_draft_m",
            "decimal",
            4,
            1,
            comment="Deepest vessel draft the port accepts, in metres.",
        ),
    ),
    primary_key="port_code",
)

VESSELS = Table(
    "vessels",
    "Container ships, keyed by IMO number, with their carrier and size. Capacity is in TEU "
    "(container slots), not tons.",
    (
        Column(
            "imo_number",
            "int",
            nullable=False,
            comment="IMO ship identification number (primary key): 7 digits, the last one a "
            "check digit.",
        ),
        Column("name", "text", 80, nullable=False, comment="Ship name, upper case."),
        Column(
            "carrier_id",
            "int",
            nullable=False,
            comment="Carrier operating the ship; references carriers.carrier_id.",
        ),
        Column(
            "capacity_teu",
            "int",
            nullable=False,
            comment="Capacity in TEU (twenty-foot equivalent units), NOT tons: the number of "
            "20-foot container slots; a 40-foot container takes 2 TEU. For weight use "
            "deadweight_tons.",
        ),
        Column(
            "deadweight_tons",
            "int",
            comment="Deadweight in metric tons: the most weight (cargo, fuel, stores) the "
            "ship can carry.",
        ),
        Column("year_built", "int", comment="Year the ship was delivered."),
        Column("flag", "text", 40, comment="Flag state (country of registry)."),
        Column(
            "service_speed_knots",
            "decimal",
            4,
            1,
            comment="Design service speed in knots (nautical miles per hour).",
        ),
    ),
    primary_key="imo_number",
    foreign_keys=(ForeignKey("carrier_id", "carriers", "carrier_id"),),
)

VOYAGES = Table(
    "voyages",
    "One sailing of a vessel from an origin port to a destination port, with schedule and "
    "status. The data's today is 2025-06-01: ACTIVE and DELAYED voyages are at sea on that "
    "date, SCHEDULED ones depart after it, COMPLETED ones arrived before it.",
    (
        Column("voyage_id", "int", nullable=False, comment="Voyage identifier (primary key)."),
        Column(
            "voyage_code",
            "text",
            12,
            nullable=False,
            comment="Carrier's voyage reference, unique: carrier prefix, 2-digit year, week "
            "of departure, direction letter (E/W/N/S), e.g. 'MAE-2514W'.",
        ),
        Column(
            "imo_number",
            "int",
            nullable=False,
            comment="Vessel sailing the voyage; references vessels.imo_number.",
        ),
        Column(
            "origin_port",
            "text",
            5,
            nullable=False,
            comment="Port of departure (UN/LOCODE); references ports.port_code.",
        ),
        Column(
            "dest_port",
            "text",
            5,
            nullable=False,
            comment="Port of arrival (UN/LOCODE); references ports.port_code.",
        ),
        Column("departure_date", "date", comment="Departure date from the origin port."),
        Column(
            "eta_date",
            "date",
            comment="Scheduled (estimated) arrival date at the destination port.",
        ),
        Column(
            "actual_arrival_date",
            "date",
            comment="Actual arrival date; NULL until the voyage is COMPLETED.",
        ),
        Column(
            "status",
            "text",
            10,
            comment=f"Voyage status, one of {_values(VOYAGE_STATUSES)}. DELAYED = still at "
            "sea (or waiting at anchor) after eta_date; days late = today - eta_date.",
        ),
        Column(
            "ocean_region",
            "text",
            20,
            comment=f"Ocean where most of the route lies, one of {_values(OCEAN_REGIONS)} "
            "(Asia-Europe via Suez counts as INDIAN).",
        ),
        Column(
            "distance_nm",
            "int",
            comment="Sailing distance along the sea route in nautical miles (1 nm = 1.852 "
            "km), not the great-circle distance.",
        ),
    ),
    primary_key="voyage_id",
    foreign_keys=(
        ForeignKey("imo_number", "vessels", "imo_number"),
        ForeignKey("origin_port", "ports", "port_code"),
        ForeignKey("dest_port", "ports", "port_code"),
    ),
    unique=("voyage_code",),
)

VESSEL_POSITIONS = Table(
    "vessel_positions",
    "AIS-style position reports: a short track of 3-5 fixes for every ACTIVE or DELAYED "
    "voyage. The latest row (max recorded_at) per vessel is its current position.",
    (
        Column("position_id", "int", nullable=False, comment="Position report id (primary key)."),
        Column(
            "imo_number",
            "int",
            nullable=False,
            comment="Reporting vessel; references vessels.imo_number.",
        ),
        Column(
            "voyage_id",
            "int",
            nullable=False,
            comment="Voyage the vessel was on; references voyages.voyage_id.",
        ),
        Column(
            "recorded_at",
            "timestamp",
            comment="Time of the report in UTC (no time zone stored).",
        ),
        Column(
            "latitude", "decimal", 9, 6, comment="Latitude in decimal degrees (north positive)."
        ),
        Column(
            "longitude", "decimal", 9, 6, comment="Longitude in decimal degrees (east positive)."
        ),
        Column(
            "speed_knots",
            "decimal",
            4,
            1,
            comment="Speed over ground in knots (nautical miles per hour); 0 when at anchor or "
            "moored.",
        ),
        Column(
            "heading_deg",
            "int",
            comment="Course in whole degrees clockwise from true north (0-359; 90 = east).",
        ),
        Column(
            "nav_status",
            "text",
            20,
            comment=f"AIS navigational status, one of {_values(NAV_STATUSES)}.",
        ),
    ),
    primary_key="position_id",
    foreign_keys=(
        ForeignKey("imo_number", "vessels", "imo_number"),
        ForeignKey("voyage_id", "voyages", "voyage_id"),
    ),
)

CONTAINERS = Table(
    "containers",
    "Shipping containers booked on voyages (a sample of each ship's load), with shipper, "
    "receiver and handling status.",
    (
        Column(
            "container_no",
            "text",
            11,
            nullable=False,
            comment="ISO 6346 container number (primary key): 3-letter owner code, U, 6-digit "
            "serial, check digit, e.g. MSCU1234566.",
        ),
        Column(
            "voyage_id",
            "int",
            nullable=False,
            comment="Voyage carrying the container; references voyages.voyage_id.",
        ),
        Column(
            "container_type",
            "text",
            10,
            comment=f"Equipment type, one of {_values(CONTAINER_TYPES)}: REEFER = refrigerated, "
            "HAZMAT = dangerous goods, OPEN_TOP = for tall or crane-loaded cargo.",
        ),
        Column("size_ft", "int", comment="Container length in feet: 20 (1 TEU) or 40 (2 TEU)."),
        Column("consignor", "text", 80, comment="Shipper: the company sending the goods."),
        Column("consignee", "text", 80, comment="Receiver: the company the goods are for."),
        Column(
            "status",
            "text",
            14,
            comment=f"Handling status, one of {_values(CONTAINER_STATUSES)}: LOADED = booked "
            "on a voyage not yet departed, IN_TRANSIT = at sea, DISCHARGED = unloaded at the "
            "destination, CUSTOMS_HOLD = unloaded but held by customs.",
        ),
        Column(
            "gross_weight_kg",
            "int",
            comment="Gross weight in kilograms: cargo plus the empty container (tare).",
        ),
        Column(
            "reefer_temp_c",
            "decimal",
            4,
            1,
            comment="Set temperature in degrees Celsius for REEFER containers (-25 to +13); "
            "NULL for every other type.",
        ),
        Column(
            "hazmat_class",
            "text",
            4,
            comment="UN dangerous-goods class for HAZMAT containers, e.g. '3' (flammable "
            "liquids), '2.1', '8' (corrosives), '9'; NULL for every other type.",
        ),
    ),
    primary_key="container_no",
    foreign_keys=(ForeignKey("voyage_id", "voyages", "voyage_id"),),
)

CARGO_ITEMS = Table(
    "cargo_items",
    "Goods declared inside each container (the manifest lines). Values are in US cents.",
    (
        Column("item_id", "int", nullable=False, comment="Manifest line id (primary key)."),
        Column(
            "container_no",
            "text",
            11,
            nullable=False,
            comment="Container holding the goods; references containers.container_no.",
        ),
        Column(
            "hs_code",
            "text",
            10,
            comment="Harmonized System tariff code, 6 digits (e.g. '847130' = laptop "
            "computers): the first 2 digits are the chapter, the first 4 the heading.",
        ),
        Column("description", "text", 200, comment="Description of the goods as declared."),
        Column(
            "quantity",
            "int",
            comment="Number of units (pieces, cartons, bags, drums) in this line.",
        ),
        Column(
            "unit_value_cents",
            "int",
            comment="Unit value in US cents, NOT dollars: divide by 100 for dollars. Line "
            "value = quantity * unit_value_cents.",
        ),
        Column(
            "weight_kg",
            "decimal",
            10,
            2,
            comment="Net weight of the whole line (all units) in kilograms.",
        ),
        Column(
            "un_number",
            "text",
            6,
            comment="UN dangerous-goods number for hazardous items, e.g. 'UN1263' (paint); "
            "NULL for ordinary goods.",
        ),
    ),
    primary_key="item_id",
    foreign_keys=(ForeignKey("container_no", "containers", "container_no"),),
)

#: The tables in load order: every table comes after the tables it references.
TABLES: tuple[Table, ...] = (
    CARRIERS,
    PORTS,
    VESSELS,
    VOYAGES,
    VESSEL_POSITIONS,
    CONTAINERS,
    CARGO_ITEMS,
)

#: Allowed values of the enumerated columns, by (table, column).
ENUMS: dict[tuple[str, str], tuple] = {
    ("ports", "ocean_region"): OCEAN_REGIONS,
    ("voyages", "status"): VOYAGE_STATUSES,
    ("voyages", "ocean_region"): OCEAN_REGIONS,
    ("vessel_positions", "nav_status"): NAV_STATUSES,
    ("containers", "container_type"): CONTAINER_TYPES,
    ("containers", "status"): CONTAINER_STATUSES,
    ("containers", "size_ft"): (20, 40),
}


def table(name: str) -> Table:
    """The table called ``name`` (case-insensitive, with or without the owner prefix).

    Raises:
        KeyError: No such table; the message lists the tables.
    """
    wanted = name.lower().removeprefix(OWNER.lower() + ".")
    for t in TABLES:
        if t.name == wanted:
            return t
    raise KeyError(f"no table {name!r}; tables: {', '.join(t.name for t in TABLES)}")
