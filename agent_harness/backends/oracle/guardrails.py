"""The access policy on Oracle: Virtual Private Database, bound to the session by the database.

Written against (nothing here has run on Oracle; ``tests/test_oracle_floor.py`` records every
statement on the python-oracledb fake and checks its binds and, where sqlglot can read it,
its syntax):

* PL/SQL Packages and Types Reference 23, DBMS_RLS, ADD_POLICY
  (https://docs.oracle.com/en/database/oracle/oracle-database/23/arpls/DBMS_RLS.html):
  ``object_schema``, ``object_name``, ``policy_name``, ``function_schema``,
  ``policy_function``, ``statement_types``, ``policy_type => DBMS_RLS.DYNAMIC`` (the function
  runs at every execution, so the predicate follows the session's identity),
  ``sec_relevant_cols`` with ``sec_relevant_cols_opt => DBMS_RLS.ALL_ROWS`` (column masking:
  every row, the column NULL where the predicate is false).
* Security Guide 23, "Using Oracle Virtual Private Database to Control Data Access": the
  policy function's signature ``(schema, object) RETURN VARCHAR2``; a NULL predicate means no
  restriction; the predicate is added wherever the table is read (queries, subqueries,
  views); "Control of the Display of Column Data with Policies": a masked column is NULL in
  WHERE too (the guide warns a filter on it may return no rows), so values cannot be inferred
  through filters; policies are not applied to SYS or EXEMPT ACCESS POLICY holders.
* PL/SQL Language Reference 23, "Package State" and "AUTONOMOUS_TRANSACTION Pragma":
  package variables live for the session; the ticket is consumed in its own transaction.
* SQL Language Reference 23, CREATE TABLE (a CHECK constraint with REGEXP_LIKE keeps the
  region list to ocean regions).

How the identity reaches the database without trusting the client (shared/facts/guardrails.md,
"Passing the end user's identity": ``client_identifier`` is set by the client and is no
security key): the harness, as SUPPLYCHAIN, writes a one-time **ticket** (a random 256-bit
token with the identity's user, roles and regions) into ``identity_tickets``, which only
SUPPLYCHAIN can read or write. The read-only session then calls
``workshop_identity.bind_session(:ticket)`` once, right after it connects: the package (definer's
rights, owned by SUPPLYCHAIN) consumes the ticket and keeps the identity in package state for
the life of the session; a second call fails, so nothing the session runs later (run_sql only
passes SELECT, and a SELECT cannot call a procedure) can change it. A session that never
bound an identity sees no voyage rows at all (a human at an SQL prompt as the read-only user
included); SUPPLYCHAIN and the harness owner (the workshop owner) are exempt by user name.
"""

from __future__ import annotations

import secrets

from agent_harness.backends.roles.access_rules import MASKED_COLUMNS, ROW_POLICIES
from agent_harness.foundation.identity import Identity
from agent_harness.supplychain.schema import OCEAN_REGIONS, OWNER

__all__ = [
    "BIND_SQL",
    "PACKAGE",
    "ROW_STATEMENTS",
    "TICKET_SQL",
    "TICKETS_DDL",
    "install_statements",
    "new_ticket",
    "package_body_sql",
    "policy_block",
]

PACKAGE = "workshop_identity"
#: The read-only session binds its identity with this, once, right after connecting.
BIND_SQL = f"BEGIN {OWNER.lower()}.{PACKAGE}.bind_session(:ticket); END;"
#: SUPPLYCHAIN writes the ticket the read-only session will consume.
TICKET_SQL = (
    "INSERT INTO identity_tickets (ticket, app_user, roles, regions, issued_at)"
    " VALUES (:ticket, :app_user, :roles, :regions, SYS_EXTRACT_UTC(SYSTIMESTAMP))"
)
_REGIONS_CHECK = "|".join(OCEAN_REGIONS)
TICKETS_DDL = f"""CREATE TABLE identity_tickets (
  ticket VARCHAR2(64) NOT NULL,
  app_user VARCHAR2(64) NOT NULL,
  roles VARCHAR2(1000),
  regions VARCHAR2(200),
  issued_at TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL,
  CONSTRAINT identity_tickets_pk PRIMARY KEY (ticket),
  CONSTRAINT identity_tickets_regions_ck CHECK (regions IS NULL OR
    REGEXP_LIKE(regions, '^({_REGIONS_CHECK})(,({_REGIONS_CHECK}))*$')))"""

