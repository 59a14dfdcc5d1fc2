"""Issue 26 on the stand-in (nothing here ran on Oracle): who may change SUPPLYCHAIN, what the
harness owner's dictionary views list, and the grants behind the duality views.

The fake's privileges come from the GRANT statements setup sends (``02_users.sh`` and the
backend's own) and the documented content of DB_DEVELOPER_ROLE (``tests/oracle_privileges.py``);
every test here asserts Oracle's documented rule, not the text of the statements.
"""

from __future__ import annotations

import pytest

from agent_harness.backends import BackendError
from agent_harness.backends.oracle import OracleBackend
from agent_harness.backends.oracle.documents import duality_view_sql
from agent_harness.backends.roles.documents import (
    DOCUMENTS,
    Document,
    DocumentField,
    DocumentPart,
)
from agent_harness.foundation.identity import Identity
from tests import oracle_flows as flows
from tests.oracle_fake import FakeOracle, World, oracle_error
from tests.oracle_privileges import Privileges, Refusal, setup_script_grants

ANA = Identity.of({"user": "ana", "roles": ["analyst"], "regions": ["ATLANTIC"]})


@pytest.fixture
def fake(monkeypatch):
    yield from flows.fake_driver(monkeypatch)


@pytest.fixture
def backend(fake, tmp_path):
    b = OracleBackend(flows.settings(tmp_path))
    yield b
    b.close()


def test_the_start_up_script_gives_the_harness_db_developer_role_and_no_any_privilege(tmp_path):
    privileges = setup_script_grants(flows.settings(tmp_path))
    held = privileges.system_privileges("WORKSHOP")
    assert {"CREATE TABLE", "CREATE PROCEDURE", "CREATE JOB", "CREATE SESSION"} <= held
    assert not [p for p in held if " ANY " in p]  # no ANY privilege: SUPPLYCHAIN is not its own
    assert privileges.system_privileges("WORKSHOP_RO") == {"CREATE SESSION"}


def test_a_select_only_user_cannot_write_supplychain(fake):
    cur = fake.connect(user="workshop").cursor()
    cur.execute("SELECT COUNT(*) AS n FROM supplychain.cargo_items")  # granted by the loader
    for sql in (
        "DELETE FROM supplychain.cargo_items WHERE container_no = 'X'",
        "UPDATE supplychain.ports SET berths = berths + 1",
        "INSERT INTO supplychain.carriers (carrier_id, name) VALUES (1, 'x')",
        "CREATE TABLE supplychain.chk_port_fees (port_code VARCHAR(5))",
        "COMMENT ON TABLE supplychain.ports IS 'x'",
    ):
        with pytest.raises(Exception, match="ORA-01031"):
            cur.execute(sql)
    with pytest.raises(Exception, match="ORA-00942"):  # no privilege at all on it
        cur.execute("SELECT COUNT(*) FROM supplychain.identity_tickets")


def test_the_read_only_user_reads_and_writes_nothing(fake):
    cur = fake.connect(user="workshop_ro").cursor()
    cur.execute("ALTER SESSION SET CURRENT_SCHEMA = SUPPLYCHAIN")
    cur.execute("SELECT COUNT(*) AS n FROM voyages")
    with pytest.raises(Exception, match="ORA-01031"):
        cur.execute("DELETE FROM voyages")
    with pytest.raises(Exception, match="ORA-01031"):
        cur.execute("CREATE TABLE workshop_doctor_probe (x NUMBER)")


def test_workshop_changes_to_supplychain_run_as_its_owner(fake, backend):
    # solutions/09's check cells: add and remove rows, a table, a column
    assert backend.supplychain_execute("UPDATE supplychain.ports SET berths = berths + 1") >= 0
    backend.supplychain_execute(
        "DELETE FROM supplychain.voyages WHERE voyage_id IN (:v, :w)", {"v": 1, "w": 2}
    )
    backend.supplychain_execute("CREATE TABLE supplychain.chk_port_fees (port_code VARCHAR(5))")
    backend.supplychain_execute("ALTER TABLE supplychain.chk_port_fees ADD fee_usd NUMBER")
    backend.supplychain_execute("DROP TABLE IF EXISTS supplychain.chk_port_fees")
    assert not fake.world.refusals
    writers = {s.user for s in fake.statements(r"supplychain\.(ports|voyages|chk_port_fees)")}
    assert writers == {"supplychain"}


def test_a_table_the_workshop_creates_is_listed_in_the_harness_owners_dictionary(fake, backend):
    # ALL_TAB_COLUMNS lists what is "accessible to the current user"; in the scheduler job's
    # definer's-rights procedure only DIRECT grants count (roles are off there).
    privileges = fake.world.privileges
    assert not privileges.accessible("WORKSHOP", "SUPPLYCHAIN", "CHK_PORT_FEES", True)
    backend.supplychain_execute("CREATE TABLE supplychain.chk_port_fees (port_code VARCHAR(5))")
    for definer_rights in (False, True):
        assert privileges.accessible("WORKSHOP", "SUPPLYCHAIN", "CHK_PORT_FEES", definer_rights)
    assert privileges.accessible("WORKSHOP_RO", "SUPPLYCHAIN", "CHK_PORT_FEES")
    backend.supplychain_execute("DROP TABLE supplychain.chk_port_fees")
    assert not privileges.accessible("WORKSHOP", "SUPPLYCHAIN", "CHK_PORT_FEES")


