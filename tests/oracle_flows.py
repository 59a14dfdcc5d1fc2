"""Flows that drive a real OracleBackend on the python-oracledb fake, shared by the tests
(``test_oracle_driver.py``, ``test_oracle_parts.py``, ``test_oracle_floor.py``).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import numpy as np
import oracledb

from agent_harness.backends import BackendError, Scope
from agent_harness.backends.oracle import OracleBackend
from agent_harness.backends.oracle.embeddings import CLIENT_MODE
from agent_harness.backends.roles import RankWeights
from agent_harness.foundation.config import Settings
from agent_harness.foundation.embeddings import DIMENSIONS
from tests.oracle_fake import FakeOracle, oracle_error
from tests.oracle_rows import FakeLob

__all__ = [
    "EXISTS",
    "NOW",
    "answer_dictionary",
    "answer_healthy",
    "doctor_results",
    "exercise_guardrails",
    "exercise_roles",
    "fake_driver",
    "few_rows",
    "mle_outcome",
    "prepare_on",
    "remember_writes",
    "settings",
    "vector",
]

NOW = dt.datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=dt.timezone.utc)
#: The data-dictionary lookups that decide whether a migration step runs.
EXISTS = r"^SELECT COUNT\(\*\) FROM (user_|ctx_|dual WHERE :name)"


def settings(tmp_path, **overrides) -> Settings:
    """Oracle settings for the fake (the data folder holds the model cache)."""
    return Settings.from_env(backend="oracle", data_dir=tmp_path, **overrides)


def vector(seed: int = 0) -> np.ndarray:
    """A unit vector of the embedding size (the same for one seed)."""
    v = np.random.default_rng(seed).normal(size=DIMENSIONS).astype(np.float32)
    return v / np.linalg.norm(v)


def fake_driver(monkeypatch, canned: bool = True) -> Iterator[FakeOracle]:
    """The fake in place of ``oracledb.connect`` for one test; every statement sent is checked
    by :func:`tests.oracle_floor.check_statement` when the test ends."""
    driver = FakeOracle(canned)
    monkeypatch.setattr(oracledb, "connect", driver.connect)
    yield driver
    assert driver.problems() == []


@cache
def few_rows() -> dict[str, list[tuple]]:
    """A few rows of every demo table (the first three; none for cargo_items)."""
    from agent_harness.supplychain import generate

    rows = {name: table_rows[:3] for name, table_rows in generate().items()}
    rows["cargo_items"] = []  # an empty table is created, commented and granted all the same
    return rows


def exercise_roles(b: OracleBackend) -> None:
    """Call every role method once (row mapping included) on the backend."""
    scope = Scope("u", "a")
    memory = {
        "user_id": "u",
        "agent_id": "a",
        "thread_id": None,
        "kind": "note",
        "subject": "s",
        "content": "c",
        "metadata": "{}",
        "content_hash": "h",
    }
    b.memories.insert(memory, vector(1))
    b.memories.update(7, memory, vector(2))
    b.memories.list(scope, [("column", "kind", ["note"]), ("metadata", "n", 3)], 10)
    b.memories.delete(scope, 7)
    b.boxes.upsert(
        "toolbox", "t", {"description": "d", "parameters": "{}", "search_text": "s"}, vector(3)
    )
    b.boxes.rows("toolbox")
    b.boxes.nearest_names("skillbox", vector(4), 3)
    b.boxes.delete("skillbox", ["a"])
    b.scratch.paths(scope)
    b.telemetry.stats(20, NOW, tools=["a"])
    b.telemetry.rows("t", 0, 10)
    b.telemetry.prune(NOW, 100)
    b.telemetry.last_id()
    b.breakers.all()
    b.breakers.transitions("t", 5)
    for mode in ("vector", "hybrid", "keyword"):
        b.tool_ranking.rank(
            None if mode == "keyword" else vector(5),
            "berth occupancy",
            window_calls=20,
            since=NOW,
            now=NOW,
            weights=RankWeights(),
            k=5,
            mode=mode,
        )
    b.tool_ranking.neighbours("t", 3, NOW)
    b.provenance.start_turn(
        {
            "turn_id": "x",
            "thread_id": "t",
            "user_id": "u",
            "agent_id": "a",
            "question": "q",
            "model": "m",
            "started_at": NOW,
        }
    )
    b.provenance.finish_turn("x", {"answer": "a", "status": "answered"})
    b.provenance.events("x")
    b.provenance.turns(5)
    b.provenance.turns_using("t", failed=True)
    b.provenance.offered_never_called("x")
    b.tool_definitions.all()
    b.tool_definitions.delete("t")
    b.skill_graph.replace_links("s", [("t", "read")], [("d", True)], None)
    b.skill_graph.resolve("s")
    b.skill_graph.links()
    b.skill_graph.dependencies()
    b.skill_graph.parents()
    b.agents.get("a")
    b.agents.names()
    b.agents.loaded("t", "a")
    b.agents.delete("a")


def answer_dictionary(fake: FakeOracle) -> None:
    """Answer the catalog scanner's dictionary queries as Oracle would after the load."""
    from agent_harness.parts.catalog_scanner import COLUMNS_SQL, FOREIGN_KEYS_SQL, TABLES_SQL
    from agent_harness.supplychain.schema import TABLES

    fake.answer(
        re.escape(TABLES_SQL),
        [{"TABLE_NAME": t.name.upper(), "COMMENTS": t.comment} for t in TABLES],
    )
    fake.answer(
        re.escape(COLUMNS_SQL),
        [
            {
                "TABLE_NAME": t.name.upper(),
                "COLUMN_NAME": c.name.upper(),
                "DATA_TYPE": c.declared_type.split("(")[0],
                "DATA_LENGTH": c.length,
                "DATA_SCALE": c.scale,
                "NULLABLE": "Y" if c.nullable else "N",
                "COLUMN_ID": i,
                "COMMENTS": c.comment,
            }
            for t in TABLES
            for i, c in enumerate(t.columns, start=1)
        ],
    )
    fake.answer(
        re.escape(FOREIGN_KEYS_SQL),
        [
            {
                "CONSTRAINT_NAME": f"{t.name}_{fk.column}_fk".upper(),
                "TABLE_NAME": t.name.upper(),
                "COLUMN_NAME": fk.column.upper(),
                "REF_TABLE": fk.ref_table.upper(),
                "REF_COLUMN": fk.ref_column.upper(),
            }
            for t in TABLES
            for fk in t.foreign_keys
        ],
    )


