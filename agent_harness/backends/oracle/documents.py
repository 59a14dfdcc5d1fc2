"""Documents on Oracle: JSON Relational Duality Views ``voyage_dv`` and ``vessel_dv``.

Rendered from :data:`~agent_harness.backends.roles.documents.DOCUMENTS` (the same shapes the
embedded backend's JSON views show) and written against:

* SQL Language Reference 26, CREATE JSON RELATIONAL DUALITY VIEW
  (https://docs.oracle.com/en/database/oracle/oracle-database/26/sqlrf/create-json-relational-duality-view.html):
  ``SELECT JSON {'field' : alias.column [WITH NOUPDATE], ...} FROM root alias WITH UPDATE``;
  a nested object is a scalar subquery ``(SELECT JSON {...} FROM t WHERE ...)``, an array
  ``[SELECT JSON {...} FROM t WITH UPDATE WHERE ...]``; a table without annotations is
  read-only; the view has one JSON column, DATA.
* JSON-Relational Duality Developer's Guide 26, "Creating Car-Racing Duality Views Using SQL"
  (the same constructs), "Updating Documents/Data in Duality Views" (``UPDATE dv SET data =
  :doc WHERE JSON_VALUE(data, '$._id') = ...``) and "Using Optimistic Concurrency Control With
  Duality Views": a document written with an etag that is not the current one fails with
  ORA-42699 (https://docs.oracle.com/en/error-help/db/ora-42699).
* python-oracledb 26, "Using JSON Data": a JSON value is bound with
  ``cursor.setinputsizes(oracledb.DB_TYPE_JSON)``.

Identity: VPD policies cannot be attached to a duality view (ORA-42623); they sit on the base
tables, which the view reads (Security Guide: a policy applies wherever its table is read,
views included). Reads therefore run as the read-only session bound to the identity. Whether
the duality view's read path applies them exactly so is for the Oracle job to confirm
(shared/facts/guardrails.md, D). Writes run as the harness owner (UPDATE on the views is
granted to it alone), so on Oracle only the workshop owner updates documents; under an
identity an update is refused before it reaches the database.

VPD on a duality view's tables is supported only when the policy covers INSERT, UPDATE,
DELETE and SELECT (Database Restrictions and Limitations 23, "Restrictions for
JSON-Relational Duality Views"): the row policies do (``guardrails.ROW_STATEMENTS``); the
column mask is SELECT-only by nature, so ``cargo_items`` is never annotated for writes
(:func:`duality_view_sql` refuses it). Privileges (JSON-Relational Duality Developer's Guide
23, 4.3 "Database Privileges Needed for Duality-View Updating Operations",
https://docs.oracle.com/en/database/oracle/oracle-database/23/jsnvu/database-privileges-needed-duality-view-updating-operations.html):
querying takes SELECT WITH GRANT OPTION on the view, updating UPDATE WITH GRANT OPTION;
updates run as the view owner, who needs the same on each annotated table: SUPPLYCHAIN owns
both the views and the tables, so only the grants on the views are needed
(``OracleSupplyChain``).
"""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

import oracledb

from agent_harness.backends.errors import BackendError, DocumentConflict
from agent_harness.backends.oracle.errors import error_code, first_line
from agent_harness.backends.roles.access_rules import MASKED_COLUMNS
from agent_harness.backends.roles.documents import (
    Document,
    DocumentPart,
    Documents,
    document_kind,
)
from agent_harness.foundation.identity import Identity
from agent_harness.supplychain.schema import OWNER

__all__ = ["OracleDocuments", "duality_view_sql", "plain_document"]


def _object_sql(part: DocumentPart, key: str | None, indent: str) -> str:
    a = part.alias
    members = [f"'_id' : {a}.{key}"] if key else []
    for f in part.fields:
        frozen = "" if f.updatable or not part.updatable else " WITH NOUPDATE"
        members.append(f"'{f.name}' : {a}.{f.column}{frozen}")
    for name, child in part.children:
        members.append(f"'{name}' : {_child_sql(child, a, indent + '  ')}")
    inner = f",\n{indent}  ".join(members)
    return f"JSON {{{inner}}}"


def _child_sql(child: DocumentPart, parent_alias: str, indent: str) -> str:
    column, parent_column = child.join or ("", "")
    tags = " WITH UPDATE" if child.updatable else ""
    select = (
        f"SELECT {_object_sql(child, None, indent)} FROM {child.table} {child.alias}{tags}"
        f" WHERE {child.alias}.{column} = {parent_alias}.{parent_column}"
    )
    return f"[{select}]" if child.many else f"({select})"


