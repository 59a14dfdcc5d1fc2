"""The storage boundary stays narrow and written once (static checks, run everywhere).

* what a new backend must write is counted (today's figure is printed; the ceiling is half of
  the 62 methods the mixin design needed);
* every role is declared on ``Backend`` with its type, and both backends carry one of each;
* a dialect package overrides a shared method only where its dialect forces it: each override
  is listed here with the feature that forces it, and an unlisted one fails;
* no function of one dialect package is a copy of one in the other.
"""

from __future__ import annotations

import abc
import ast
import difflib
import inspect
import threading
import time
from pathlib import Path

import pytest

from agent_harness.backends import ROLES, Backend
from agent_harness.backends.connection import Connection, Dialect
from agent_harness.backends.embedded import EmbeddedBackend
from tests.deadlines import PATIENCE_S

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ROOT / "agent_harness" / "backends"

#: What the mixin design asked of a new backend (27 abstract methods on Backend + 35 on roles).
BEFORE = 62

#: Every shared method a dialect overrides, and the dialect feature that forces it.
OVERRIDES = {
    "embedded": {
        "SQLiteConnection.execute_many": "apsw's executemany runs one prepared statement",
        "EmbeddedMemories.delete_vector": "vectors live in the vec0 table memory_vectors",
        "EmbeddedMemories.stored_vectors": "vectors live in the vec0 table memory_vectors,"
        " whose float32 blobs are read back to reuse (Oracle embeds in the database)",
        "EmbeddedBoxes.delete_vectors": "vectors live in the vec0 tables toolbox_vec/skillbox_vec",
        "EmbeddedSupplyChain.close": "run_sql's read-only connection is a second apsw connection",
        "EmbeddedDocuments.close": "document writes go through an apsw connection of their own",
    },
    "oracle": {
        "OracleConnection.execute_many": "python-oracledb's executemany (one round trip)",
        "OracleConnection.text": "a str over 4,000 bytes or empty must bind as a CLOB",
        "OracleDialect.json_in": "memories.metadata and toolbox.parameters are JSON type: JSON()",
        "OracleDialect.json_out": "the JSON type reads back as text with JSON_SERIALIZE",
        "OracleDialect.time_text": "TIMESTAMP WITH TIME ZONE as ISO text: TO_CHAR(SYS_EXTRACT_UTC)",
        "OracleDialect.time": "TIMESTAMP columns take naive UTC datetimes",
        "OracleProvenance.calls_sql": "GRAPH_TABLE over the provenance_graph property graph",
        "OracleProvenance.offered_sql": "GRAPH_TABLE over the provenance_graph property graph",
        "OracleSkillGraph.resolve_sql": "the CYCLE clause (else ORA-32044 on the cycle flag)",
        "OracleSupplyChain.close": "the read-only user's and SUPPLYCHAIN's own connections",
        "OracleSupplyChain.install_policy": "VPD policies, the identity package and the duality"
        " views live in SUPPLYCHAIN (SQLite enforces the policy per connection)",
        "OracleCatalogWatch.queued_since": "a DBMS_SCHEDULER job queues catalog changes",
        "OracleBackend.embeds_in_database": "the in-database ONNX model (VECTOR_EMBEDDING)",
        "OracleBackend.close": "the MLE connection of exec_js closes too",
        "OracleBackend.embed_texts": "VECTOR_EMBEDDING computes vectors in the database",
        "OracleBackend.setup_embeddings": "DBMS_VECTOR.LOAD_ONNX_MODEL",
        "OracleBackend.run_js": "MLE runs exec_js in the database",
        "OracleBackend.doctor_checks": "the database's users, vector pool, indexes",
    },
}


def _required_parts() -> list[type]:
    """The classes a new backend subclasses: Backend, Connection, Dialect and every role type."""
    return [Backend, Connection, Dialect, *[t for name, t in ROLES.items() if name != "db"]]


def test_what_a_new_backend_must_write_is_at_most_half_of_before():
    required = {
        f"{part.__name__}.{name}"
        for part in _required_parts()
        for name in getattr(part, "__abstractmethods__", ())
    }
    print(f"\na new backend writes {len(required)} methods (before: {BEFORE}):")
    print("\n".join(f"  {name}" for name in sorted(required)))
    assert 0 < len(required) <= BEFORE // 2


