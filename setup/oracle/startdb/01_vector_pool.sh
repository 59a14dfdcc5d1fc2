#!/bin/bash
# 01_vector_pool.sh: give Oracle a vector pool, so HNSW vector indexes can be built.
#
# What: makes sure VECTOR_MEMORY_SIZE is at least 512M in the CDB root. When it is lower (a
#       fresh image has 0), it writes 512M to the SPFILE, restarts the instance and opens the
#       pluggable databases again. When it is already set, it only reports the value.
# Why:  CREATE VECTOR INDEX ... ORGANIZATION INMEMORY NEIGHBOR GRAPH (HNSW) lives in the vector
#       pool; with the default size 0 it fails with ORA-51962. A pool that was 0 at startup
#       cannot be enabled while the instance runs (ORA-51950: "Specify a non-zero ... size in the
#       VECTOR_MEMORY_SIZE initialization parameter"), hence SCOPE=SPFILE and one restart. The
#       SPFILE lives in the oradata volume, so the restart happens once per volume.
# When: gvenzl/oracle-free runs /container-entrypoint-startdb.d/* on EVERY container start,
#       after the first-start setup, as the `oracle` OS user with the database open. Running on
#       every start (not only the first) also repairs a volume created before this script
#       existed. It is idempotent: nothing changes when the pool is already big enough.
# Fails: loudly (non-zero exit stops the container, the reason is in `docker compose logs
#       oracle`) rather than leaving a database without a vector pool.
#
# Written to be safe both when executed (the normal case: the file is executable) and when the
# entrypoint sources it (no executable bit): everything is in a function that returns.
set -Eeuo pipefail

WORKSHOP_VECTOR_POOL_MB=512

# Every sqlplus here-document starts with WHENEVER SQLERROR EXIT FAILURE, not EXIT SQL.SQLCODE:
# a shell keeps an exit status modulo 256, so e.g. ORA-01536 (1536 = 6 * 256) would exit 0 and
# look like success (SQL*Plus User's Guide, EXIT: "limited to zero to 255" on UNIX).

workshop_sql_value() {
    # Print one value from the CDB root (as SYSDBA), without headings or blanks.
    sqlplus -s / as sysdba <<SQL | tr -d '[:space:]'
WHENEVER SQLERROR EXIT FAILURE
WHENEVER OSERROR EXIT FAILURE
SET HEADING OFF FEEDBACK OFF PAGESIZE 0 VERIFY OFF ECHO OFF
$1
EXIT
SQL
}

workshop_vector_pool() {
    local wanted=$((WORKSHOP_VECTOR_POOL_MB * 1024 * 1024))
    local current sga
    current=$(workshop_sql_value "SELECT value FROM v\$parameter WHERE name = 'vector_memory_size';")
    if [ "${current:-0}" -ge "${wanted}" ]; then
        echo "WORKSHOP: vector pool is ${current} bytes (>= ${WORKSHOP_VECTOR_POOL_MB}M): nothing to do."
        return 0
    fi

    # The pool must stay below 70% of the SGA target (ORA-51954); refuse before touching the
    # SPFILE, because an SPFILE the instance cannot start with would brick the volume.
    sga=$(workshop_sql_value "SELECT value FROM v\$parameter WHERE name = 'sga_target';")
    if [ "${sga:-0}" -gt 0 ] && [ $((wanted * 100)) -ge $((sga * 70)) ]; then
        echo "WORKSHOP: ERROR: sga_target is ${sga} bytes, too small for a ${WORKSHOP_VECTOR_POOL_MB}M vector pool." >&2
        echo "WORKSHOP: the image changed its memory settings; see docs/oracle.md (troubleshooting)." >&2
        return 1
    fi

    echo "WORKSHOP: vector pool is ${current:-0} bytes; setting ${WORKSHOP_VECTOR_POOL_MB}M in the SPFILE and restarting the instance once."
    sqlplus -s / as sysdba <<SQL
WHENEVER SQLERROR EXIT FAILURE
WHENEVER OSERROR EXIT FAILURE
ALTER SYSTEM SET vector_memory_size = ${WORKSHOP_VECTOR_POOL_MB}M SCOPE = SPFILE;
SHUTDOWN IMMEDIATE
STARTUP
-- FREEPDB1 has a saved OPEN state in this image; open any PDB that is still only mounted.
BEGIN
  FOR p IN (SELECT name FROM v\$pdbs WHERE open_mode = 'MOUNTED' AND name <> 'PDB\$SEED') LOOP
    EXECUTE IMMEDIATE 'ALTER PLUGGABLE DATABASE "' || p.name || '" OPEN';
  END LOOP;
END;
/
ALTER SYSTEM REGISTER;
EXIT
SQL

    # SHUTDOWN/STARTUP are SQL*Plus commands that WHENEVER SQLERROR does not cover: check the
    # result with fresh sessions (these fail, and stop the container, if the instance is down).
    current=$(workshop_sql_value "SELECT value FROM v\$parameter WHERE name = 'vector_memory_size';")
    if [ "${current:-0}" -lt "${wanted}" ]; then
        echo "WORKSHOP: ERROR: vector_memory_size is still ${current:-0} after the restart." >&2
        return 1
    fi
    if [ "$(workshop_sql_value "SELECT open_mode FROM v\$pdbs WHERE name = 'FREEPDB1';")" != "READWRITE" ]; then
        echo "WORKSHOP: ERROR: FREEPDB1 is not open READ WRITE after the restart." >&2
        return 1
    fi
    echo "WORKSHOP: vector pool is now ${current} bytes; FREEPDB1 is open."
}

workshop_vector_pool
