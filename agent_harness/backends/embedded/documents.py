"""Documents over the relational data on SQLite: duality-style JSON views, writable.

Each document of :data:`~agent_harness.backends.roles.documents.DOCUMENTS` is a TEMP view
``voyage_dv`` / ``vessel_dv`` (columns ``id`` and ``data``) built from the connection's own
TEMP tables or views (so an identity's policy holds through it): ``json_object`` for objects and
``json_group_array(... ORDER BY ...)`` for arrays (https://sqlite.org/json1.html). ``data``
ends with ``_metadata.etag``: a hash of the document's content, computed by a function the
connection registers.

Writes go through an ``INSTEAD OF UPDATE`` trigger on the view (https://sqlite.org/lang_createtrigger.html,
"INSTEAD OF triggers"), as an update of a duality view does on Oracle: the trigger aborts when
the etag sent is not the current one (optimistic concurrency) or a field the document does not
let you change was changed, then writes the updatable fields to their rows. Only
:class:`DocumentConnection` (a connection of its own, with an authorizer that allows updating
the views and, inside the triggers, those columns) has the triggers.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

import apsw

from agent_harness.backends.embedded.dictionary import USER_TABLES_SQL
from agent_harness.backends.embedded.guard import IdentityGuard
from agent_harness.backends.errors import BackendError, BindError, DocumentConflict
from agent_harness.backends.roles.documents import (
    DOCUMENTS,
    Document,
    DocumentPart,
    Documents,
    document_kind,
)
from agent_harness.foundation.identity import Identity

__all__ = [
    "DocumentConnection",
    "EmbeddedDocuments",
    "create_document_views",
    "document_select",
    "register_etag",
]

_CONFLICT = "DOCUMENT_CONFLICT"
_NOUPDATE = "DOCUMENT_NOUPDATE"


def etag(body: str) -> str:
    """The etag of a document's text: 32 hex digits of its SHA-256 (Oracle shows 32 too)."""
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:32].upper()


def _frozen(name: str, text: str | None) -> str | None:
    if text is None or name not in DOCUMENTS:
        return None
    try:
        document = json.loads(text)
    except ValueError:
        return None
    return json.dumps(DOCUMENTS[name].frozen(document), sort_keys=True)


def register_etag(conn: apsw.Connection) -> None:
    """Register ``workshop_etag(text)`` and ``workshop_frozen(view, text)`` (deterministic)."""
    conn.create_scalar_function("workshop_etag", etag, 1, deterministic=True)
    conn.create_scalar_function("workshop_frozen", _frozen, 2, deterministic=True)


def _object_sql(part: DocumentPart, key: str | None = None) -> str:
    """``json_object(...)`` of one row of ``part`` (its children as correlated subqueries)."""
    a = part.alias
    members = [f"'_id', {a}.{key}"] if key else []
    members += [f"'{f.name}', {a}.{f.column}" for f in part.fields]
    for name, child in part.children:
        members.append(f"'{name}', {_child_sql(child, a)}")
    return f"json_object({', '.join(members)})"


def _child_sql(child: DocumentPart, parent_alias: str) -> str:
    column, parent_column = child.join or ("", "")
    where = f"{child.alias}.{column} = {parent_alias}.{parent_column}"
    if child.many:
        return (
            f"json((SELECT json_group_array({_object_sql(child)} ORDER BY"
            f" {child.alias}.{child.order}) FROM {child.table} {child.alias} WHERE {where}))"
        )
    return f"json((SELECT {_object_sql(child)} FROM {child.table} {child.alias} WHERE {where}))"


def document_select(document: Document) -> str:
    """The SELECT of a document view: ``id`` and ``data`` (with ``_metadata.etag``).

    Table names are unqualified: the connection's TEMP copies or views (the identity's rows).
    """
    root = document.root
    body = _object_sql(root, document.key)
    return (
        f"SELECT id, json_set(body, '$._metadata', json_object('etag', workshop_etag(body)))"
        f" AS data FROM (SELECT {root.alias}.{document.key} AS id, {body} AS body"
        f" FROM {root.table} {root.alias})"
    )


