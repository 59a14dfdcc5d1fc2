"""A skill file: markdown with optional YAML front matter that links it to tools and skills.

::

    ---
    tools:                      # what loading this skill unlocks
      - vessel_position         #   read access (the default)
      - name: remember          #   or with the access it grants: read, write or execute
        access: write
    requires: [schema-discovery]          # loaded with it: their tools are unlocked too
    optional: [calculations-with-exec-js] # suggested, not followed
    parent: vessel-operations             # groups it under another skill in the manifest
    ---
    # Vessel Location and ETA

    Use when ... (the first paragraph is the one-line description the model sees)

The front matter is parsed by ``python-frontmatter`` (YAML), then checked by pydantic, so a
typo is reported with the file and the field rather than silently ignored. Agent Skills'
``SKILL.md`` fields are understood too: ``name``, ``description`` and ``allowed-tools`` (a
list, or names separated by spaces or commas, read as ``tools`` with read access).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import frontmatter
import pydantic

from agent_harness.parts.access import ACCESS_LEVELS

__all__ = ["Skill", "ToolGrant", "parse_skill", "skill_name"]

_NAME = re.compile(r"[^a-z0-9]+")


def skill_name(text: str) -> str:
    """The stored form of a skill name: lower case, words joined by ``-``."""
    return _NAME.sub("-", str(text).lower()).strip("-")


@dataclass(frozen=True)
class ToolGrant:
    """A tool a skill unlocks and the access it grants (``read``, ``write`` or ``execute``)."""

    tool: str
    access: str = "read"


@dataclass(frozen=True)
class Skill:
    """One playbook and its links.

    Attributes:
        name: Its stored name (``vessel-location-and-eta``).
        title: The H1 title.
        description: The one line the model sees in the manifest.
        body: The markdown the model reads when it loads the skill (front matter removed).
        source: ``project`` or the name of an imported library.
        path: The file it came from.
        tools: What loading it unlocks, with the access granted.
        requires: Skills loaded with it (their tools are unlocked too).
        optional: Skills it suggests (not followed).
        parent: The skill it is grouped under, or None.
        text: The whole file (front matter included): its hash decides re-ingestion.
    """

    name: str
    title: str
    description: str
    body: str
    source: str = "project"
    path: str | None = None
    tools: tuple[ToolGrant, ...] = ()
    requires: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    parent: str | None = None
    text: str = field(default="", repr=False)


class _Grant(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    name: str = pydantic.Field(min_length=1, max_length=64)
    access: str = "read"

    @pydantic.field_validator("access")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in ACCESS_LEVELS:
            raise ValueError(f"access must be one of {', '.join(ACCESS_LEVELS)}")
        return value


class _FrontMatter(pydantic.BaseModel):
    """The keys a skill's front matter may hold (others are kept but ignored)."""

    model_config = pydantic.ConfigDict(extra="allow", populate_by_name=True)
    name: str | None = None
    description: str | None = None
    tools: list[str | _Grant] = []
    allowed_tools: list[str] | str | None = pydantic.Field(None, alias="allowed-tools")
    requires: list[str] = []
    optional: list[str] = []
    parent: str | None = None

    def grants(self) -> list[ToolGrant]:
        found = [
            ToolGrant(t) if isinstance(t, str) else ToolGrant(t.name, t.access) for t in self.tools
        ]
        allowed = self.allowed_tools
        if isinstance(allowed, str):
            allowed = [w for w in re.split(r"[\s,]+", allowed) if w]
        found += [ToolGrant(t) for t in allowed or []]
        seen: dict[str, ToolGrant] = {}
        for grant in found:  # a tool listed twice keeps its strongest grant
            old = seen.get(grant.tool)
            if old is None or ACCESS_LEVELS.index(grant.access) > ACCESS_LEVELS.index(old.access):
                seen[grant.tool] = grant
        return list(seen.values())


def _front_matter(text: str, name: str) -> tuple[_FrontMatter, str]:
    try:
        post = frontmatter.loads(text)
    except Exception as e:  # YAML syntax errors come in several classes
        raise ValueError(f"skill {name!r}: its front matter is not valid YAML: {e}") from None
    try:
        meta = _FrontMatter.model_validate(post.metadata)
    except pydantic.ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'front matter'}: {err['msg']}"
            for err in e.errors()
        )
        raise ValueError(f"skill {name!r}: bad front matter ({problems})") from None
    return meta, post.content


def _title_and_description(lines: list[str]) -> tuple[str, str]:
    titled = [i for i, s in enumerate(lines) if s.startswith("# ")]
    title = lines[titled[0]][2:].strip() if titled else ""
    paragraph: list[str] = []
    for line in lines[titled[0] + 1 :] if titled else lines:
        if not line.strip():
            if paragraph:
                break
            continue
        if line.startswith("#") or line.startswith("```"):
            break
        paragraph.append(line.strip())
    return title, " ".join(paragraph)


def parse_skill(text: str, name: str, source: str = "project", path: str | None = None) -> Skill:
    """Parse a skill file: front matter (optional), H1 title, first paragraph = description.

    Dependency and parent names are stored names; in an imported library (``source`` is not
    ``project``) they refer to skills of the same library and get its prefix.

    Raises:
        ValueError: No title, no description, or front matter that is not valid (the message
            names the skill and the field).
    """
    text = text.replace("\r\n", "\n")
    meta, body = _front_matter(text, name)
    title, paragraph = _title_and_description(body.split("\n"))
    title = title or (meta.name or "")
    if not title:
        raise ValueError(f"skill {name!r} has no '# Title' line")
    description = (meta.description or paragraph).strip()
    if not description:
        raise ValueError(f"skill {name!r} has no description paragraph under its title")

    def linked(other: str) -> str:
        return skill_name(other if source == "project" else f"{source}/{other}")

    return Skill(
        name=skill_name(name),
        title=title,
        description=description,
        body=body.strip() + "\n",
        source=source,
        path=path,
        tools=tuple(meta.grants()),
        requires=tuple(dict.fromkeys(linked(s) for s in meta.requires)),
        optional=tuple(dict.fromkeys(linked(s) for s in meta.optional)),
        parent=linked(meta.parent) if meta.parent else None,
        text=text,
    )
