"""The catalog change detector on Oracle: a scheduler job queues changes in the database.

Migration ``m013_catalog_watch`` creates, in the harness owner's schema:

* ``catalog_watch``: per schema and memory scope, the fingerprint last scanned (as on SQLite);
* ``catalog_changes``: the queue. Procedure ``catalog_watch_check`` computes a fingerprint of
  every watched schema's dictionary (``ORA_HASH`` of each column's name, type and comments,
  summed: order does not matter) and inserts a row when it differs from the last one;
* job ``WORKSHOP_CATALOG_WATCH`` runs the procedure every minute.

Written against PL/SQL Packages and Types Reference 23, DBMS_SCHEDULER, CREATE_JOB
(``job_type => 'STORED_PROCEDURE'``, ``start_date``, ``repeat_interval`` in the calendaring
syntax ``FREQ=MINUTELY;INTERVAL=1``, ``enabled => TRUE``; a job is created disabled unless
told otherwise): https://docs.oracle.com/en/database/oracle/oracle-database/23/arpls/DBMS_SCHEDULER.html;
SQL Language Reference 23, ORA_HASH; Database Reference 23, USER_SCHEDULER_JOBS and
USER_PROCEDURES (the steps' existence checks). The owner needs CREATE JOB and CREATE PROCEDURE
(both in DB_DEVELOPER_ROLE). The gvenzl image runs ``JOB_QUEUE_PROCESSES=1``: jobs run one at a
time, so the queue may lag by a run. :meth:`OracleCatalogWatch.queued_since` reads the queue;
the harness re-scans when the job found a change (or its own fingerprint moved).

What the procedure sees: it reads ALL_TAB_COLUMNS / ALL_*_COMMENTS, which list what is
"accessible to the current user" (Database Reference 23, ALL_TAB_COLUMNS), and it runs with
definer's rights, where roles are off and only the owner's DIRECT grants count (PL/SQL Language
Reference 23, "Invoker's Rights and Definer's Rights"). So every SUPPLYCHAIN table is granted to
the harness owner directly: by the loader, and by ``supplychain_execute`` for a table the
workshop creates later (``OracleSupplyChain.execute`` in ``supplychain.py``).
"""

from __future__ import annotations

import datetime as dt

from agent_harness.backends.migrations import Migration
from agent_harness.backends.oracle.steps import Step
from agent_harness.backends.roles.catalog_watch import CatalogWatch

__all__ = ["CATALOG_WATCH_MIGRATIONS", "JOB", "OracleCatalogWatch"]

JOB = "WORKSHOP_CATALOG_WATCH"

_CHECK = """CREATE OR REPLACE PROCEDURE catalog_watch_check AS
  v_print NUMBER;
  v_last NUMBER;
BEGIN
  FOR o IN (SELECT DISTINCT owner FROM catalog_watch) LOOP
    SELECT NVL(SUM(NVL(ORA_HASH(c.table_name || '.' || c.column_name || ':' || c.data_type
                 || ':' || c.data_length || ':' || c.data_scale || ':' || c.nullable), 0)
             + 3 * NVL(ORA_HASH(k.comments), 0) + 7 * NVL(ORA_HASH(t.comments), 0)), 0)
      INTO v_print
      FROM all_tab_columns c
      LEFT JOIN all_col_comments k
        ON k.owner = c.owner AND k.table_name = c.table_name AND k.column_name = c.column_name
      LEFT JOIN all_tab_comments t ON t.owner = c.owner AND t.table_name = c.table_name
      WHERE c.owner = o.owner AND c.column_id IS NOT NULL;
    SELECT MAX(fingerprint) KEEP (DENSE_RANK LAST ORDER BY id) INTO v_last
      FROM catalog_changes WHERE owner = o.owner;
    IF v_last IS NULL OR v_last <> v_print THEN
      INSERT INTO catalog_changes (owner, fingerprint) VALUES (o.owner, v_print);
    END IF;
  END LOOP;
  COMMIT;
END catalog_watch_check;"""

_JOB = f"""BEGIN
  DBMS_SCHEDULER.CREATE_JOB(
    job_name => '{JOB}',
    job_type => 'STORED_PROCEDURE',
    job_action => 'CATALOG_WATCH_CHECK',
    start_date => SYSTIMESTAMP,
    repeat_interval => 'FREQ=MINUTELY;INTERVAL=1',
    enabled => TRUE,
    comments => 'Queues a catalog re-scan when a watched schema''s dictionary changes');
END;"""

CATALOG_WATCH_MIGRATIONS = [
    Migration(
        "m013_catalog_watch",
        [
            Step(
                "table",
                "CATALOG_WATCH",
                """CREATE TABLE catalog_watch (
                owner VARCHAR2(128) NOT NULL,
                user_id VARCHAR2(200 CHAR) NOT NULL,
                agent_id VARCHAR2(200 CHAR) NOT NULL,
                fingerprint VARCHAR2(64) NOT NULL,
                checked_at TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL,
                scanned_at TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL,
                PRIMARY KEY (owner, user_id, agent_id))""",
            ),
            Step(
                "table",
                "CATALOG_CHANGES",
                """CREATE TABLE catalog_changes (
                id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                owner VARCHAR2(128) NOT NULL,
                fingerprint NUMBER NOT NULL,
                detected_at TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL)""",
            ),
            Step("procedure", "CATALOG_WATCH_CHECK", _CHECK),
            Step("job", JOB, _JOB),
        ],
    ),
]


class OracleCatalogWatch(CatalogWatch):
    """:class:`CatalogWatch` with the scheduler job's queue."""

    def queued_since(self, owner: str, since: dt.datetime | None) -> int:
        if since is None:
            rows = self.db.query(
                "SELECT COUNT(*) AS n FROM catalog_changes WHERE owner = :owner", {"owner": owner}
            )
        else:
            rows = self.db.query(
                "SELECT COUNT(*) AS n FROM catalog_changes WHERE owner = :owner"
                " AND detected_at > :since",
                {"owner": owner, "since": self.dialect.time(since)},
            )
        return int(rows[0]["n"])