_SPEC = f"""CREATE OR REPLACE PACKAGE {PACKAGE} AUTHID DEFINER AS
  PROCEDURE bind_session(p_ticket IN VARCHAR2);
  FUNCTION bound_user RETURN VARCHAR2;
  FUNCTION rows_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;
  FUNCTION mask_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;
END {PACKAGE};"""


def package_body_sql(owners: list[str]) -> str:
    """The package body: the ticket's consumer and the policy functions.

    The predicates are generated from
    :data:`~agent_harness.backends.roles.access_rules.ROW_POLICIES` (the same rules the
    embedded backend's views apply); ``owners`` are the exempt users (plain identifiers,
    checked by the caller).
    """
    exempt = ", ".join(f"'{o.upper()}'" for o in owners)
    cases = []
    for table, rule in ROW_POLICIES.items():
        if rule.parent is None:
            predicate = f"'{rule.column} IN (''' || REPLACE(g_regions, ',', ''', ''') || ''')'"
            cases.append(
                f"      WHEN '{table.upper()}' THEN\n"
                f"        IF g_regions IS NULL THEN RETURN '1 = 0'; END IF;\n"
                f"        RETURN {predicate};"
            )
        else:
            text = rule.predicate((), f"{OWNER.lower()}.{rule.parent}").replace("'", "''")
            cases.append(f"      WHEN '{table.upper()}' THEN RETURN '{text}';")
    roles = sorted(set(MASKED_COLUMNS.values()))
    if len(roles) != 1:
        raise ValueError("the Oracle mask policy is written for one unmasking role")
    return f"""CREATE OR REPLACE PACKAGE BODY {PACKAGE} AS
  g_bound BOOLEAN := FALSE;
  g_user VARCHAR2(64);
  g_roles VARCHAR2(1000);
  g_regions VARCHAR2(200);

  FUNCTION exempt RETURN BOOLEAN IS
  BEGIN
    RETURN SYS_CONTEXT('USERENV', 'SESSION_USER') IN ({exempt});
  END;

  PROCEDURE bind_session(p_ticket IN VARCHAR2) IS
    PRAGMA AUTONOMOUS_TRANSACTION;
  BEGIN
    IF g_bound THEN
      RAISE_APPLICATION_ERROR(-20021, 'this session is already bound to an identity');
    END IF;
    DELETE FROM identity_tickets
      WHERE ticket = p_ticket
        AND issued_at > SYS_EXTRACT_UTC(SYSTIMESTAMP) - INTERVAL '5' MINUTE
      RETURNING app_user, roles, regions INTO g_user, g_roles, g_regions;
    IF SQL%ROWCOUNT = 0 THEN
      ROLLBACK;
      RAISE_APPLICATION_ERROR(-20022, 'unknown or expired identity ticket');
    END IF;
    COMMIT;
    g_bound := TRUE;
  END;

  FUNCTION bound_user RETURN VARCHAR2 IS
  BEGIN
    RETURN CASE WHEN g_bound THEN g_user END;
  END;

  FUNCTION rows_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    IF exempt THEN RETURN NULL; END IF;
    IF NOT g_bound THEN RETURN '1 = 0'; END IF;
    CASE p_object
{chr(10).join(cases)}
      ELSE RETURN '1 = 0';
    END CASE;
  END;

  FUNCTION mask_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    IF exempt THEN RETURN NULL; END IF;
    IF g_bound AND INSTR(',' || g_roles || ',', ',{roles[0]},') > 0 THEN RETURN NULL; END IF;
    RETURN '1 = 0';
  END;
END {PACKAGE};"""