def test_a_role_grant_does_not_reach_a_definer_rights_unit():
    privileges = Privileges()
    privileges.grant_system("APP_ROLE_HOLDER", ["DB_DEVELOPER_ROLE"])
    assert privileges.object_privileges("APP_ROLE_HOLDER", "SYS", "DBMS_RLS")  # in a session
    assert not privileges.object_privileges(
        "APP_ROLE_HOLDER", "SYS", "DBMS_RLS", roles_enabled=False
    )
    assert not privileges.accessible("APP_ROLE_HOLDER", "SYS", "DBMS_RLS", definer_rights=True)


def test_supplychain_execute_refuses_another_schema_and_reports_oracles_error(fake, backend):
    with pytest.raises(BackendError, match="its own schema"):
        backend.supplychain_execute("CREATE TABLE workshop.x (a NUMBER)")
    fake.answer(r"^DELETE FROM supplychain\.ports", error=oracle_error("ORA-02292: child"))
    with pytest.raises(BackendError, match="ORA-02292"):
        backend.supplychain_execute("DELETE FROM supplychain.ports")
    owner = [c for c in fake.connections if c.user == "supplychain"][-1]
    assert owner.rollbacks >= 1


def test_querying_a_duality_view_takes_select_with_grant_option(fake):
    # JSON-Relational Duality Developer's Guide 23, 4.3: SELECT WITH GRANT OPTION to query
    ro = fake.connect(user="workshop_ro").cursor()
    ro.execute("SELECT JSON_SERIALIZE(d.data) AS data FROM supplychain.voyage_dv d")
    owner = fake.connect(user="workshop").cursor()
    owner.execute("SELECT JSON_SERIALIZE(d.data) AS data FROM supplychain.voyage_dv d")
    owner.execute(
        "UPDATE supplychain.voyage_dv d SET d.data = :doc WHERE JSON_VALUE(d.data, '$._id') = 1",
        {"doc": "{}"},
    )
    without_option = World(Privileges())
    without_option.privileges.duality_views.add(("SUPPLYCHAIN", "VOYAGE_DV"))
    without_option.privileges.grant_object(
        "WORKSHOP_RO", "SUPPLYCHAIN", "VOYAGE_DV", ["SELECT"], option=False
    )
    plain = FakeOracle(world=without_option).connect(user="workshop_ro").cursor()
    with pytest.raises(Exception, match="ORA-01031.*WITH GRANT OPTION"):
        plain.execute("SELECT JSON_SERIALIZE(d.data) AS data FROM supplychain.voyage_dv d")


def test_no_duality_view_writes_a_table_with_a_select_only_policy():
    # Restrictions for JSON-Relational Duality Views: VPD on an underlying table is supported
    # only if the policy covers every statement type; column masking is SELECT-only.
    for document in DOCUMENTS.values():
        duality_view_sql(document)  # the project's own documents pass
    items = DocumentPart(
        "cargo_items", "i", (DocumentField("unitValueCents", "unit_value_cents", True),)
    )
    with pytest.raises(ValueError, match="SELECT-only masking policy"):
        duality_view_sql(Document("items_dv", "item_id", items))


def test_the_row_policies_cover_every_statement_type_on_the_duality_views_tables(fake, backend):
    import re

    from agent_harness.backends.roles.access_rules import ROW_POLICIES

    backend.supplychain.install_policy()
    [block] = [s.sql for s in fake.statements(r"DBMS_RLS\.ADD_POLICY")][-1:]
    # the block as DBMS_RLS receives it: each call's object and statement types
    row_types = re.search(r"IF p_column IS NULL THEN.*?statement_types => '([^']+)'", block, re.S)
    covered = {t.strip() for t in row_types.group(1).split(",")}
    assert covered == {"SELECT", "INSERT", "UPDATE", "DELETE"}
    in_views = {part.table for d in DOCUMENTS.values() for part in d.parts}
    assert set(ROW_POLICIES) & in_views  # the policies do sit under the views


def test_the_read_only_user_can_read_a_document_as_an_identity(fake, tmp_path):
    fake.answer(r"supplychain\.voyage_dv d WHERE", [{"DATA": '{"_id": 9}'}])
    guarded = OracleBackend(flows.settings(tmp_path), ANA)
    try:
        assert guarded.documents.get("voyage_dv", 9)["_id"] == 9
    finally:
        guarded.close()
    assert not fake.world.refusals


def test_a_refusal_is_recorded_with_the_user_and_the_statement():
    fake = FakeOracle()
    cur = fake.connect(user="workshop").cursor()
    with pytest.raises(Exception, match="ORA-01031"):
        cur.execute("DELETE FROM supplychain.voyages")
    [(user, error, sql)] = fake.world.refusals
    assert (user, sql) == ("workshop", "DELETE FROM supplychain.voyages")
    assert error.startswith("ORA-01031")
    with pytest.raises(Refusal):
        fake.world.privileges.check("workshop", "DROP TABLE supplychain.voyages")
