"""A generated catalogue of 1,114 tools across 42 domains, and questions with known answers.

Deterministic (seeded), built at run time from the hand-written seed ``tool_catalog_seed.txt``,
never stored. Each domain has entities (with synonyms a user might say instead, and a few
fields) and, for each entity, seven to ten of twelve operations (get, list, create, update,
delete, search, export, count, share, archive, restore, duplicate); each domain adds special
tools written by hand (``convert_currency``-like: ``get_directions``, ``freezeCard``, ...).
Names come in the styles public catalogues mix: ``snake_case``, ``camelCase``, ``kebab-case``,
with and without vendor prefixes (``gh_``, ``stripe_``, ``zoom``). Descriptions and argument
descriptions are templated, several phrasings per operation.

Questions are written as users ask: another verb ("pull up", "get rid of"), half the time a
synonym of the entity ("bill" for invoice), a concrete value (an id, a name, a topic), never a
copy of the description. A synonym that two entities share is never used, and an entity
name several domains use ("order", "message") is said with a synonym or its domain, so every
question has one right answer a person could find. About one question in nine needs two
tools ("... and then ..."). Used by ``bench_tool_retrieval.py`` and, at 200 tools, by
``tests/test_tool_retrieval_eval.py``.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

__all__ = ["generate", "read_seed"]

SEED_FILE = Path(__file__).with_name("tool_catalog_seed.txt")
FIRST_NAMES = "Ana Ben Chen Dara Eli Fatima Gus Hana Ivan Jo Kofi Lena Max Nia Omar Pia".split()
TOPICS = [
    "Q3 launch",
    "the Berlin office",
    "holiday plans",
    "the Acme account",
    "the rebrand",
    "solar panels",
    "the summer party",
    "Project Falcon",
    "the Oslo trip",
    "onboarding",
]


def read_seed(path: Path = SEED_FILE) -> tuple[dict, dict]:
    """``(ops, domains)`` from the seed file: ops by key as (verb, argument kind,
    descriptions, questions); domains by name as (style, prefix, {entity: (synonyms,
    fields)}, [(name, description, arguments, question)])."""
    records: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if line[0].isspace():
            records[-1] += " " + line.strip()
        else:
            records.append(line.strip())
    ops, domains = {}, {}
    for record in records:
        kind, _, rest = record.partition(" ")
        parts = [p.strip() for p in rest.split("|")]
        if kind == "op":
            key, verb, arguments = parts[0].split()
            ops[key] = (verb, arguments, parts[1].split(" / "), parts[2].split(" / "))
        elif kind == "domain":
            name, style, *prefix = parts[0].split()
            domains[name] = (style, prefix[0] if prefix else "", {}, [])
            current = domains[name]
        elif kind == "entity":
            synonyms = [s.strip() for s in parts[1].split(",") if s.strip()]
            current[2][parts[0]] = (synonyms, _fields(parts[2]))
        elif kind == "special":
            current[3].append((parts[0], parts[1], _fields(parts[2]), parts[3]))
    return ops, domains


def _fields(text: str) -> list[tuple[str, str]]:
    pairs = [f.partition(":") for f in text.split(";") if f.strip()]
    return [(name.strip(), description.strip()) for name, _, description in pairs]


def _words(name: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)]


def _style(words: list[str], style: str) -> str:
    if style == "camel":
        return words[0] + "".join(w.capitalize() for w in words[1:])
    return ("-" if style == "kebab" else "_").join(words)


def _plural(word: str) -> str:
    if word.endswith(("s", "x", "sh", "ch")):
        return word + "es"
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _plural_phrase(phrase: str) -> str:
    words = phrase.split()
    at = words.index("of") - 1 if "of" in words else len(words) - 1
    return " ".join(_plural(w) if i == at else w for i, w in enumerate(words))


def _schema(fields: list[tuple[str, str]], style: str, required: int) -> dict:
    properties = {}
    for name, description in fields:
        arg = name if style == "kebab" else _style(_words(name), style)
        numeric = re.search(r"minutes|days|quantity|score|stars|size|points|year|limit$", name)
        properties[arg] = {"type": "integer" if numeric else "string", "description": description}
    return {"type": "object", "properties": properties, "required": list(properties)[:required]}


def _unambiguous(domains: dict) -> dict:
    """Per entity: the synonyms only it is called by, and whether its own name is shared."""
    said: dict[str, set] = {}
    for domain, (_, _, entities, _) in domains.items():
        for entity, (synonyms, _) in entities.items():
            for word in [entity.replace("_", " "), *synonyms]:
                for key in (word.lower(), word.lower().split()[-1]):
                    said.setdefault(key, set()).add((domain, entity))
    only = lambda word: len(said[word.lower()]) == 1 and len(said[word.lower().split()[-1]]) == 1  # noqa: E731
    return {
        (domain, entity): (
            [s for s in synonyms if only(s)],
            len(said[entity.replace("_", " ")]) > 1,
        )
        for domain, (_, _, entities, _) in domains.items()
        for entity, (synonyms, _) in entities.items()
    }


def _value(rng: random.Random, entity: str, op: str) -> str:
    if op in ("create", "search", "list", "count", "export"):
        return rng.choice(TOPICS)
    if op == "share":
        return rng.choice(FIRST_NAMES)
    return f"{entity[:3].upper()}-{rng.randint(100, 9999)}"


def _arguments(kind: str, entity: str, fields: list, style: str) -> dict:
    words = entity.replace("_", " ")
    id_field = (f"{entity}_id", f"ID of the {words}")
    shapes = {
        "id": ([id_field], 1),
        "fields": (fields, 1),
        "id+fields": ([(id_field[0], f"ID of the {words} to change"), *fields], 1),
        "query": ([("query", "Words to search for"), ("limit", "Most results")], 1),
        "format": ([("format", "csv, xlsx or pdf"), ("since", "Only records changed after")], 1),
        "share": ([id_field, ("emails", "People to share with"), ("role", "viewer or editor")], 2),
        "filter": (
            [
                (fields[0][0], f"Filter on {fields[0][1].lower()}"),
                ("limit", "Most results"),
                ("cursor", "Page token"),
            ],
            0,
        ),
    }
    chosen, required = shapes[kind]
    return _schema(chosen, style, required)


def _entity_tools(rng, ops, domain, style, prefix, entity, words, fields):
    """The generated tools of one entity, each with one question."""
    synonyms, shared = words
    ewords = entity.replace("_", " ")
    fwords = [" ".join(_words(name)) for name, _ in fields]
    out = []
    for op in rng.sample(sorted(ops), k=rng.randint(7, 10)):
        verb, kind, descriptions, questions = ops[op]
        noun = _plural(entity) if op in ("list", "search", "export", "count") else entity
        name = _style(_words(prefix) + [verb] + _words(noun.replace("_", " ")), style)
        p = _plural_phrase(ewords)
        description = rng.choice(descriptions).format(e=ewords, p=p, f1=fwords[0], f2=fwords[-1])
        # An entity name several domains use is said with a synonym (or its domain's name).
        plain = f"{domain.replace('_', ' ')} {ewords}" if shared else ewords
        said = (
            rng.choice([*synonyms, plain]) if synonyms and (shared or rng.random() < 0.5) else plain
        )
        question = rng.choice(questions).format(
            s=said,
            sp=_plural_phrase(said),
            v=_value(rng, entity, op),
            v2=_value(rng, entity, "get"),
            f1w=fwords[-1],
        )
        question = re.sub(r"\b(a) ([aeiou])", r"\1n \2", question, flags=re.I)
        out.append((domain, name, description, _arguments(kind, entity, fields, style), question))
    return out


def generate(seed: int = 7, n_tools: int | None = None, pair_share: float = 0.125):
    """The catalogue and its questions.

    Args:
        seed: Seeds every random choice (same seed, same catalogue).
        n_tools: Keep this many tools (a seeded sample); None: all (about 1,100).
        pair_share: Two-tool questions added, as a share of the tools.

    Returns:
        ``(tools, queries)``: tools as OpenAI tools entries plus a ``category`` (the domain);
        queries as ``{"query": text, "tools": [names]}``.
    """
    rng = random.Random(seed)
    ops, domains = read_seed()
    words = _unambiguous(domains)
    rows, seen = [], set()
    for domain, (style, prefix, entities, specials) in domains.items():
        for name, description, arguments, question in specials:
            full = _style(_words(prefix) + _words(name), style) if prefix else name
            rows.append((domain, full, description, _schema(arguments, style, 1), question))
        for entity, (_, fields) in entities.items():
            made = _entity_tools(
                rng, ops, domain, style, prefix, entity, words[domain, entity], fields
            )
            rows += made
    rows = [r for r in rows if not (r[1] in seen or seen.add(r[1]))]  # first of a name wins
    if n_tools is not None and n_tools < len(rows):
        rows = rng.sample(rows, n_tools)
    tools = [
        {
            "type": "function",
            "category": domain,
            "function": {"name": name, "description": description, "parameters": schema},
        }
        for domain, name, description, schema, _ in rows
    ]
    queries = [{"query": q, "tools": [name]} for _, name, _, _, q in rows]
    for _ in range(int(len(rows) * pair_share)):
        a, b = rng.sample(rows, 2)
        joiner = rng.choice([", and then ", "; after that ", " and also ", ". Then "])
        queries.append({"query": a[4].rstrip("?") + joiner + b[4], "tools": [a[1], b[1]]})
    return tools, queries
