"""The access policy over SUPPLYCHAIN, written once for both dialects.

What an identity (:class:`agent_harness.foundation.identity.Identity`) may read:

* the reference tables (:data:`PUBLIC_TABLES`: carriers, ports, vessels) in full;
* voyages of its regions, and what hangs off them (:data:`ROW_POLICIES`): a vessel position,
  a container or a cargo item is visible when its voyage is;
* ``cargo_items.unit_value_cents`` only with the ``finance`` role (:data:`MASKED_COLUMNS`);
  without it the column reads as NULL everywhere in a statement;
* no other table of the schema: a table the policy does not name is not readable at all
  under an identity (a table added later is closed until the policy covers it).

Each dialect enforces the same rules its own way, in the database: the embedded backend with
filtered copies of the identity's rows (``run_sql``'s connection), trusted views (the document
connection) and SQLite's authorizer (:mod:`agent_harness.backends.embedded.guard`), Oracle
with Virtual Private Database policies (:mod:`agent_harness.backends.oracle.guardrails`).
The predicates below are the ones both use.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agent_harness.supplychain.schema import OCEAN_REGIONS

__all__ = [
    "MASKED_COLUMNS",
    "POLICY_TABLES",
    "PUBLIC_TABLES",
    "ROW_POLICIES",
    "RowPolicy",
    "lineage_predicate",
    "region_predicate",
]

#: Reference data every identity reads in full.
PUBLIC_TABLES = ("carriers", "ports", "vessels")


@dataclass(frozen=True)
class RowPolicy:
    """Which rows of ``table`` an identity sees.

    Attributes:
        table: The protected table.
        column: Its column the rule tests.
        parent: None: ``column`` holds an ocean region (voyages). Otherwise the table whose
            VISIBLE rows decide: ``column IN (SELECT key FROM <parent, filtered>)``.
        parent_key: The parent's column that ``column`` references.
    """

    table: str
    column: str
    parent: str | None = None
    parent_key: str | None = None

    def predicate(self, regions: Iterable[str], parent_relation: str | None = None) -> str:
        """The WHERE condition over this table's own columns.

        Args:
            regions: The identity's regions (used by the voyages rule).
            parent_relation: How the dialect names the parent's FILTERED rows (the embedded
                copy ``temp.voyages``; on Oracle ``supplychain.voyages``, filtered by its own
                policy).
        """
        if self.parent is None:
            return region_predicate(regions, self.column)
        relation = parent_relation or self.parent
        return f"{self.column} IN (SELECT {self.parent_key} FROM {relation})"


#: The row rules, parents first: voyages by region, and what hangs off them.
ROW_POLICIES: dict[str, RowPolicy] = {
    p.table: p
    for p in (
        RowPolicy("voyages", "ocean_region"),
        RowPolicy("vessel_positions", "voyage_id", "voyages", "voyage_id"),
        RowPolicy("containers", "voyage_id", "voyages", "voyage_id"),
        RowPolicy("cargo_items", "container_no", "containers", "container_no"),
    )
}

#: (table, column) -> the role that unmasks it.
MASKED_COLUMNS: dict[tuple[str, str], str] = {("cargo_items", "unit_value_cents"): "finance"}

#: Every table an identity may read (a table not listed here is closed under an identity).
POLICY_TABLES = (*PUBLIC_TABLES, *ROW_POLICIES)


def region_predicate(regions: Iterable[str], column: str = "ocean_region") -> str:
    """``ocean_region IN ('ATLANTIC', 'PACIFIC')`` for these regions; ``1 = 0`` for none.

    Every region must be one of :data:`OCEAN_REGIONS` (so the literals are safe to write into
    the view or the VPD predicate: nothing else passes).

    Raises:
        ValueError: A region that is not an ocean region.
    """
    names = sorted({str(r).strip().upper() for r in regions})
    unknown = [r for r in names if r not in OCEAN_REGIONS]
    if unknown:
        raise ValueError(f"not ocean regions: {unknown}; use {', '.join(OCEAN_REGIONS)}")
    if not names:
        return "1 = 0"
    return f"{column} IN ({', '.join(repr(r) for r in names)})"


def lineage_predicate(table: str, regions: Iterable[str], alias: str, schema: str) -> str:
    """The same rule as :meth:`RowPolicy.predicate`, as ONE correlated ``EXISTS`` that walks
    from a row of ``table`` (aliased ``alias``) up to its voyage over the base tables (the
    embedded backend's trusted views, which check each row a statement reads).

    ``cargo_items t`` gets ``EXISTS (SELECT 1 FROM s.containers p1 JOIN s.voyages p2 ON
    p2.voyage_id = p1.voyage_id WHERE p1.container_no = t.container_no AND p2.ocean_region IN
    (...))``: a few key lookups per row the query touches, instead of building the set of
    visible keys for every statement (what ``IN (subquery)`` costs SQLite; measured in
    ``bench/bench_guardrails.py``).
    """
    rule = ROW_POLICIES[table]
    if rule.parent is None:
        return region_predicate(regions, f"{alias}.{rule.column}")
    joins, current, child = [], alias, rule
    while child.parent is not None:
        parent_alias = f"p{len(joins) + 1}"
        joins.append(
            (
                child.parent,
                parent_alias,
                f"{parent_alias}.{child.parent_key}",
                current,
                child.column,
            )
        )
        current, child = parent_alias, ROW_POLICIES[child.parent]
    first_table, first_alias, first_key, child_alias, child_column = joins[0]
    source = f"{schema}.{first_table} {first_alias}"
    for parent, parent_alias, key, from_alias, column in joins[1:]:
        source += f" JOIN {schema}.{parent} {parent_alias} ON {key} = {from_alias}.{column}"
    region = region_predicate(regions, f"{current}.{child.column}")
    return (
        f"EXISTS (SELECT 1 FROM {source} WHERE {first_key} = {child_alias}.{child_column}"
        f" AND {region})"
    )
