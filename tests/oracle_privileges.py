"""Who may run what on the stand-in: Oracle's privilege rules over the grants setup sends.

Each user's privileges are built from the GRANT statements setup really sends (the start-up
script ``setup/oracle/startdb/02_users.sh``, then every GRANT the backend sends, applied as the
fake receives it) and the documented content of the roles granted there. A statement outside
them is refused as Oracle refuses it:

* ORA-01031 ("insufficient privileges") when the user lacks a system privilege (CREATE TABLE
  in its own schema, any ANY privilege elsewhere) or holds some privilege on another schema's
  object but not the one the statement needs (a DELETE with SELECT only);
* ORA-00942 when it holds no privilege at all on that object (Oracle does not tell that it
  exists);
* ORA-06550 / PLS-00201 when a block calls a package it may not execute.

Rules (SQL Language Reference 23, GRANT: "System Privileges" and "Object Privileges"; Database
Security Guide 23, "Configuring Privilege and Role Authorization"): a user may do anything to
the objects of its own schema; another schema's object needs the object privilege (granted to
the user, to PUBLIC or to a role the session has enabled) or the ANY system privilege;
definer's-rights PL/SQL (stored units, the scheduler job) runs with the owner's DIRECT grants
only, roles disabled (PL/SQL Language Reference 23, "Invoker's Rights and Definer's Rights",
and Security Guide 23, "How Roles Work in PL/SQL Blocks"); querying a JSON-relational duality
view takes SELECT WITH GRANT OPTION on it, updating it UPDATE WITH GRANT OPTION
(JSON-Relational Duality Developer's Guide 23, 4.3).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import sqlglot
from sqlglot import exp

from tests.oracle_floor import not_parsed, oracle_parse

__all__ = [
    "DB_DEVELOPER_ROLE",
    "PUBLIC_EXECUTE",
    "ROLES",
    "Privileges",
    "Refusal",
    "setup_script_grants",
]

ROOT = Path(__file__).resolve().parent.parent

#: Database Security Guide 23, "Use of the DB_DEVELOPER_ROLE Role for Application Developers"
#: (https://docs.oracle.com/en/database/oracle/oracle-database/23/dbseg/managing-security-for-application-developers.html),
#: as ``role_sys_privs`` / ``role_role_privs`` / ``role_tab_privs`` list it on 23ai Free
#: (blogs.oracle.com "Oracle Database 23ai: New feature - DB_DEVELOPER_ROLE" gives the
#: queries): its own system privileges, the roles it holds, its object privileges.
DB_DEVELOPER_ROLE = {
    "system": frozenset(
        """CREATE CUBE|CREATE CUBE BUILD PROCESS|CREATE CUBE DIMENSION|CREATE DIMENSION
        |CREATE DOMAIN|CREATE JOB|CREATE MINING MODEL|CREATE MLE|CREATE SESSION
        |DEBUG CONNECT SESSION|EXECUTE DYNAMIC MLE|FORCE TRANSACTION|ON COMMIT REFRESH""".replace(
            "\n", ""
        )
        .replace("        ", "")
        .split("|")
    ),
    "roles": frozenset({"RESOURCE", "CTXAPP", "SODA_APP"}),
    "objects": {
        ("SYS", "DBMS_REDACT"): {"EXECUTE"},
        ("SYS", "DBMS_RLS"): {"EXECUTE"},
        ("SYS", "DBMS_TSDP_MANAGE"): {"EXECUTE"},
        ("SYS", "DBMS_TSDP_PROTECT"): {"EXECUTE"},
        ("SYS", "JAVASCRIPT"): {"EXECUTE"},
        ("SYS", "V_$PARAMETER"): {"READ"},
        ("SYS", "V_$STATNAME"): {"READ"},
        ("SYS", "DBA_PENDING_TRANSACTIONS"): {"SELECT"},
    },
}

#: The other roles by what they grant (RESOURCE in 23ai: Security Guide 23, "Predefined
#: Roles"; CTXAPP: Oracle Text Application Developer's Guide 23, "CTXAPP Role": the CTX_
#: packages a developer calls).
ROLES = {
    "DB_DEVELOPER_ROLE": DB_DEVELOPER_ROLE,
    "RESOURCE": {
        "system": frozenset(
            {
                "CREATE ANALYTIC VIEW",
                "CREATE ATTRIBUTE DIMENSION",
                "CREATE CLUSTER",
                "CREATE HIERARCHY",
                "CREATE INDEXTYPE",
                "CREATE MATERIALIZED VIEW",
                "CREATE OPERATOR",
                "CREATE PROCEDURE",
                "CREATE PROPERTY GRAPH",
                "CREATE SEQUENCE",
                "CREATE SYNONYM",
                "CREATE TABLE",
                "CREATE TRIGGER",
                "CREATE TYPE",
                "CREATE VIEW",
            }
        ),
        "roles": frozenset({"SODA_APP"}),
        "objects": {},
    },
    "CTXAPP": {
        "system": frozenset(),
        "roles": frozenset(),
        "objects": {
            ("CTXSYS", name): {"EXECUTE"}
            for name in ("CTX_DDL", "CTX_CLS", "CTX_DOC", "CTX_OUTPUT", "CTX_QUERY", "CTX_THES")
        },
    },
    "SODA_APP": {"system": frozenset(), "roles": frozenset(), "objects": {}},
}

#: Packages executable by PUBLIC ("Security Model" of each in PL/SQL Packages and Types
#: Reference 23; DBMS_VECTOR: Oracle's own example loads a model with DB_DEVELOPER_ROLE and
#: CREATE MINING MODEL only, AI Vector Search User's Guide 23, "Import ONNX Models ... End-to-End
#: Example").
PUBLIC_EXECUTE = frozenset(
    {
        "DBMS_SCHEDULER",
        "DBMS_LOB",
        "DBMS_SESSION",
        "DBMS_OUTPUT",
        "DBMS_ASSERT",
        "DBMS_VECTOR",
        "DBMS_MLE",
        "DBMS_UTILITY",
    }
)
#: Who owns a package called without a schema (public synonyms).
_PACKAGE_OWNERS = {"CTX_DDL": "CTXSYS", **{name: "SYS" for name in PUBLIC_EXECUTE}} | {
    "DBMS_RLS": "SYS",
    "DBMS_REDACT": "SYS",
}
#: The system privilege a call needs besides EXECUTE (each package's reference).
_CALL_NEEDS = {
    ("DBMS_SCHEDULER", "CREATE_JOB"): "CREATE JOB",
    ("DBMS_VECTOR", "LOAD_ONNX_MODEL"): "CREATE MINING MODEL",
    ("DBMS_MLE", "EVAL"): "EXECUTE DYNAMIC MLE",
}
#: Dictionary views every user may read (Database Reference 23: the ALL_ / USER_ views and
#: DUAL are granted to PUBLIC; the Oracle Text views CTX_USER_* likewise).
_PUBLIC_VIEWS = re.compile(r"^(ALL_|USER_|CTX_USER_|CTX_STOPLISTS$|DUAL$)")
#: V$ views are public synonyms of SYS.V_$ views.
_DYNAMIC_VIEWS = re.compile(r"^V\$(\w+)$")


@dataclass
class Refusal(Exception):
    """What Oracle answers to a statement the user may not run."""

    message: str

    def __str__(self) -> str:
        return self.message


@dataclass
class Privileges:
    """The grants of every user and role, and Oracle's checks over them.

    Attributes:
        system: grantee -> system privileges granted directly.
        roles: grantee -> roles granted directly.
        objects: grantee -> (owner, object) -> privilege -> WITH GRANT OPTION.
        duality_views: ``(owner, name)`` of the JSON-relational duality views created.
    """

    system: dict[str, set[str]] = field(default_factory=dict)
    roles: dict[str, set[str]] = field(default_factory=dict)
    objects: dict[str, dict[tuple[str, str], dict[str, bool]]] = field(default_factory=dict)
    duality_views: set[tuple[str, str]] = field(default_factory=set)

    def copy(self) -> Privileges:
        return copy.deepcopy(self)

    # --- granting -------------------------------------------------------------------------
    def grant_system(self, grantee: str, privileges: Iterable[str]) -> None:
        for privilege in privileges:
            privilege = " ".join(privilege.upper().split())
            target = self.roles if privilege in ROLES else self.system
            target.setdefault(grantee.upper(), set()).add(privilege)

    def grant_object(
        self, grantee: str, owner: str, name: str, privileges: Iterable[str], option: bool
    ) -> None:
        held = self.objects.setdefault(grantee.upper(), {}).setdefault(
            (owner.upper(), name.upper()), {}
        )
        for privilege in privileges:
            held[privilege.upper()] = held.get(privilege.upper(), False) or option

    def forget_object(self, owner: str, name: str) -> None:
        """A dropped object takes its grants with it."""
        for held in self.objects.values():
            held.pop((owner.upper(), name.upper()), None)
        self.duality_views.discard((owner.upper(), name.upper()))

    # --- what a user holds ----------------------------------------------------------------
    def _roles_of(self, user: str) -> set[str]:
        found, todo = set(), list(self.roles.get(user, ()))
        while todo:
            role = todo.pop()
            if role not in found:
                found.add(role)
                todo += ROLES.get(role, {}).get("roles", ())
        return found

    def system_privileges(self, user: str, roles_enabled: bool = True) -> set[str]:
        held = set(self.system.get(user.upper(), ()))
        if roles_enabled:
            for role in self._roles_of(user.upper()):
                held |= ROLES[role]["system"]
        return held

    def object_privileges(
        self, user: str, owner: str, name: str, roles_enabled: bool = True
    ) -> dict[str, bool]:
        """Privilege -> grant option, on ``owner.name``, for ``user`` (PUBLIC's included)."""
        key = (owner.upper(), name.upper())
        held: dict[str, bool] = {}
        sources = [self.objects.get(user.upper(), {}), self.objects.get("PUBLIC", {})]
        if roles_enabled:
            sources += [ROLES[r]["objects"] for r in self._roles_of(user.upper())]
        for source in sources:
            granted = source.get(key, {})
            if isinstance(granted, set):  # a role's documented grants: no grant option
                granted = dict.fromkeys(granted, False)
            for privilege, option in granted.items():
                held[privilege] = held.get(privilege, False) or option
        if owner.upper() == "SYS" and name.upper() in PUBLIC_EXECUTE:
            held.setdefault("EXECUTE", False)
        return held

    def accessible(self, user: str, owner: str, name: str, definer_rights: bool = False) -> bool:
        """True when ``owner.name`` is listed in ``user``'s ALL_* views ("accessible to the
        current user": owned, or any privilege on it; in a definer's-rights unit, such as the
        scheduler job's procedure, only direct grants and PUBLIC count)."""
        if user.upper() == owner.upper():
            return True
        return bool(self.object_privileges(user, owner, name, roles_enabled=not definer_rights))

    # --- Oracle's checks --------------------------------------------------------------------
    def check(self, user: str, sql: str, schema: str | None = None) -> None:
        """Raise :class:`Refusal` as Oracle would when ``user`` (whose session resolves
        unqualified names in ``schema``) may not run ``sql``; nothing when it may."""
        user = user.upper()
        schema = (schema or user).upper()
        text = sql.strip()
        head = " ".join(text[:80].upper().split())
        if head.startswith(("ALTER SESSION", "SAVEPOINT", "COMMIT", "ROLLBACK")):
            return
        if head.startswith(("BEGIN", "DECLARE")):
            return self._check_block(user, text)
        if head.startswith("CREATE"):
            return self._check_create(user, text, schema)
        if head.startswith(("DROP", "ALTER", "COMMENT", "TRUNCATE")):
            return self._check_ddl(user, text, schema)
        if head.startswith("GRANT"):
            return self._check_grant(user, text, schema)
        if not_parsed(text):
            return
        self._check_dml(user, text, schema)

    def _refuse_on(self, user: str, owner: str, name: str, what: str) -> None:
        owner, name = owner.upper(), name.upper()
        if self.object_privileges(user, owner, name):
            raise Refusal(f"ORA-01031: insufficient privileges ({what} {owner}.{name})")
        raise Refusal(f'ORA-00942: table or view "{owner}"."{name}" does not exist')

    def _needs_system(self, user: str, privilege: str) -> None:
        if privilege not in self.system_privileges(user):
            raise Refusal(f"ORA-01031: insufficient privileges ({privilege})")

    def _check_block(self, user: str, block: str) -> None:
        """An anonymous block: EXECUTE on every package it calls (roles enabled)."""
        code = re.sub(r"'(?:[^']|'')*'|--[^\n]*", "''", block)
        for first, second, third in re.findall(
            r"(?<![\w.%$#])([A-Za-z]\w*)\.([A-Za-z]\w*)(?:\.([A-Za-z]\w*))?", code
        ):
            first, second, third = first.upper(), second.upper(), third.upper()
            if third:  # schema.package.procedure
                owner, package, call = first, second, third
            elif first in _PACKAGE_OWNERS:
                owner, package, call = _PACKAGE_OWNERS[first], first, second
            else:
                continue  # a record field, a loop variable, a package of the user's own
            if owner == user:
                continue
            if "EXECUTE" not in self.object_privileges(user, owner, package):
                raise Refusal(
                    "ORA-06550: line 1, column 7:\nPLS-00201: identifier"
                    f" '{first if third else package}.{second if third else call}' must be"
                    " declared"
                )
            if (need := _CALL_NEEDS.get((package, call))) is not None:
                self._needs_system(user, need)

    def stored_unit_refusal(self, owner: str, source: str) -> str | None:
        """PLS-00201 for an object of another schema a stored (definer's-rights) unit names
        without a DIRECT grant to its owner (roles do not count when it compiles)."""
        code = re.sub(r"'(?:[^']|'')*'|--[^\n]*", "''", source)
        for schema, name in re.findall(r"(?<![\w.%$#])([A-Za-z]\w*)\.([A-Za-z]\w*)", code):
            schema, name = schema.upper(), name.upper()
            if schema in _PACKAGE_OWNERS or schema == owner.upper():
                continue
            if schema not in self._schemas():
                continue  # a record field or a loop variable (c.owner), not a schema
            if not self.object_privileges(owner, schema, name, roles_enabled=False):
                return f"PLS-00201: identifier '{schema}.{name}' must be declared"
        return None

    def _schemas(self) -> set[str]:
        users = set(self.system) | set(self.roles) | set(self.objects)
        return users | {owner for held in self.objects.values() for owner, _ in held}

    def _check_create(self, user: str, sql: str, schema: str) -> None:
        found = re.match(
            r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:NON)?EDITIONABLE\s+)?"
            r"(?:(?:GLOBAL|PRIVATE)\s+TEMPORARY\s+|UNIQUE\s+|BITMAP\s+|VECTOR\s+|HYBRID\s+"
            r"VECTOR\s+|(?:NO\s+)?FORCE\s+|JSON\s+RELATIONAL\s+DUALITY\s+)*"
            r"(PACKAGE\s+BODY|PACKAGE|PROCEDURE|FUNCTION|TRIGGER|TYPE|TABLE|VIEW|INDEX"
            r"|PROPERTY\s+GRAPH|MLE\s+ENV|SEQUENCE|SYNONYM)\s+(?:IF\s+NOT\s+EXISTS\s+)?"
            r"(?:(\w+)\.)?(\w+)(?:\s+ON\s+(?:(\w+)\.)?(\w+))?",
            sql,
            re.IGNORECASE,
        )
        if found is None:
            raise Refusal(f"ORA-00900: invalid SQL statement (the stand-in cannot read {sql[:60]})")
        kind = " ".join(found.group(1).upper().split())
        owner = (found.group(2) or schema).upper()
        if kind == "INDEX":  # own table: nothing more; another's: INDEX on it or CREATE ANY
            table_owner = (found.group(4) or schema).upper()
            if table_owner != user and "INDEX" not in self.object_privileges(
                user, table_owner, found.group(5)
            ):
                self._needs_system(user, "CREATE ANY INDEX")
            return
        privilege = {
            "PACKAGE": "PROCEDURE",
            "PACKAGE BODY": "PROCEDURE",
            "FUNCTION": "PROCEDURE",
            "MLE ENV": "MLE",
        }.get(kind, kind)
        if owner != user:
            self._needs_system(user, f"CREATE ANY {privilege}")
        else:
            self._needs_system(user, f"CREATE {privilege}")

    def _check_ddl(self, user: str, sql: str, schema: str) -> None:
        found = re.match(
            r"^\s*(DROP|ALTER|COMMENT\s+ON|TRUNCATE)\s+(TABLE|VIEW|INDEX|COLUMN|PACKAGE|"
            r"PROCEDURE|PROPERTY\s+GRAPH|MLE\s+ENV)\s+(?:IF\s+EXISTS\s+)?(?:(\w+)\.)?(\w+)"
            r"(?:\.(\w+))?",
            sql,
            re.IGNORECASE,
        )
        if found is None:
            return
        verb = found.group(1).split()[0].upper()
        kind = found.group(2).upper()
        parts = [p for p in found.group(3, 4, 5) if p]
        if kind == "COLUMN":  # COMMENT ON COLUMN [schema.]table.column
            owner, name = (parts[0], parts[1]) if len(parts) == 3 else (schema, parts[0])
            kind = "TABLE"
        else:
            owner, name = (parts[0], parts[1]) if len(parts) >= 2 else (schema, parts[0])
        owner = owner.upper()
        if owner == user:
            return
        held = self.object_privileges(user, owner, name)
        if verb == "ALTER" and kind == "TABLE" and "ALTER" in held:
            return
        needed = {"COMMENT": "COMMENT ANY TABLE", "TRUNCATE": "DROP ANY TABLE"}.get(
            verb, f"{verb} ANY {kind}"
        )
        if needed in self.system_privileges(user):
            return
        self._refuse_on(user, owner, name, verb)

    def _check_grant(self, user: str, sql: str, schema: str) -> None:
        found = re.match(
            r"^\s*GRANT\s+(.+?)\s+ON\s+(?:(\w+)\.)?(\w+)\s+TO\s+", sql, re.IGNORECASE | re.S
        )
        if found is None:  # a system privilege or a role: needs ADMIN OPTION / GRANT ANY
            raise Refusal("ORA-01031: insufficient privileges (GRANT of a system privilege)")
        owner = (found.group(2) or schema).upper()
        if owner == user:
            return
        held = self.object_privileges(user, owner, found.group(3))
        for privilege in _privilege_list(found.group(1)):
            if not held.get(privilege):
                raise Refusal(f"ORA-01031: insufficient privileges (GRANT {privilege})")

    def _check_dml(self, user: str, sql: str, schema: str) -> None:
        for db, name, needed in _relations(sql):
            owner = (db or schema).upper()
            if owner == user or (not db and _PUBLIC_VIEWS.match(name)):
                continue
            if not db and (dynamic := _DYNAMIC_VIEWS.match(name)):
                owner, name = "SYS", f"V_${dynamic.group(1)}"
            self._check_object(user, owner, name, needed)

    def _check_object(self, user: str, owner: str, name: str, needed: tuple[str, ...]) -> None:
        held = self.object_privileges(user, owner, name)
        duality = (owner, name) in self.duality_views
        for privilege in needed:
            readable = privilege == "SELECT" and "READ" in held
            if privilege not in held and not readable:
                if "SELECT" in needed and "SELECT ANY TABLE" in self.system_privileges(user):
                    continue
                self._refuse_on(user, owner, name, privilege)
            if duality and not held.get(privilege):
                raise Refusal(
                    f"ORA-01031: insufficient privileges ({privilege} WITH GRANT OPTION on the"
                    f" duality view {owner}.{name})"
                )

    # --- effects of a statement that ran ----------------------------------------------------
    def apply(self, user: str, sql: str, schema: str | None = None) -> None:
        """What a statement that ran changes: grants given, objects dropped, duality views."""
        user = user.upper()
        schema = (schema or user).upper()
        grant = re.match(
            r"^\s*GRANT\s+(.+?)\s+ON\s+(?:(\w+)\.)?(\w+)\s+TO\s+(.+?)(\s+WITH\s+GRANT\s+OPTION)?"
            r"\s*$",
            sql,
            re.IGNORECASE | re.S,
        )
        if grant:
            owner = (grant.group(2) or schema).upper()
            for grantee in re.split(r"\s*,\s*", grant.group(4).strip()):
                self.grant_object(
                    grantee,
                    owner,
                    grant.group(3),
                    _privilege_list(grant.group(1)),
                    bool(grant.group(5)),
                )
            return
        system = re.match(r"^\s*GRANT\s+(.+?)\s+TO\s+(\w+)\s*$", sql, re.IGNORECASE | re.S)
        if system:
            self.grant_system(system.group(2), re.split(r"\s*,\s*", system.group(1).strip()))
            return
        dropped = re.match(
            r"^\s*DROP\s+(?:TABLE|VIEW)\s+(?:IF\s+EXISTS\s+)?(?:(\w+)\.)?(\w+)", sql, re.I
        )
        if dropped:
            self.forget_object(dropped.group(1) or schema, dropped.group(2))
            return
        duality = re.match(
            r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?JSON\s+RELATIONAL\s+DUALITY\s+VIEW\s+"
            r"(?:(\w+)\.)?(\w+)",
            sql,
            re.I,
        )
        if duality:
            self.duality_views.add(((duality.group(1) or schema).upper(), duality.group(2).upper()))


