"""Documents over the relational data (embedded backend): voyage_dv and vessel_dv round-trip,
updates write the rows, a stale etag is refused, fields the document does not let you change
stay as they are (checked in the database, by the view's trigger), and an identity's policy
holds through them."""

from __future__ import annotations

import copy
import json
import shutil

import pytest

from agent_harness.backends.embedded.documents import DocumentConnection
from agent_harness.backends.errors import BackendError, DocumentConflict
from agent_harness.backends.roles.documents import DOCUMENTS
from agent_harness.foundation.identity import Identity

ANA = {"user": "ana", "roles": ["analyst"], "regions": ["ATLANTIC"]}


@pytest.fixture(scope="module")
def folder(tmp_path_factory, template):
    data_dir = tmp_path_factory.mktemp("documents")
    shutil.copytree(template, data_dir, dirs_exist_ok=True)
    return data_dir


@pytest.fixture(scope="module")
def h(folder):
    import agent_harness

    harness = agent_harness.connect(backend="embedded", data_dir=folder)
    yield harness
    harness.close()


@pytest.fixture(scope="module")
def ana(folder, h):
    import agent_harness

    harness = agent_harness.connect(backend="embedded", data_dir=folder, identity=ANA)
    yield harness
    harness.close()


def rows(h, sql: str, **binds) -> list[dict]:
    out = json.loads(h.tools.call("run_sql", {"sql": sql, "binds": binds, "max_rows": 1000}))
    assert "error" not in out, out
    return [dict(zip(out["columns"], r)) for r in out["rows"]]


def an_atlantic_voyage(h) -> int:
    return rows(h, "SELECT MIN(voyage_id) AS v FROM voyages WHERE ocean_region = 'ATLANTIC'")[0][
        "v"
    ]


def test_a_voyage_document_is_assembled_from_its_rows(h):
    vid = an_atlantic_voyage(h)
    doc = h.documents.get("voyage_dv", vid)
    voyage = rows(h, "SELECT * FROM voyages WHERE voyage_id = :v", v=vid)[0]
    assert doc["_id"] == vid and doc["voyageCode"] == voyage["voyage_code"]
    assert doc["etaDate"] == voyage["eta_date"] and doc["oceanRegion"] == "ATLANTIC"
    boxes = rows(h, "SELECT container_no FROM containers WHERE voyage_id = :v ORDER BY 1", v=vid)
    assert [c["containerNo"] for c in doc["containers"]] == [b["container_no"] for b in boxes]
    items = rows(
        h,
        "SELECT i.item_id, i.unit_value_cents FROM cargo_items i JOIN containers c"
        " ON c.container_no = i.container_no WHERE c.voyage_id = :v ORDER BY i.item_id",
        v=vid,
    )
    in_doc = sorted(
        (i["itemId"], i["unitValueCents"]) for c in doc["containers"] for i in c["items"]
    )
    assert in_doc == [(r["item_id"], r["unit_value_cents"]) for r in items]
    assert len(doc["_metadata"]["etag"]) == 32


def test_run_sql_reads_the_document_view_too(h):
    vid = an_atlantic_voyage(h)
    found = rows(h, "SELECT data FROM voyage_dv WHERE id = :v", v=vid)
    assert json.loads(found[0]["data"]) == h.documents.get("voyage_dv", vid)


def test_an_update_round_trips_to_the_rows_and_changes_the_etag(h):
    vid = an_atlantic_voyage(h)
    before = h.documents.get("voyage_dv", vid)
    changed = copy.deepcopy(before)
    changed["status"] = "DELAYED"
    changed["etaDate"] = "2025-07-01"
    changed["containers"][0]["status"] = "CUSTOMS_HOLD"
    try:
        stored = h.documents.update("voyage_dv", changed)
        assert stored["status"] == "DELAYED" and stored["etaDate"] == "2025-07-01"
        assert stored["_metadata"]["etag"] != before["_metadata"]["etag"]
        row = rows(h, "SELECT status, eta_date FROM voyages WHERE voyage_id = :v", v=vid)[0]
        assert row == {"status": "DELAYED", "eta_date": "2025-07-01"}
        box = changed["containers"][0]["containerNo"]
        assert rows(h, "SELECT status FROM containers WHERE container_no = :c", c=box) == [
            {"status": "CUSTOMS_HOLD"}
        ]
        unchanged = {k: v for k, v in stored.items() if k not in ("status", "etaDate", "_metadata")}
        assert unchanged == {
            k: v for k, v in before.items() if k not in ("status", "etaDate", "_metadata")
        } | {"containers": stored["containers"]}
    finally:
        restore = h.documents.get("voyage_dv", vid)
        restore.update(status=before["status"], etaDate=before["etaDate"])
        restore["containers"][0]["status"] = before["containers"][0]["status"]
        h.documents.update("voyage_dv", restore)
    assert h.documents.get("voyage_dv", vid) == before  # same content, same etag