def create_document_views(conn: apsw.Connection, tables: list[str]) -> list[str]:
    """Create the document views whose tables all exist; return their names."""
    present = {t.lower() for t in tables}
    made = []
    for document in DOCUMENTS.values():
        if all(p.table in present for p in document.parts):
            conn.execute(f"CREATE TEMP VIEW {document.name} AS {document_select(document)}")
            made.append(document.name)
    return made


def _update_part_sql(document: Document, part: DocumentPart, path: str) -> str:
    """The trigger's UPDATE of one updatable part's rows from NEW.data."""
    fields = [f for f in part.fields if f.updatable]
    if part is document.root:
        sets = ", ".join(f"{f.column} = json_extract(NEW.data, '$.{f.name}')" for f in fields)
        return f"UPDATE supplychain.{part.table} SET {sets} WHERE {document.key} = OLD.id"
    key = part.field_of(part.order or "")
    element = (
        f"FROM json_each(NEW.data, '{path}') e"
        f" WHERE json_extract(e.value, '$.{key.name}') = {part.table}.{part.order}"
    )
    sets = ", ".join(
        f"{f.column} = coalesce((SELECT json_extract(e.value, '$.{f.name}') {element}), {f.column})"
        for f in fields
    )
    column, parent_column = part.join or ("", "")
    if parent_column != document.key:
        raise ValueError(f"{document.name}: only parts nested in the root can be updated")
    return f"UPDATE supplychain.{part.table} SET {sets} WHERE {column} = OLD.id"


def trigger_sql(document: Document) -> str:
    """``CREATE TEMP TRIGGER <view>_update INSTEAD OF UPDATE ON <view>`` for a document."""
    statements = [
        f"SELECT RAISE(ABORT, '{_CONFLICT}') WHERE json_extract(NEW.data, '$._metadata.etag')"
        " IS NOT json_extract(OLD.data, '$._metadata.etag')",
        f"SELECT RAISE(ABORT, '{_NOUPDATE}') WHERE workshop_frozen('{document.name}', NEW.data)"
        f" IS NOT workshop_frozen('{document.name}', OLD.data)",
    ]
    if document.root.updatable:
        statements.append(_update_part_sql(document, document.root, "$"))
    for name, child in document.root.children:
        if child.updatable:
            statements.append(_update_part_sql(document, child, f"$.{name}"))
    body = ";\n  ".join(statements)
    return (
        f"CREATE TEMP TRIGGER {document.name}_update INSTEAD OF UPDATE OF data"
        f" ON {document.name}\nBEGIN\n  {body};\nEND"
    )


def _writable_columns() -> dict[str, set[str]]:
    """table -> the columns an update of some document may write."""
    out: dict[str, set[str]] = {}
    for document in DOCUMENTS.values():
        for part in document.parts:
            for f in part.fields:
                if f.updatable:
                    out.setdefault(part.table, set()).add(f.column)
    return out


