"""The skills library: prose playbooks surfaced as a manifest and loaded on demand.

A skill is a markdown file: an H1 title, a first paragraph that is its one-line description (all
the model sees in the manifest), and a body with steps and SQL examples. Skills are ingested
into the vector-indexed ``skillbox`` table, idempotently by content hash: re-ingesting unchanged
files writes nothing.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from agent_harness.memory import content_hash

__all__ = ["Skill", "SkillLibrary", "SkillNotFound", "parse_skill", "PROJECT_SKILLS"]

from agent_harness.config import PROJECT_ROOT

PROJECT_SKILLS = PROJECT_ROOT / "setup" / "skills"
_NAME = re.compile(r"[^a-z0-9]+")


class SkillNotFound(KeyError):
    """No skill with that name; the message lists the closest names."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Skill:
    """One playbook."""

    name: str
    title: str
    description: str
    body: str
    source: str = "project"
    path: str | None = None


def _skill_name(text: str) -> str:
    return _NAME.sub("-", text.lower()).strip("-")


def parse_skill(text: str, name: str, source: str = "project", path: str | None = None) -> Skill:
    """Parse a markdown playbook: H1 title, first paragraph = description, the rest the body.

    Raises:
        ValueError: No H1 title or no description paragraph.
    """
    lines = text.replace("\r\n", "\n").split("\n")
    # Front matter (--- ... ---), as some skills libraries use, may carry name/description.
    front: dict[str, str] = {}
    if lines and lines[0].strip() == "---" and "---" in [s.strip() for s in lines[1:]]:
        end = 1 + [s.strip() for s in lines[1:]].index("---")
        for line in lines[1:end]:
            if ":" in line:
                key, value = line.split(":", 1)
                front[key.strip().lower()] = value.strip().strip("\"'")
        lines = lines[end + 1 :]
    title = next((s[2:].strip() for s in lines if s.startswith("# ")), front.get("name", ""))
    if not title:
        raise ValueError(f"skill {name!r} has no '# Title' line")
    after = (
        lines[[s.startswith("# ") for s in lines].index(True) + 1 :]
        if any(s.startswith("# ") for s in lines)
        else lines
    )
    paragraph: list[str] = []
    for line in after:
        if not line.strip():
            if paragraph:
                break
            continue
        if line.startswith("#") or line.startswith("```"):
            break
        paragraph.append(line.strip())
    description = front.get("description") or " ".join(paragraph)
    if not description:
        raise ValueError(f"skill {name!r} has no description paragraph under its title")
    return Skill(_skill_name(name), title, description, text, source, path)


class SkillLibrary:
    """The skills of one harness, stored in the skillbox."""

    def __init__(self, harness):
        self.harness = harness

    # --- ingestion ----------------------------------------------------------------------------
    def ingest(self, folder: Path | str = PROJECT_SKILLS, source: str = "project") -> dict:
        """Ingest every ``*.md`` under a folder (recursively); unchanged files write nothing.

        A file named ``SKILL.md`` (or README.md) takes its folder's name; other files their stem.

        Returns:
            Counts: ``added_or_changed``, ``unchanged``, ``skipped`` (files that are not skills).
        """
        folder = Path(folder)
        if not folder.is_dir():
            raise FileNotFoundError(f"no skills folder at {folder}")
        stored = {
            r["name"]: r["content_hash"] for r in self.harness.backend.indexed_rows("skillbox")
        }
        changed, unchanged, skipped = [], 0, []
        for path in sorted(folder.rglob("*.md")):
            stem = path.parent.name if path.stem.upper() in ("SKILL", "README") else path.stem
            name = stem if source == "project" else f"{source}/{stem}"
            try:
                skill = parse_skill(path.read_text(encoding="utf-8"), name, source, str(path))
            except (ValueError, UnicodeDecodeError) as e:
                skipped.append(f"{path}: {e}")
                continue
            digest = content_hash(skill.body)
            if stored.get(skill.name) == digest:
                unchanged += 1
            else:
                changed.append((skill, digest))
        vectors = (
            self.harness.embed([f"{s.title}: {s.description}" for s, _ in changed])
            if changed
            else []
        )
        for (skill, digest), vector in zip(changed, vectors):
            fields = {
                "title": skill.title,
                "description": skill.description,
                "body": skill.body,
                "source": skill.source,
                "path": skill.path,
                "content_hash": digest,
            }
            self.harness.backend.upsert_indexed("skillbox", skill.name, fields, vector)
        return {"added_or_changed": len(changed), "unchanged": unchanged, "skipped": skipped}

    # --- reading ------------------------------------------------------------------------------
    def list(self, query: str | None = None, k: int | None = None) -> list[dict]:
        """Skill names and descriptions: all (by name), or the k nearest to a query."""
        if query:
            return self.manifest(query, k=k or 10)
        rows = self.harness.backend.indexed_rows("skillbox")
        rows = rows[:k] if k else rows
        return [{"name": r["name"], "description": r["description"]} for r in rows]

    def manifest(self, query: str, k: int = 5) -> list[dict]:
        """The per-turn manifest: the top-k skills for a query, name + one-line description."""
        k = max(0, int(k))
        if not k:
            return []
        vector = self.harness.embed([str(query or "")])[0]
        names = self.harness.backend.nearest_indexed("skillbox", vector, k, str(query or ""))
        by_name = {r["name"]: r for r in self.harness.backend.indexed_rows("skillbox")}
        return [
            {"name": n, "description": by_name[n]["description"]} for n in names if n in by_name
        ]

    def load(self, name: str) -> str:
        """A skill's whole markdown body.

        Raises:
            SkillNotFound: No such skill; the message lists close names.
        """
        rows = {r["name"]: r for r in self.harness.backend.indexed_rows("skillbox")}
        key = _skill_name(str(name)) if str(name) not in rows else str(name)
        if key not in rows:
            close = difflib.get_close_matches(str(name), list(rows), n=3, cutoff=0.4)
            hint = f" Did you mean: {', '.join(close)}?" if close else " Call list_skills first."
            raise SkillNotFound(f"no skill named {name!r}.{hint}")
        return rows[key]["body"]

    def count(self) -> int:
        """How many skills are stored."""
        return len(self.harness.backend.indexed_rows("skillbox"))
