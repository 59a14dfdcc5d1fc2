#!/bin/bash
# 02_users.sh: the workshop's database users in FREEPDB1.
#
# What: makes sure three users exist in the pluggable database FREEPDB1:
#         - the harness owner (default `workshop`): memory, toolbox, skillbox, offload and
#           scratchpad tables; CREATE SESSION + DB_DEVELOPER_ROLE, unlimited quota on USERS.
#           The image already creates it on the first start from APP_USER/APP_USER_PASSWORD;
#           it is ensured here too so an older volume is repaired.
#         - the SUPPLYCHAIN owner (default `supplychain`): CREATE SESSION + DB_DEVELOPER_ROLE,
#           unlimited quota on USERS. Its tables, comments and data are NOT created here:
#           `workshop setup --backend oracle` loads them from Python (the same deterministic
#           generator as the embedded backend).
#         - the read-only user for the run_sql tool (default `workshop_ro`): CREATE SESSION
#           only. Its SELECT grants on the SUPPLYCHAIN tables are issued by the Python loader
#           after it creates the tables, so this user can never change anything.
# Why:  one place that creates every account the harness connects with; names and passwords
#       come from the same WORKSHOP_ORACLE_* variables the Python settings read (docker compose
#       passes them in), with the same defaults, so both sides always agree.
# When: every container start (gvenzl/oracle-free runs /container-entrypoint-startdb.d/* as
#       the `oracle` OS user, connected as SYSDBA to the CDB root). Idempotent: an existing user
#       is left as it is (its password is NOT changed; to change passwords, reset the volume
#       with `docker compose down -v`); grants are re-issued, which is harmless.
#
# Written to be safe both when executed and when sourced by the entrypoint (see 01_*.sh).
set -Eeuo pipefail

workshop_check_name() {
    # Oracle identifiers we splice into SQL: a letter, then letters, digits or underscores.
    if ! [[ "$2" =~ ^[A-Za-z][A-Za-z0-9_]{0,29}$ ]]; then
        echo "WORKSHOP: ERROR: $1='$2' is not a simple Oracle user name (letters, digits, _)." >&2
        return 1
    fi
}

workshop_check_password() {
    # Passwords are spliced into IDENTIFIED BY "...": keep to characters that need no quoting.
    if ! [[ "$2" =~ ^[A-Za-z0-9_#.+-]{8,64}$ ]]; then
        echo "WORKSHOP: ERROR: $1 must be 8-64 characters from A-Z a-z 0-9 _ # . + -" >&2
        return 1
    fi
}

workshop_users() {
    local owner="${WORKSHOP_ORACLE_USER:-workshop}"
    local owner_password="${WORKSHOP_ORACLE_PASSWORD:-Workshop_2026}"
    local sc_user="${WORKSHOP_ORACLE_SC_USER:-supplychain}"
    local sc_password="${WORKSHOP_ORACLE_SC_PASSWORD:-Supplychain_2026}"
    local ro_user="${WORKSHOP_ORACLE_RO_USER:-workshop_ro}"
    local ro_password="${WORKSHOP_ORACLE_RO_PASSWORD:-WorkshopRo_2026}"

    workshop_check_name WORKSHOP_ORACLE_USER "${owner}"
    workshop_check_name WORKSHOP_ORACLE_SC_USER "${sc_user}"
    workshop_check_name WORKSHOP_ORACLE_RO_USER "${ro_user}"
    workshop_check_password WORKSHOP_ORACLE_PASSWORD "${owner_password}"
    workshop_check_password WORKSHOP_ORACLE_SC_PASSWORD "${sc_password}"
    workshop_check_password WORKSHOP_ORACLE_RO_PASSWORD "${ro_password}"

    # EXIT FAILURE, not EXIT SQL.SQLCODE: exit statuses are kept modulo 256 (see 01_*.sh).
    sqlplus -s / as sysdba <<SQL
WHENEVER SQLERROR EXIT FAILURE
WHENEVER OSERROR EXIT FAILURE
SET SERVEROUTPUT ON FEEDBACK OFF DEFINE OFF
ALTER SESSION SET CONTAINER=FREEPDB1;

DECLARE
  -- Create a user unless it exists; never touch an existing one.
  PROCEDURE ensure_user(p_name IN VARCHAR2, p_password IN VARCHAR2, p_quota IN BOOLEAN) IS
    n PLS_INTEGER;
  BEGIN
    SELECT COUNT(*) INTO n FROM dba_users WHERE username = UPPER(p_name);
    IF n > 0 THEN
      DBMS_OUTPUT.PUT_LINE('WORKSHOP: user ' || p_name || ' exists: left unchanged');
      RETURN;
    END IF;
    EXECUTE IMMEDIATE 'CREATE USER ' || DBMS_ASSERT.SIMPLE_SQL_NAME(p_name)
      || ' IDENTIFIED BY "' || p_password || '" DEFAULT TABLESPACE users'
      || CASE WHEN p_quota THEN ' QUOTA UNLIMITED ON users' END;
    DBMS_OUTPUT.PUT_LINE('WORKSHOP: user ' || p_name || ' created');
  END;
BEGIN
  ensure_user('${owner}', '${owner_password}', TRUE);
  EXECUTE IMMEDIATE 'GRANT CREATE SESSION, DB_DEVELOPER_ROLE TO ${owner}';

  ensure_user('${sc_user}', '${sc_password}', TRUE);
  EXECUTE IMMEDIATE 'GRANT CREATE SESSION, DB_DEVELOPER_ROLE TO ${sc_user}';

  -- Read-only by construction: no role, no quota; SELECT grants come from the loader.
  ensure_user('${ro_user}', '${ro_password}', FALSE);
  EXECUTE IMMEDIATE 'GRANT CREATE SESSION TO ${ro_user}';
END;
/
EXIT
SQL
}

workshop_users
