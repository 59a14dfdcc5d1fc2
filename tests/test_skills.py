"""Skills: the project's playbooks, idempotent ingestion, manifest, load, optional import."""

from __future__ import annotations

import json
import re

import pytest

from agent_harness.parts.skills import PROJECT_SKILLS, SkillLibrary, parse_skill

FILES = sorted(PROJECT_SKILLS.glob("*.md"))


def test_at_least_twelve_project_skills():
    assert len(FILES) >= 12


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_skill_has_title_description_and_sql(path):
    text = path.read_text(encoding="utf-8")
    skill = parse_skill(text, path.stem)
    assert skill.body.startswith("# ")
    assert 20 < len(skill.description) < 300
    assert "```sql" in text
    for block in re.findall(r"```sql\n(.*?)```", text, re.S):
        assert "supplychain." in block.lower()
        assert " limit " not in f" {block.lower()} "


def test_ingest_is_idempotent_by_content_hash(harness, tmp_path):
    folder = tmp_path / "skills"
    folder.mkdir()
    (folder / "one.md").write_text("# One\n\nFirst skill about ports.\n\n## Steps\n1. x\n")
    (folder / "two.md").write_text("# Two\n\nSecond skill about cargo.\n")
    (folder / "broken.md").write_text("no title here\n")
    library = SkillLibrary(harness)
    first = library.ingest(folder, source="t")
    assert first["added_or_changed"] == 2 and len(first["skipped"]) == 1
    assert library.ingest(folder, source="t")["added_or_changed"] == 0
    (folder / "two.md").write_text("# Two\n\nSecond skill about cargo, changed.\n")
    again = library.ingest(folder, source="t")
    assert again["added_or_changed"] == 1 and again["unchanged"] == 1
    assert "changed" in library.load("t-two")
    harness.backend.delete_indexed("skillbox", ["t-one", "t-two"])


def test_manifest_ranks_by_meaning_and_load_returns_the_body(harness):
    manifest = harness.skills.manifest("which containers are stuck in customs", k=3)
    assert len(manifest) == 3 and set(manifest[0]) == {"name", "description"}
    assert "customs" in manifest[0]["name"]
    body = harness.skills.load(manifest[0]["name"])
    assert body.startswith("# ") and "```sql" in body


def test_load_unknown_skill_suggests_names(harness):
    out = json.loads(harness.tools.call("load_skill", {"name": "customs-hold"}))
    assert "no skill named" in out["error"] and "customs-hold-investigation" in out["error"]


def test_list_skills_tool(harness):
    listed = json.loads(harness.tools.call("list_skills", {}))
    assert len(listed) >= 10
    ranked = json.loads(harness.tools.call("list_skills", {"query": "reefer temperature", "k": 2}))
    assert len(ranked) == 2 and "reefer" in ranked[0]["name"]


def test_front_matter_skills_parse():
    skill = parse_skill(
        "---\nname: x\ndescription: From front matter.\n---\n# Title\n\nBody.\n", "SKILL"
    )
    assert skill.title == "Title" and skill.description == "From front matter."


def test_import_from_a_local_archive(harness, tmp_path):
    import zipfile

    from agent_harness.interfaces.skills_import import fetch_skills_folder

    archive = tmp_path / "lib.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("lib/db/tuning/SKILL.md", "# Tuning\n\nHow to tune a slow query.\n")
    with fetch_skills_folder(str(archive)) as folder:
        counts = SkillLibrary(harness).ingest(folder, source="oracle")
    assert counts["added_or_changed"] == 1
    assert "slow query" in harness.skills.load("oracle-tuning")
    harness.backend.delete_indexed("skillbox", ["oracle-tuning"])
    with pytest.raises(ValueError):
        with fetch_skills_folder(str(tmp_path / "missing")):
            pass