def duality_view_sql(document: Document) -> str:
    """``CREATE OR REPLACE JSON RELATIONAL DUALITY VIEW`` for one document (run as
    SUPPLYCHAIN, whose tables it reads).

    Raises:
        ValueError: A part whose table carries the column-masking policy (SELECT only) would
            be annotated for writes: VPD on a duality view's table is supported only when the
            policy covers every statement type (see ``guardrails.ROW_STATEMENTS``).
    """
    masked = {table for table, _column in MASKED_COLUMNS}
    for part in document.parts:
        if part.updatable and part.table in masked:
            raise ValueError(
                f"{document.name}: {part.table} carries a SELECT-only masking policy and may"
                " only be read through a duality view (no WITH UPDATE)"
            )
    root = document.root
    tags = " WITH UPDATE" if root.updatable else ""
    return (
        f"CREATE OR REPLACE JSON RELATIONAL DUALITY VIEW {document.name} AS\n"
        f"SELECT {_object_sql(root, document.key, '  ')}\n"
        f"FROM {root.table} {root.alias}{tags}"
    )


def _plain(value):
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _dates(part: DocumentPart, value: dict) -> None:
    for f in part.fields:
        if f.date and isinstance(value.get(f.name), str):
            value[f.name] = value[f.name][:10]  # DATE as YYYY-MM-DD, as on SQLite
    for name, child in part.children:
        inner = value.get(name)
        for item in inner if isinstance(inner, list) else [inner]:
            if isinstance(item, dict):
                _dates(child, item)


def plain_document(document: Document, data) -> dict:
    """A fetched DATA value (text or the driver's dict) as plain JSON values, dates as
    ``YYYY-MM-DD``, ``_metadata`` with the etag only (as the embedded backend shows it)."""
    value = json.loads(data) if isinstance(data, str) else _plain(data)
    _dates(document.root, value)
    meta = value.get("_metadata") or {}
    value["_metadata"] = {"etag": meta.get("etag")}
    return value


class OracleDocuments(Documents):
    """Documents through the duality views.

    Args:
        db: The harness owner's connection (writes: UPDATE on the views).
        readonly: The read-only session, bound to the identity (reads).
        identity: Who reads (None: the owner).
    """

    def __init__(self, db, readonly, identity: Identity | None = None) -> None:
        self.db = db
        self.readonly = readonly
        self.identity = identity

    def get(self, name: str, key) -> dict | None:
        document = document_kind(name)
        result = self.readonly.query(
            f"SELECT JSON_SERIALIZE(d.data RETURNING CLOB) AS data FROM {OWNER.lower()}."
            f"{document.name} d WHERE JSON_VALUE(d.data, '$._id' RETURNING NUMBER) = :id",
            {"id": key},
            max_rows=1,
        )
        return plain_document(document, result.rows[0][0]) if result.rows else None

    def update(self, name: str, document: dict) -> dict:
        kind = document_kind(name)
        if self.identity is not None and not self.identity.owner:
            raise BackendError(
                f"{kind.name}: on Oracle documents are updated by the workshop owner (the"
                " read-only user behind an identity cannot write); connect without an identity"
            )
        if not isinstance(document, dict) or not (document.get("_metadata") or {}).get("etag"):
            raise BackendError(f"{kind.name}: send the whole document as read, with its etag")
        with self.db.transaction(), self.db.conn.cursor() as cur:
            cur.setinputsizes(doc=oracledb.DB_TYPE_JSON)
            try:
                cur.execute(
                    f"UPDATE {OWNER.lower()}.{kind.name} d SET d.data = :doc"
                    " WHERE JSON_VALUE(d.data, '$._id' RETURNING NUMBER) = :id",
                    {"doc": document, "id": document.get("_id")},
                )
            except oracledb.DatabaseError as e:
                if error_code(e) == 42699:
                    raise DocumentConflict(
                        f"{kind.name} {document.get('_id')} changed since it was read (ORA-42699):"
                        " get it again, apply your change, update again"
                    ) from e
                raise BackendError(f"{kind.name}: {first_line(e)}") from e
            if cur.rowcount == 0:
                raise BackendError(f"{kind.name}: no document with _id {document.get('_id')!r}")
        stored = self.get(kind.name, document["_id"])
        if stored is None:
            raise BackendError(f"{kind.name}: the document is gone after the update")
        return stored