def remember_writes(fake: FakeOracle, table: str, key: str = "name") -> None:
    """Answer reads of ``table`` by key with the rows the harness wrote there (the binds of
    its MERGE or INSERT statements): the little state ``workshop setup`` reads back."""
    from tests.oracle_rows import sample, select_columns

    def rows(sql, binds):
        stored = [s.binds for s in fake.statements(rf"^(MERGE|INSERT) INTO {table}\b")]
        wanted = set((binds or {}).values())
        out = []
        for written in stored:
            if wanted and written[key] not in wanted:
                continue
            row = {}
            for label, kind in select_columns(sql):
                value = written.get(label.lower(), sample(kind, label, True))
                row[label] = value.read() if isinstance(value, FakeLob) else value
            out.append(row)
        return out

    fake.answer(rf"^SELECT (?:(?!\bFROM\b).)* FROM {table} WHERE ", rows)


def prepare_on(fake: FakeOracle, folder: Path) -> list[str]:
    """``workshop setup`` (``Harness.prepare``) on the fake; the names of the steps it ran.

    The fake answers what the setup reads back: the data dictionary after the load, and the
    skills and agents it stored.
    """
    import agent_harness

    fake.answer(EXISTS, [{"COUNT(*)": 0}])
    fake.answer(r"^SELECT COUNT\(\*\) AS n FROM SUPPLYCHAIN\.", [{"N": 42}])
    answer_dictionary(fake)
    for table, key in (("skillbox", "name"), ("agents", "name"), ("agent_skills", "agent_name")):
        remember_writes(fake, table, key)
    h = agent_harness.connect(backend="oracle", data_dir=folder, prepare=False)
    try:
        return [s.name for s in h.prepare()]
    finally:
        h.close()


def mle_outcome(sql, binds):
    """What DBMS_MLE.eval appends to the result CLOB: the wrapper's completion value."""
    from py_mini_racer import MiniRacer

    return {"result": FakeLob(oracledb.DB_TYPE_CLOB, MiniRacer().eval(binds["source"].read()))}


def answer_healthy(fake) -> None:
    """Answer the doctor as a healthy database would."""
    from agent_harness.backends.oracle.migrations import MIGRATIONS

    indexes = [s.name for m in MIGRATIONS for s in m.steps if "index" in s.kind]
    fake.answer(r"FROM v\$parameter", [{"VALUE": str(512 * 1024 * 1024)}])
    fake.answer(
        r"FROM user_indexes$",
        [
            {
                "INDEX_NAME": n,
                "INDEX_TYPE": "NORMAL",
                "STATUS": "VALID",
                "DOMIDX_STATUS": None,
                "DOMIDX_OPSTATUS": None,
            }
            for n in indexes
        ],
    )
    fake.answer(r"FROM ctx_user_index_errors", [{"N": 0}])
    # the read-only user's writes are refused by the fake's privileges (oracle_privileges)
    fake.answer(r"FROM harness_settings", [{"VALUE": CLIENT_MODE}])


def doctor_results(backend) -> dict:
    """Each doctor check: ``name -> ("ok" | "failed", what it said)``."""
    results = {}
    for name, _fix, check in backend.doctor_checks():
        try:
            results[name] = ("ok", check())
        except (BackendError, oracledb.Error) as e:
            results[name] = ("failed", str(e))
    return results