#: The row policies cover every statement type: JSON-relational duality views are built over
#: these tables, and "VPD on underlying tables is supported only if all statements (INSERT,
#: UPDATE, DELETE, or SELECT) are included in the policy" (Database Restrictions and
#: Limitations 23, "Restrictions for JSON-Relational Duality Views",
#: https://docs.oracle.com/en/database/oracle/oracle-database/23/rnrdm/json-duality-views-restrictions.html;
#: ORA-42804 otherwise). The column-masking policy (``sec_relevant_cols_opt => ALL_ROWS``)
#: applies to SELECT only (DBMS_RLS, ADD_POLICY usage notes), so its table is only ever READ
#: through a duality view (:func:`~agent_harness.backends.oracle.documents.duality_view_sql`
#: refuses to annotate it for writes).
ROW_STATEMENTS = "SELECT,INSERT,UPDATE,DELETE"


def policy_block() -> str:
    """ONE PL/SQL block adding every policy that USER_POLICIES does not list yet (idempotent):
    a row policy per table of :data:`ROW_POLICIES` (for :data:`ROW_STATEMENTS`; one an earlier
    setup added for SELECT only is replaced), a column-masking policy per masked column.
    """
    calls = [
        f"  add_policy('{table.upper()}', 'WORKSHOP_ROWS', '{PACKAGE.upper()}.ROWS_PREDICATE');"
        for table in ROW_POLICIES
    ]
    for table, column in MASKED_COLUMNS:
        name = f"WORKSHOP_MASK_{column.upper()}"[:30]
        calls.append(
            f"  add_policy('{table.upper()}', '{name}', '{PACKAGE.upper()}.MASK_PREDICATE',"
            f" '{column.upper()}');"
        )
    return f"""DECLARE
  PROCEDURE add_policy(p_table IN VARCHAR2, p_name IN VARCHAR2, p_function IN VARCHAR2,
                       p_column IN VARCHAR2 DEFAULT NULL) IS
    n PLS_INTEGER;
  BEGIN
    SELECT COUNT(*) INTO n FROM user_policies
      WHERE object_name = p_table AND policy_name = p_name
        AND (p_column IS NOT NULL OR (ins = 'YES' AND upd = 'YES' AND del = 'YES'));
    IF n > 0 THEN
      RETURN;
    END IF;
    SELECT COUNT(*) INTO n FROM user_policies
      WHERE object_name = p_table AND policy_name = p_name;
    IF n > 0 THEN  -- a row policy of an earlier setup, for SELECT only: replaced
      DBMS_RLS.DROP_POLICY(object_schema => '{OWNER}', object_name => p_table,
                           policy_name => p_name);
    END IF;
    IF p_column IS NULL THEN
      DBMS_RLS.ADD_POLICY(
        object_schema => '{OWNER}', object_name => p_table, policy_name => p_name,
        function_schema => '{OWNER}', policy_function => p_function,
        statement_types => '{ROW_STATEMENTS}', policy_type => DBMS_RLS.DYNAMIC);
    ELSE
      DBMS_RLS.ADD_POLICY(
        object_schema => '{OWNER}', object_name => p_table, policy_name => p_name,
        function_schema => '{OWNER}', policy_function => p_function,
        statement_types => 'SELECT', policy_type => DBMS_RLS.DYNAMIC,
        sec_relevant_cols => p_column, sec_relevant_cols_opt => DBMS_RLS.ALL_ROWS);
    END IF;
  END;
BEGIN
{chr(10).join(calls)}
END;"""


def install_statements(ro_user: str, owners: list[str]) -> list[str]:
    """What SUPPLYCHAIN runs after loading its tables (names are checked identifiers).

    The tickets table (created only when missing: the caller checks USER_TABLES), the package,
    the policies, and EXECUTE on the package for the read-only user (to bind its session).
    """
    return [
        _SPEC,
        package_body_sql(owners),
        policy_block(),
        f"GRANT EXECUTE ON {PACKAGE} TO {ro_user}",
    ]


def new_ticket(identity: Identity) -> dict:
    """The binds of :data:`TICKET_SQL` for one identity (a fresh random ticket).

    The owner's read-only session binds too, with every region and every role that unmasks
    something: a session without a bound identity sees no voyage rows.
    """
    if identity.owner:
        roles = ",".join(sorted(set(MASKED_COLUMNS.values())))
    else:
        roles = ",".join(identity.roles)
    return {
        "ticket": secrets.token_hex(32),
        "app_user": identity.user,
        "roles": roles or None,
        "regions": ",".join(identity.regions) or None,
    }