def test_every_role_is_declared_on_backend_with_its_type(tmp_path):
    hints = Backend.__annotations__
    for name in ROLES:
        assert name in hints, f"Backend does not declare {name}"
    backend = EmbeddedBackend(tmp_path)
    try:
        for name, kind in ROLES.items():
            assert isinstance(getattr(backend, name), kind), name
            role = getattr(backend, name)
            if name != "db" and hasattr(role, "db"):
                assert role.db is backend.db, f"{name} has a connection of its own"
    finally:
        backend.close()


def _dialect_classes(package: str):
    import importlib
    import pkgutil

    root = importlib.import_module(f"agent_harness.backends.{package}")
    for info in pkgutil.iter_modules(root.__path__):
        module = importlib.import_module(f"{root.__name__}.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                yield cls


def _shared_bases(cls) -> list[type]:
    return [
        base
        for base in cls.__mro__[1:]
        if base.__module__.startswith("agent_harness.backends.")
        and not base.__module__.startswith(
            ("agent_harness.backends.embedded", "agent_harness.backends.oracle")
        )
    ]


@pytest.mark.parametrize("package", sorted(OVERRIDES))
def test_every_override_of_a_shared_method_says_which_dialect_feature_forces_it(package):
    pytest.importorskip("oracledb") if package == "oracle" else None
    found = set()
    for cls in _dialect_classes(package):
        for name, value in vars(cls).items():
            if name.startswith("_") or not callable(getattr(value, "fget", value)):
                continue  # class attributes (name, now, ...) are data, not statements
            for base in _shared_bases(cls):
                if name in vars(base) and name not in getattr(base, "__abstractmethods__", ()):
                    found.add(f"{cls.__name__}.{name}")
    listed = set(OVERRIDES[package])
    assert found - listed == set(), f"overrides nobody explained: {sorted(found - listed)}"
    assert listed - found == set(), f"listed but not overridden: {sorted(listed - found)}"


def _functions(package: str) -> dict[str, str]:
    found = {}
    for path in sorted((BACKENDS / package).glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = ast.get_source_segment(source, node) or ""
                found[f"{path.name}:{node.name}"] = inspect.cleandoc(body)
    return found


def test_no_function_of_one_dialect_package_is_a_copy_of_one_in_the_other():
    embedded, oracle = _functions("embedded"), _functions("oracle")
    identical = [
        (a, b) for a, text in embedded.items() for b, other in oracle.items() if text == other
    ]
    similar = sorted(
        (round(ratio, 2), a, b)
        for a, text in embedded.items()
        for b, other in oracle.items()
        if a.split(":")[1] == b.split(":")[1]
        and (ratio := difflib.SequenceMatcher(None, text, other).ratio()) >= 0.85
    )
    print(f"\n{len(identical)} identical, {len(similar)} same-name pairs >= 85% similar:")
    print("\n".join(f"  {r:.2f} {a} ~ {b}" for r, a, b in similar))
    assert identical == []


def test_an_embedded_transaction_holds_the_lock_against_other_threads(tmp_path):
    """A timed-out tool's thread or the MCP server cannot write inside someone's transaction."""
    backend = EmbeddedBackend(tmp_path)
    backend.migrate()
    seen = []

    def other_writer():
        backend.breakers.set_setting("test.other", "written")
        seen.append(time.monotonic())

    try:
        with backend.transaction():
            backend.breakers.set_setting("test.mine", "1")
            thread = threading.Thread(target=other_writer)
            thread.start()
            thread.join(0.3)
            assert seen == [], "another thread wrote inside this transaction"
            inside = backend.breakers.settings("test.")
        thread.join(PATIENCE_S)
        assert seen and inside == {"test.mine": "1"}
        assert backend.breakers.settings("test.") == {"test.mine": "1", "test.other": "written"}
    finally:
        backend.close()


def test_roles_use_only_the_connections_public_methods():
    """No role object reaches into a backend's or a connection's private parts."""
    offenders = []
    for path in sorted(BACKENDS.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for pattern in ("backend._", "db._", "self.db.conn.cursor", ".conn._"):
            oracle_cursor = pattern == "self.db.conn.cursor" and "oracle" in path.parts
            if pattern in text and not oracle_cursor:
                offenders.append(f"{path.relative_to(ROOT)}: {pattern}")
    assert offenders == []


def test_the_abstract_parts_cannot_be_used_half_written():
    for part in (Connection, Dialect):
        assert inspect.isabstract(part)
        with pytest.raises(TypeError):
            part()
    assert issubclass(Backend, abc.ABC)