def test_a_stale_etag_is_refused(h):
    vid = an_atlantic_voyage(h)
    first = h.documents.get("voyage_dv", vid)
    original = first["status"]
    second = copy.deepcopy(first)
    first["status"] = "DELAYED"
    h.documents.update("voyage_dv", first)
    try:
        second["status"] = "COMPLETED"
        with pytest.raises(DocumentConflict, match="changed since it was read"):
            h.documents.update("voyage_dv", second)
        assert h.documents.get("voyage_dv", vid)["status"] == "DELAYED"
    finally:
        restore = h.documents.get("voyage_dv", vid)
        restore["status"] = original
        h.documents.update("voyage_dv", restore)


@pytest.mark.parametrize(
    ("path", "value"),
    [(("voyageCode",), "X-1"), (("containers", 0, "items", 0, "unitValueCents"), 1)],
)
def test_a_field_the_document_does_not_let_you_change_is_refused(h, path, value):
    vid = an_atlantic_voyage(h)
    doc = h.documents.get("voyage_dv", vid)
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(BackendError, match="cannot be changed"):
        h.documents.update("voyage_dv", doc)
    # the database refuses it too, without the library's check in front
    connection = DocumentConnection(h.backend.supplychain_path)
    try:
        with pytest.raises(BackendError, match="DOCUMENT_NOUPDATE"):
            connection.update("voyage_dv", doc)
    finally:
        connection.close()


def test_an_update_needs_the_etag_and_a_known_kind(h):
    vid = an_atlantic_voyage(h)
    doc = h.documents.get("voyage_dv", vid)
    doc.pop("_metadata")
    with pytest.raises(BackendError, match="etag"):
        h.documents.update("voyage_dv", doc)
    with pytest.raises(BackendError, match="no document kind"):
        h.documents.get("order_dv", 1)


def test_a_vessel_document_updates_its_flag(h):
    imo = rows(h, "SELECT MIN(imo_number) AS i FROM vessels")[0]["i"]
    doc = h.documents.get("vessel_dv", imo)
    flag = doc["flag"]
    doc["flag"] = "Testland"
    try:
        assert h.documents.update("vessel_dv", doc)["flag"] == "Testland"
        assert rows(h, "SELECT flag FROM vessels WHERE imo_number = :i", i=imo)[0]["flag"] == (
            "Testland"
        )
    finally:
        back = h.documents.get("vessel_dv", imo)
        back["flag"] = flag
        h.documents.update("vessel_dv", back)


def test_the_policy_holds_through_documents(h, ana):
    hidden = rows(h, "SELECT MIN(voyage_id) AS v FROM voyages WHERE ocean_region = 'PACIFIC'")
    hidden_id = hidden[0]["v"]
    assert ana.documents.get("voyage_dv", hidden_id) is None
    stolen = h.documents.get("voyage_dv", hidden_id)
    stolen["status"] = "DELAYED"
    with pytest.raises(BackendError, match="no document"):
        ana.documents.update("voyage_dv", stolen)
    vid = an_atlantic_voyage(h)
    mine = ana.documents.get("voyage_dv", vid)
    assert all(i["unitValueCents"] is None for c in mine["containers"] for i in c["items"])
    values = h.documents.get("voyage_dv", vid)
    before = mine["status"]
    mine["status"] = "DELAYED"
    try:
        ana.documents.update("voyage_dv", mine)  # a masked value sent back as null stays
        after = h.documents.get("voyage_dv", vid)
        assert after["containers"] == values["containers"] and after["status"] == "DELAYED"
    finally:
        back = ana.documents.get("voyage_dv", vid)
        back["status"] = before
        ana.documents.update("voyage_dv", back)
    vessel = ana.documents.get("vessel_dv", stolen["vessel"]["imoNumber"])
    assert all(v["oceanRegion"] == "ATLANTIC" for v in vessel["voyages"])


def test_every_document_kind_has_an_updatable_field_and_keys_for_its_parts():
    for document in DOCUMENTS.values():
        assert document.root.updatable
        for part in document.parts:
            keys = {f.column for f in part.fields} | {document.key}
            assert part.order is None or part.order in keys


def test_documents_need_no_identity_to_be_read_but_follow_one(folder):
    connection = DocumentConnection(folder / "supplychain.db", Identity.of(ANA))
    try:
        regions = {
            json.loads(d)["oceanRegion"]
            for (d,) in connection.conn.execute("SELECT data FROM voyage_dv")
        }
        assert regions == {"ATLANTIC"}
    finally:
        connection.close()
