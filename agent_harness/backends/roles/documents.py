"""Documents over the relational data: voyage and vessel as JSON, written once.

A document is assembled from rows and written back to rows, as Oracle's JSON Relational
Duality Views do (JSON-Relational Duality Developer's Guide 26): :data:`DOCUMENTS` describes
each document ONCE (which table is its root, which column each field shows, which child
tables nest as an object or an array, which fields an update may change), and each dialect
renders it: Oracle as ``CREATE JSON RELATIONAL DUALITY VIEW voyage_dv`` / ``vessel_dv``
(:mod:`agent_harness.backends.oracle.documents`), SQLite as JSON views built with
``json_object`` / ``json_group_array`` and ``INSTEAD OF UPDATE`` triggers
(:mod:`agent_harness.backends.embedded.documents`).

Every document carries ``_id`` (the root table's key) and ``_metadata.etag``, a hash of its
content: an update must send the etag it read, and is refused when the document changed
since (:class:`~agent_harness.backends.errors.DocumentConflict`): optimistic concurrency.
The identity's policy holds through documents: they are built from the policy's rows
(a voyage outside your regions has no document, a masked value is null in it).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field

from agent_harness.backends.errors import BackendError

__all__ = ["DOCUMENTS", "Document", "DocumentField", "DocumentPart", "Documents", "document_kind"]


@dataclass(frozen=True)
class DocumentField:
    """One scalar field.

    Attributes:
        name: The JSON field name (camelCase, as duality views are usually written).
        column: The column of the part's table it shows.
        updatable: True when an update of the document may change it (else it must come
            back as it was read: NOUPDATE).
        date: True for a DATE column (shown as ``YYYY-MM-DD`` on both backends).
    """

    name: str
    column: str
    updatable: bool = False
    date: bool = False


@dataclass(frozen=True)
class DocumentPart:
    """A table's rows inside a document: the root, a nested object or a nested array.

    Attributes:
        table: The table.
        alias: Its alias in the generated SQL.
        fields: Its scalar fields.
        join: ``(this table's column, the parent's column)`` for a nested part.
        many: True: an array of objects (one per row), ordered by ``order``; False: one
            object (the row the join finds).
        order: The column the array is ordered by (and that identifies an element of it
            when an update writes the array back: the part's key).
        children: Nested parts, by field name.
    """

    table: str
    alias: str
    fields: tuple[DocumentField, ...]
    join: tuple[str, str] | None = None
    many: bool = False
    order: str | None = None
    children: tuple[tuple[str, DocumentPart], ...] = ()

    def field_of(self, column: str) -> DocumentField:
        """The field showing ``column`` (KeyError naming the part's fields otherwise)."""
        for f in self.fields:
            if f.column == column:
                return f
        raise KeyError(f"{self.table} shows no column {column!r} in this document")

    @property
    def updatable(self) -> bool:
        """True when some field of this part may change (the table is written WITH UPDATE)."""
        return any(f.updatable for f in self.fields)

    def frozen(self, value: dict) -> dict:
        """The part's object without its updatable fields (what an update must keep)."""
        out = {}
        for f in self.fields:
            if not f.updatable:
                out[f.name] = value.get(f.name)
        for name, child in self.children:
            inner = value.get(name)
            if child.many:
                out[name] = [child.frozen(v) for v in inner or [] if isinstance(v, dict)]
            else:
                out[name] = child.frozen(inner) if isinstance(inner, dict) else inner
        return out


@dataclass(frozen=True)
class Document:
    """A kind of document.

    Attributes:
        name: The view's name (``voyage_dv``); also what ``get_document`` takes.
        key: The root table's key column (the ``_id`` field).
        root: The root part.
        description: One line for tools and docs.
    """

    name: str
    key: str
    root: DocumentPart
    description: str = ""
    parts: tuple[DocumentPart, ...] = field(default=(), init=False)

    def __post_init__(self) -> None:
        found: list[DocumentPart] = []

        def walk(part: DocumentPart) -> None:
            found.append(part)
            for _, child in part.children:
                walk(child)

        walk(self.root)
        object.__setattr__(self, "parts", tuple(found))

    def frozen(self, document: dict) -> dict:
        """The document without what an update may change (fields, ``_metadata``): an update
        whose frozen part differs from the stored one changes a NOUPDATE field."""
        return {"_id": document.get("_id"), **self.root.frozen(document)}

    def changed_frozen_fields(self, old: dict, new: dict, path: str = "") -> list[str]:
        """Paths of the NOUPDATE fields that differ between two documents (for messages)."""
        return _differences(self.frozen(old), self.frozen(new), path)


def _differences(a, b, path: str) -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            out += _differences(a.get(key), b.get(key), f"{path}.{key}" if path else key)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += _differences(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [path or "(document)"]


_ITEMS = DocumentPart(
    "cargo_items",
    "i",
    (
        DocumentField("itemId", "item_id"),
        DocumentField("hsCode", "hs_code"),
        DocumentField("description", "description"),
        DocumentField("quantity", "quantity"),
        DocumentField("unitValueCents", "unit_value_cents"),
        DocumentField("weightKg", "weight_kg"),
    ),
    join=("container_no", "container_no"),
    many=True,
    order="item_id",
)

_CONTAINERS = DocumentPart(
    "containers",
    "c",
    (
        DocumentField("containerNo", "container_no"),
        DocumentField("containerType", "container_type"),
        DocumentField("sizeFt", "size_ft"),
        DocumentField("status", "status", updatable=True),
    ),
    join=("voyage_id", "voyage_id"),
    many=True,
    order="container_no",
    children=(("items", _ITEMS),),
)

VOYAGE_DV = Document(
    "voyage_dv",
    "voyage_id",
    DocumentPart(
        "voyages",
        "v",
        (
            DocumentField("voyageCode", "voyage_code"),
            DocumentField("status", "status", updatable=True),
            DocumentField("oceanRegion", "ocean_region"),
            DocumentField("originPort", "origin_port"),
            DocumentField("destPort", "dest_port"),
            DocumentField("departureDate", "departure_date", date=True),
            DocumentField("etaDate", "eta_date", updatable=True, date=True),
            DocumentField("actualArrivalDate", "actual_arrival_date", updatable=True, date=True),
            DocumentField("distanceNm", "distance_nm"),
        ),
        children=(
            (
                "vessel",
                DocumentPart(
                    "vessels",
                    "s",
                    (DocumentField("imoNumber", "imo_number"), DocumentField("name", "name")),
                    join=("imo_number", "imo_number"),
                ),
            ),
            ("containers", _CONTAINERS),
        ),
    ),
    "A voyage with its vessel, its containers and their cargo items.",
)

VESSEL_DV = Document(
    "vessel_dv",
    "imo_number",
    DocumentPart(
        "vessels",
        "s",
        (
            DocumentField("name", "name"),
            DocumentField("capacityTeu", "capacity_teu"),
            DocumentField("yearBuilt", "year_built"),
            DocumentField("flag", "flag", updatable=True),
            DocumentField("serviceSpeedKnots", "service_speed_knots", updatable=True),
        ),
        children=(
            (
                "carrier",
                DocumentPart(
                    "carriers",
                    "k",
                    (DocumentField("carrierId", "carrier_id"), DocumentField("name", "name")),
                    join=("carrier_id", "carrier_id"),
                ),
            ),
            (
                "voyages",
                DocumentPart(
                    "voyages",
                    "v",
                    (
                        DocumentField("voyageId", "voyage_id"),
                        DocumentField("voyageCode", "voyage_code"),
                        DocumentField("status", "status"),
                        DocumentField("oceanRegion", "ocean_region"),
                    ),
                    join=("imo_number", "imo_number"),
                    many=True,
                    order="voyage_id",
                ),
            ),
        ),
    ),
    "A vessel with its carrier and the voyages you may see.",
)

#: The documents, by view name.
DOCUMENTS: dict[str, Document] = {d.name: d for d in (VOYAGE_DV, VESSEL_DV)}


def document_kind(name: str) -> Document:
    """The document called ``name`` (``voyage_dv`` or ``vessel_dv``, any case).

    Raises:
        BackendError: No such document; the message lists them.
    """
    try:
        return DOCUMENTS[str(name).lower()]
    except KeyError:
        raise BackendError(
            f"no document kind {name!r}: use one of {', '.join(DOCUMENTS)}"
        ) from None


class Documents(abc.ABC):
    """Read and update documents (each dialect renders :data:`DOCUMENTS` its own way)."""

    @abc.abstractmethod
    def get(self, name: str, key) -> dict | None:
        """The document ``name`` (``voyage_dv`` or ``vessel_dv``) whose ``_id`` is ``key``,
        as the identity may see it, or None when there is none (or it is not visible)."""

    @abc.abstractmethod
    def update(self, name: str, document: dict) -> dict:
        """Write a changed document back to its rows; return the document as stored.

        Raises:
            DocumentConflict: The etag differs from the current one (re-read, then retry).
            BackendError: No such visible document, a field that may not change was
                changed, or the etag is missing.
        """

    def close(self) -> None:
        """Close a connection of the role's own, if it has one."""
        return None