def _voyage_document(etag: str = "0123456789ABCDEF0123456789ABCDEF") -> dict:
    """A voyage_dv document as python-oracledb returns the DATA column (dates as datetimes,
    numbers as Decimal), for the fake to answer with."""
    from decimal import Decimal

    return {
        "_id": Decimal(9),
        "voyageCode": "MSC-2518N",
        "status": "COMPLETED",
        "oceanRegion": "ATLANTIC",
        "originPort": "BRSSZ",
        "destPort": "ESVLC",
        "departureDate": dt.datetime(2025, 5, 4),
        "etaDate": dt.datetime(2025, 5, 16),
        "actualArrivalDate": dt.datetime(2025, 5, 16),
        "distanceNm": Decimal(4962),
        "vessel": {"imoNumber": Decimal(9436680), "name": "MSC LUCIANA"},
        "containers": [
            {
                "containerNo": "MSCU2330121",
                "containerType": "DRY",
                "sizeFt": Decimal(20),
                "status": "DISCHARGED",
                "items": [
                    {
                        "itemId": Decimal(52),
                        "hsCode": "090111",
                        "description": "Green coffee beans",
                        "quantity": Decimal(292),
                        "unitValueCents": None,
                        "weightKg": Decimal("17520.5"),
                    }
                ],
            }
        ],
        "_metadata": {"etag": etag, "asof": "000025C52A64CB47"},
    }


def _as_json(value):
    """What JSON_SERIALIZE writes for a DATE (ISO text) or a NUMBER (a JSON number)."""
    return value.isoformat() if hasattr(value, "isoformat") else float(value)


def exercise_guardrails(fake: FakeOracle, backend: OracleBackend, folder: Path) -> None:
    """Every statement of issue 21 on the fake: the policy's install when the data is already
    loaded, an identity bound to a read-only session (and the refusal when it cannot be),
    documents read, updated and refused on a stale etag, the catalog change detector."""
    import json

    from agent_harness.backends.errors import DocumentConflict
    from agent_harness.foundation.identity import Identity

    backend.supplychain.install_policy()
    ana = Identity.of({"user": "ana", "roles": ["analyst"], "regions": ["ATLANTIC", "PACIFIC"]})
    guarded = OracleBackend(settings(folder), ana)
    try:
        guarded.readonly_query("SELECT COUNT(*) AS n FROM voyages")
        text = json.dumps(_voyage_document(), default=_as_json)
        fake.answer(r"supplychain\.voyage_dv d WHERE", [{"DATA": text}])
        document = guarded.documents.get("voyage_dv", 9)
        assert document["departureDate"] == "2025-05-04" and document["_id"] == 9
        try:
            guarded.documents.update("voyage_dv", document)
        except BackendError as e:  # the read-only user behind an identity cannot write
            assert "workshop owner" in str(e)
        bound = fake.statements(r"bind_session")
        assert bound and bound[-1].user.lower() == "workshop_ro"
        ticket = fake.statements(r"INSERT INTO identity_tickets")[-1].binds
        assert ticket["regions"] == "ATLANTIC,PACIFIC" and ticket["roles"] == "analyst"
    finally:
        guarded.close()
    fake.answer(r"supplychain\.voyage_dv d WHERE", [{"DATA": _voyage_document()}])
    document = backend.documents.get("voyage_dv", 9)
    document["status"] = "DELAYED"
    backend.documents.update("voyage_dv", document)
    fake.answer(r"^UPDATE supplychain\.voyage_dv", error=oracle_error("ORA-42699: etag"), times=1)
    try:
        backend.documents.update("voyage_dv", document)
    except DocumentConflict:
        pass
    else:
        raise AssertionError("ORA-42699 is a DocumentConflict")
    scope = Scope("u", "a")
    watch = backend.catalog_watch
    watch.fingerprint("SUPPLYCHAIN")
    watch.state("SUPPLYCHAIN", scope)
    watch.record("SUPPLYCHAIN", scope, "f" * 64, NOW, scanned=True)
    watch.record("SUPPLYCHAIN", scope, "f" * 64, NOW, scanned=False)
    watch.queued_since("SUPPLYCHAIN", None)
    watch.queued_since("SUPPLYCHAIN", NOW)
    watch.forget("SUPPLYCHAIN", scope)
    fake.answer(r"INSERT INTO identity_tickets", error=oracle_error("ORA-00942: no table"), times=1)
    refused = OracleBackend(settings(folder), ana)
    try:
        refused.readonly_query("SELECT COUNT(*) AS n FROM voyages")
    except BackendError as e:
        assert "cannot bind the identity 'ana'" in str(e)
    else:
        raise AssertionError("an identity that cannot be bound must not read")
    finally:
        refused.close()
