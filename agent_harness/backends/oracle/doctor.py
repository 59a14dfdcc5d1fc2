"""``workshop doctor`` checks of the Oracle backend: each raises with what is wrong, and the
check list says how to fix it."""

from __future__ import annotations

from collections.abc import Callable

import oracledb

from agent_harness.backends.errors import BackendError
from agent_harness.backends.oracle.connection import connect_user
from agent_harness.backends.oracle.embeddings import MODEL_NAME
from agent_harness.backends.oracle.errors import error_code, first_line
from agent_harness.backends.oracle.migrations import MIGRATIONS
from agent_harness.foundation.embeddings import DIMENSIONS
from agent_harness.supplychain.schema import OWNER

__all__ = ["OracleDoctor"]


class OracleDoctor:
    """The Oracle backend's ``workshop doctor`` checks.

    Args:
        backend: The :class:`~agent_harness.backends.oracle.OracleBackend` to check.
    """

    def __init__(self, backend) -> None:
        self.backend = backend
        self.settings = backend.settings

    def checks(self) -> list[tuple[str, str, Callable[[], str]]]:
        recreate = (
            "The init scripts in setup/oracle/ create the users on the container's first start:"
            " docker compose down -v && docker compose up -d oracle (this deletes its data)."
        )
        return [
            (
                "Oracle reachable",
                "docker compose up -d oracle; check WORKSHOP_ORACLE_DSN.",
                self._check_reachable,
            ),
            ("Oracle users", recreate, self._check_users),
            (
                "vector pool",
                "As SYSDBA: ALTER SYSTEM SET vector_memory_size=512M SCOPE=SPFILE; restart.",
                self._check_vector_pool,
            ),
            (
                "in-database model",
                "workshop setup --backend oracle (loads it, or records client-side mode);"
                " set WORKSHOP_ONNX_MODEL to the zip's URL or a local copy.",
                self._check_model_mode,
            ),
            (
                "Oracle indexes",
                "workshop setup --backend oracle; an index that stays INVALID or FAILED:"
                " DROP INDEX <name> FORCE, then workshop setup again.",
                self._check_indexes,
            ),
            (
                "read-only user",
                f"As SYSDBA: revoke everything from {self.settings.oracle_ro_user} except"
                " CREATE SESSION and the SELECT grants on SUPPLYCHAIN.",
                self._check_readonly_user,
            ),
        ]

    def _check_reachable(self) -> str:
        self.backend.query("SELECT 1 AS one FROM dual")
        return f"Oracle {self.backend.db.conn.version} at {self.settings.oracle_dsn}"

    def _check_users(self) -> str:
        s = self.settings
        for user, password, role in (
            (s.oracle_ro_user, s.oracle_ro_password, "read-only user"),
            (s.oracle_sc_user, s.oracle_sc_password, OWNER),
        ):
            connect_user(s, user, password, role).close()
        return f"{s.oracle_user}, {s.oracle_ro_user} and {s.oracle_sc_user} can log in"

    def _check_vector_pool(self) -> str:
        try:
            rows = self.backend.query(
                "SELECT value FROM v$parameter WHERE name = 'vector_memory_size'"
            )
        except oracledb.DatabaseError:
            if self.backend.object_exists("index", "MEMORIES_HNSW"):
                return "V$PARAMETER is not visible here; the HNSW indexes exist, so the pool is set"
            raise BackendError("V$PARAMETER is not visible and no HNSW index exists") from None
        value = str(rows[0]["value"] or "0") if rows else "0"
        if not value.isdigit():
            return f"vector_memory_size = {value}"
        if int(value) <= 0:
            raise BackendError("vector_memory_size is 0: HNSW indexes cannot be built")
        return f"vector_memory_size = {int(value) // (1024 * 1024)} MB"

    def _check_model_mode(self) -> str:
        mode = self.backend.embeddings.mode()
        if not mode.in_database:
            return f"client-side all-MiniLM-L6-v2 embeddings ({mode.reason or 'recorded'})"
        if not self.backend.embeddings.model_loaded():
            raise BackendError(f"the recorded mode is in-database but {MODEL_NAME} is missing")
        self.backend.embeddings.check_model()
        return f"{MODEL_NAME} loaded, {DIMENSIONS} dimensions"

    def _check_indexes(self) -> str:
        rows = self.backend.query(
            "SELECT index_name, index_type, status, domidx_status, domidx_opstatus"
            " FROM user_indexes"
        )
        found = {r["index_name"]: r for r in rows}
        expected = [s.name for m in MIGRATIONS for s in m.steps if "index" in s.kind]
        missing = [n for n in expected if n not in found]
        bad = [
            n
            for n, r in found.items()
            if r["status"] not in ("VALID", "N/A")
            or (r["domidx_opstatus"] and r["domidx_opstatus"] != "VALID")
        ]
        errors = self.backend.query("SELECT COUNT(*) AS n FROM ctx_user_index_errors")[0]["n"]
        if missing or bad:
            raise BackendError(f"missing: {missing or 'none'}; not valid: {bad or 'none'}")
        return f"{len(expected)} indexes valid; {errors} Oracle Text indexing errors"

    def _check_readonly_user(self) -> str:
        probes = {
            "INSERT": "INSERT INTO supplychain.ports (port_code, name, ocean_region)"
            " VALUES ('ZZZZZ', 'doctor probe', 'PACIFIC')",
            "CREATE TABLE": "CREATE TABLE workshop_doctor_probe (x NUMBER)",
        }
        refused = []
        readonly = self.backend.supplychain.readonly
        with readonly.lock:
            conn = readonly.connection()
            for what, sql in probes.items():
                try:
                    with conn.cursor() as cur:  # on purpose past the statement check
                        cur.execute(sql)
                except oracledb.DatabaseError as e:
                    conn.rollback()
                    if error_code(e) not in (1031, 942, 1950):
                        raise
                    refused.append(f"{what}: {first_line(e).split(':')[0]}")
                    continue
                conn.rollback()
                if what == "CREATE TABLE":
                    with conn.cursor() as cur:
                        cur.execute("DROP TABLE workshop_doctor_probe PURGE")
                raise BackendError(f"the read-only user could run {what}: it is not read-only")
        return "refused " + ", ".join(refused)