class DocumentConnection:
    """A connection that reads and writes documents, under the identity's policy.

    ``supplychain.db`` is attached read-write; the authorizer allows SELECT (the same reads as
    ``run_sql``'s connection), ``UPDATE`` of the document views, and inside their triggers
    only ``UPDATE`` of the columns a document lets you change. Nothing else.

    Args:
        supplychain_path: The demo data file.
        identity: Whose policy applies; None or the owner: none.
    """

    def __init__(self, supplychain_path: Path, identity: Identity | None = None) -> None:
        self.lock = threading.Lock()
        self.conn = apsw.Connection(":memory:")
        self.conn.set_busy_timeout(10_000)
        self.conn.execute("ATTACH DATABASE ? AS supplychain", (str(supplychain_path),))
        tables = [r[0] for r in self.conn.execute(USER_TABLES_SQL)]
        self.guard = IdentityGuard(identity) if identity and not identity.owner else None
        if self.guard is not None:
            self.guard.install(self.conn, tables)
        else:
            for table in tables:
                self.conn.execute(f"CREATE TEMP VIEW {table} AS SELECT * FROM supplychain.{table}")
        register_etag(self.conn)
        self.views = create_document_views(self.conn, tables)
        for name in self.views:
            self.conn.execute(trigger_sql(DOCUMENTS[name]))
        self._triggers = {f"{name}_update" for name in self.views}
        if self.guard is not None:  # a trigger fires only for a row of the identity's view
            self.guard.trusted |= self._triggers
        self._writable = _writable_columns()
        self.conn.authorizer = self._authorize

    def _authorize(self, action, arg1, arg2, dbname, trigger_or_view):
        if action == apsw.SQLITE_READ:
            if self.guard is not None:
                return self.guard.read(arg1, arg2, dbname, trigger_or_view)
            return apsw.SQLITE_OK
        if action in (apsw.SQLITE_SELECT, apsw.SQLITE_FUNCTION, apsw.SQLITE_RECURSIVE):
            return apsw.SQLITE_OK
        if action == apsw.SQLITE_UPDATE:
            if dbname == "temp" and arg1 in self.views and arg2 == "data":
                return apsw.SQLITE_OK
            inside = trigger_or_view in self._triggers
            if inside and dbname == "supplychain" and arg2 in self._writable.get(arg1, ()):
                return apsw.SQLITE_OK
        return apsw.SQLITE_DENY

    def get(self, name: str, key) -> dict | None:
        with self.lock:
            try:
                rows = list(self.conn.execute(f"SELECT data FROM {name} WHERE id = ?", (key,)))
            except OverflowError as e:
                raise BindError(f"document key {key!r} does not fit the database ({e})") from e
        return json.loads(rows[0][0]) if rows else None

    def update(self, name: str, document: dict) -> None:
        text = json.dumps(document, ensure_ascii=False)
        with self.lock:
            try:
                self.conn.execute(
                    f"UPDATE {name} SET data = ? WHERE id = ?", (text, document.get("_id"))
                )
            except apsw.ConstraintError as e:  # RAISE(ABORT, ...) in the trigger
                if _CONFLICT in str(e):
                    raise DocumentConflict(
                        f"{name} {document.get('_id')} changed since it was read (its etag is"
                        " not the one sent): get it again, apply your change, update again"
                    ) from e
                raise BackendError(f"{name}: {e}") from e
            except apsw.AuthError as e:
                raise BackendError(f"{name}: this update is not allowed here ({e})") from e

    def close(self) -> None:
        self.conn.close()


class EmbeddedDocuments(Documents):
    """Documents on the embedded backend (a :class:`DocumentConnection` opened on first use).

    Args:
        db: The harness connection (its lock guards opening the document connection).
        supplychain_path: The demo data file.
        identity: Whose policy applies.
    """

    def __init__(self, db, supplychain_path: Path, identity: Identity | None = None) -> None:
        self.db = db
        self.supplychain_path = supplychain_path
        self.identity = identity
        self._conn: DocumentConnection | None = None

    def _connection(self) -> DocumentConnection:
        with self.db.lock:
            if self._conn is None:
                self._conn = DocumentConnection(self.supplychain_path, self.identity)
            return self._conn

    def get(self, name: str, key) -> dict | None:
        document = document_kind(name)
        return self._connection().get(document.name, key)

    def update(self, name: str, document: dict) -> dict:
        kind = document_kind(name)
        if not isinstance(document, dict) or "_id" not in document:
            raise BackendError(f"{kind.name}: send the whole document as read, with its _id")
        sent = (document.get("_metadata") or {}).get("etag")
        if not sent:
            raise BackendError(
                f"{kind.name}: the document has no _metadata.etag: send the etag you read"
                " (optimistic concurrency), or read the document first"
            )
        current = self.get(kind.name, document["_id"])
        if current is None:
            raise BackendError(f"{kind.name}: no document with _id {document['_id']!r} for you")
        if current["_metadata"]["etag"] == sent:
            changed = kind.changed_frozen_fields(current, document)
            if changed:
                raise BackendError(
                    f"{kind.name}: these fields cannot be changed through the document:"
                    f" {', '.join(changed[:5])} (only {', '.join(_updatable(kind))} can)"
                )
        self._connection().update(kind.name, document)
        stored = self.get(kind.name, document["_id"])
        assert stored is not None  # it was there a moment ago and nothing deletes documents
        return stored

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _updatable(document: Document) -> list[str]:
    names = []

    def walk(part: DocumentPart, prefix: str) -> None:
        names.extend(prefix + f.name for f in part.fields if f.updatable)
        for name, child in part.children:
            walk(child, f"{prefix}{name}{'[]' if child.many else ''}.")

    walk(document.root, "")
    return names
