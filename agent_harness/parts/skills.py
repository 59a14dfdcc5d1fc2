"""The skills library: prose playbooks surfaced as a manifest and loaded on demand.

A skill is a markdown file (see :mod:`agent_harness.parts.skill_files`): an H1 title, a first
paragraph that is its one-line description (all the model sees in the manifest), a body with
steps and SQL examples, and optional front matter that links it to the tools it unlocks and the
skills it depends on. Skills are ingested into the vector-indexed ``skillbox`` table,
idempotently by content hash (re-ingesting unchanged files embeds nothing), and their links
into ``skill_tools`` / ``skill_dependencies`` (``backend.skill_graph``).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from agent_harness.parts.access import strongest
from agent_harness.parts.memory import content_hash
from agent_harness.parts.skill_files import Skill, ToolGrant, parse_skill, skill_name

__all__ = [
    "Skill",
    "ToolGrant",
    "SkillLibrary",
    "SkillNotFound",
    "Resolution",
    "parse_skill",
    "strongest",
    "PROJECT_SKILLS",
]

PROJECT_SKILLS = Path(__file__).resolve().parents[1] / "playbooks" / "skills"
_skill_name = skill_name


class SkillNotFound(KeyError):
    """No skill with that name; the message lists the closest names."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass
class Resolution:
    """What loading one skill unlocks (:meth:`SkillLibrary.resolve`).

    Attributes:
        skill: The skill asked for.
        skills: Every skill reached (the skill first, then its required dependencies,
            breadth first), without repeats.
        tools: Tool -> the strongest access granted by any reached skill, in the order the
            tools were first reached.
        via: Tool -> the skill that maps it (the first one reached).
        cycles: Each cycle found, as the list of skills around it (``[a, b, a]``).
        missing: Required dependencies that are not stored (reported, not fatal).
    """

    skill: str
    skills: list[str] = field(default_factory=list)
    tools: dict[str, str] = field(default_factory=dict)
    via: dict[str, str] = field(default_factory=dict)
    cycles: list[list[str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


class SkillLibrary:
    """The skills of one harness, stored in the skillbox."""

    def __init__(self, harness):
        self.harness = harness

    # --- ingestion ----------------------------------------------------------------------------
    def ingest(self, folder: Path | str = PROJECT_SKILLS, source: str = "project") -> dict:
        """Ingest every ``*.md`` under a folder (recursively); unchanged files embed nothing.

        A file named ``SKILL.md`` (or README.md) takes its folder's name; other files their stem.
        Each skill's links (tools it unlocks, dependencies, parent) are rewritten every time:
        they cost no embedding.

        Returns:
            Counts: ``added_or_changed``, ``unchanged``, ``skipped`` (files that are not skills,
            with the reason).
        """
        folder = Path(folder)
        if not folder.is_dir():
            raise FileNotFoundError(f"no skills folder at {folder}")
        backend = self.harness.backend
        stored = {r["name"]: r["content_hash"] for r in backend.indexed_rows("skillbox")}
        parsed, changed, unchanged, skipped = [], [], 0, []
        for path in sorted(folder.rglob("*.md")):
            stem = path.parent.name if path.stem.upper() in ("SKILL", "README") else path.stem
            name = stem if source == "project" else f"{source}/{stem}"
            try:
                skill = parse_skill(path.read_text(encoding="utf-8"), name, source, str(path))
            except (ValueError, UnicodeDecodeError) as e:
                skipped.append(f"{path}: {e}")
                continue
            parsed.append(skill)
            digest = content_hash(skill.text)
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
            backend.upsert_indexed("skillbox", skill.name, fields, vector)
        for skill in parsed:
            backend.skill_graph.replace_links(
                skill.name,
                [(g.tool, g.access) for g in skill.tools],
                [(d, True) for d in skill.requires] + [(d, False) for d in skill.optional],
                skill.parent,
            )
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
        return rows[self.find(name, rows)]["body"]

    def count(self) -> int:
        """How many skills are stored."""
        return len(self.harness.backend.indexed_rows("skillbox"))

    # --- links --------------------------------------------------------------------------------
    def resolve(self, name: str) -> Resolution:
        """What loading ``name`` unlocks: its tools and, transitively, those of its REQUIRED
        dependencies (one recursive SQL statement, ``backend.skill_graph.resolve``). Optional
        dependencies are not followed; a cycle is reported in ``cycles`` (and walked once), a
        dependency that is not stored in ``missing``.

        Raises:
            SkillNotFound: No such skill; the message lists close names.
        """
        rows = self.harness.backend.skill_graph.resolve(self.find(name))
        found = Resolution(skill=rows[0]["skill"] if rows else str(name))
        for row in rows:
            skill = row["skill"]
            if row["cycle"]:
                found.cycles.append([s for s in row["path"].split("|") if s])
                continue
            if not row["known"]:
                if skill not in found.missing:
                    found.missing.append(skill)
                continue
            if skill not in found.skills:
                found.skills.append(skill)
            tool = row["tool_name"]
            if tool is not None:
                found.tools[tool] = strongest([found.tools.get(tool), row["access_level"]])
                found.via.setdefault(tool, skill)
        return found

    def links(self) -> list[dict]:
        """Every skill -> tool link: skill_name, tool_name, access_level."""
        return self.harness.backend.skill_graph.links()

    def dependencies(self) -> list[dict]:
        """Every dependency: skill_name, depends_on, required."""
        return self.harness.backend.skill_graph.dependencies()

    def unlockers(self, tool: str, among: list[str] | None = None) -> list[str]:
        """The skills that map ``tool`` directly (only those in ``among`` when given)."""
        names = sorted({r["skill_name"] for r in self.links() if r["tool_name"] == tool})
        return [n for n in names if among is None or n in among]

    def tree(self) -> dict[str | None, list[str]]:
        """Skills by parent (``None``: top-level), each list sorted by name."""
        grouped: dict[str | None, list[str]] = {}
        for name, parent in self.harness.backend.skill_graph.parents().items():
            grouped.setdefault(parent, []).append(name)
        return {k: sorted(v) for k, v in grouped.items()}

    def find(self, name: str, rows: dict | None = None) -> str:
        """The stored name of a skill as a person or model wrote it (``Customs hold
        investigation`` -> ``customs-hold-investigation``).

        Raises:
            SkillNotFound: No such skill; the message lists close names.
        """
        rows = (
            rows
            if rows is not None
            else {r["name"]: r for r in self.harness.backend.indexed_rows("skillbox")}
        )
        key = str(name) if str(name) in rows else skill_name(str(name))
        if key not in rows:
            close = difflib.get_close_matches(str(name), list(rows), n=3, cutoff=0.4)
            hint = f" Did you mean: {', '.join(close)}?" if close else " Call list_skills first."
            raise SkillNotFound(f"no skill named {name!r}.{hint}")
        return key