@cache
def _relations(sql: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """``(schema or "", NAME, privileges needed)`` for each table or view a query or DML
    statement names (CTEs left out); () when sqlglot cannot read it (the floor says so)."""
    try:
        tree = oracle_parse(sql)
    except sqlglot.errors.SqlglotError:
        return ()
    target, verb = None, "SELECT"
    if isinstance(tree, (exp.Insert, exp.Update, exp.Delete, exp.Merge)):
        verb = type(tree).__name__.upper()
        target = tree.this if isinstance(tree.this, exp.Table) else tree.find(exp.Table)
    ctes = {c.alias_or_name.upper() for c in tree.find_all(exp.CTE)}
    found = []
    for table in tree.find_all(exp.Table):
        name = table.name.upper()
        if not name or (not table.db and name in ctes):
            continue
        needed = {"MERGE": ("INSERT", "UPDATE")}.get(verb, (verb,))
        found.append((table.db, name, needed if table is target else ("SELECT",)))
    return tuple(found)


def _privilege_list(text: str) -> list[str]:
    return [" ".join(p.upper().split()) for p in text.split(",")]


def setup_script_grants(settings) -> Privileges:
    """The privileges ``setup/oracle/startdb/02_users.sh`` grants, read from the script: each
    ``GRANT ... TO ${var}`` with the user names the settings give those variables."""
    script = (ROOT / "setup/oracle/startdb/02_users.sh").read_text(encoding="utf-8")
    defaults = dict(re.findall(r'local (\w+)="\$\{WORKSHOP_ORACLE_\w+:-(\w+)\}"', script))
    names = {
        "owner": settings.oracle_user,
        "sc_user": settings.oracle_sc_user,
        "ro_user": settings.oracle_ro_user,
    }
    privileges = Privileges()
    for granted, var in re.findall(r"GRANT ([A-Z_ ,]+?) TO \$\{(\w+)\}", script):
        user = names.get(var) or defaults[var]
        privileges.grant_system(user, re.split(r"\s*,\s*", granted))
    return privileges
