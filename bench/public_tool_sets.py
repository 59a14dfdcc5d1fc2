"""Convert public tool-calling datasets to the JSON Lines that bench_tool_retrieval.py reads.

    git clone https://github.com/ShishirPatil/gorilla       /data/gorilla      # Apache-2.0
    git clone https://github.com/HowieHwong/MetaTool       /data/MetaTool     # MIT
    git clone https://github.com/quchangle1/COLT           /data/COLT
    python bench/public_tool_sets.py bfcl     /data/gorilla   /tmp/sets/bfcl
    python bench/public_tool_sets.py metatool /data/MetaTool  /tmp/sets/metatool
    python bench/public_tool_sets.py toollens /data/COLT      /tmp/sets/toollens
    python bench/bench_tool_retrieval.py --tools /tmp/sets/bfcl_tools.jsonl \\
        --queries /tmp/sets/bfcl_queries.jsonl

Nothing is downloaded and no data is shipped: give the path of a clone (a work tree or a bare
repository; its HEAD is read). Each command writes ``<out>_tools.jsonl`` (OpenAI tools
entries) and ``<out>_queries.jsonl`` (``{"query", "tools"}``) and prints their sizes.

* ``bfcl``: the Berkeley Function Calling Leaderboard (v4 files), every single-turn category
  with a known answer (simple_python, multiple, parallel, parallel_multiple and their live_
  versions): every question's candidate functions pooled into ONE registry (the first
  definition of a name is kept: 1,287 tools), each question needing the functions its
  answer calls (1 to 5). Types written the Python way (``dict``, ``float``) become JSON
  Schema's.
* ``metatool``: MetaTool's ToolE: ``plugin_des.json`` (199 tools, a description each), a
  seeded sample (``random.Random(0)``) of 2,000 single-tool questions from
  ``all_clean_data.csv`` and all 497 two-tool questions of ``multi_tool_query_golden.json``.
* ``toollens``: COLT's ToolLens (464 APIs of ToolBench): the test split's 1,877 questions,
  most needing three tools (``qrels/test.tsv``); a tool is named ``<tool>__<api>``, described
  ``"<tool>: <api description>"``, its parameters from the required and optional lists.
"""

from __future__ import annotations

import argparse
import collections
import csv
import io
import json
import random
import re
import subprocess
from pathlib import Path

BFCL_DATA = "berkeley-function-call-leaderboard/bfcl_eval/data"
BFCL_SETS = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
)
PYTHON_TYPES = {
    "dict": "object",
    "float": "number",
    "double": "number",
    "int": "integer",
    "long": "integer",
    "short": "integer",
    "byte": "integer",
    "bool": "boolean",
    "str": "string",
    "char": "string",
    "any": "string",
    "list": "array",
    "tuple": "array",
    "set": "array",
    "arraylist": "array",
    "hashmap": "object",
}


def read(repo: str, path: str) -> str:
    """A file of a clone: from its work tree, else from HEAD of a bare repository."""
    file = Path(repo) / path
    if file.is_file():
        return file.read_text(encoding="utf-8")
    done = subprocess.run(
        ["git", f"--git-dir={repo}", "show", f"HEAD:{path}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"{path} is not in {repo}: give the path of a clone ({done.stderr})")
    return done.stdout


def json_lines(text: str) -> list[dict]:
    """The records of a JSON Lines text."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def json_types(schema):
    """A schema with Python type names (``dict``, ``float``) as JSON Schema's."""
    if isinstance(schema, list):
        return [json_types(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: json_types(v) for k, v in schema.items()}
    if isinstance(out.get("type"), str):
        out["type"] = PYTHON_TYPES.get(out["type"].lower(), out["type"].lower())
    return out


def bfcl(repo: str) -> tuple[list[dict], list[dict]]:
    """BFCL's single-turn questions over one pooled registry of their functions."""
    tools: dict[str, dict] = {}
    queries = []
    for name in BFCL_SETS:
        answers = {
            a["id"]: a
            for a in json_lines(read(repo, f"{BFCL_DATA}/possible_answer/BFCL_v4_{name}.json"))
        }
        for q in json_lines(read(repo, f"{BFCL_DATA}/BFCL_v4_{name}.json")):
            for f in q["function"]:
                parameters = json_types(f.get("parameters") or {"properties": {}})
                tools.setdefault(
                    f["name"],
                    {
                        "type": "function",
                        "function": {
                            "name": f["name"],
                            "description": f.get("description", ""),
                            "parameters": {**parameters, "type": "object"},
                        },
                    },
                )
            turns = q["question"][0] if isinstance(q["question"][0], list) else q["question"]
            text = " ".join(m["content"] for m in turns if m.get("role") == "user")
            needed = sorted({n for call in answers[q["id"]]["ground_truth"] for n in call})
            queries.append({"query": text, "tools": needed})
    return list(tools.values()), queries


def metatool(repo: str) -> tuple[list[dict], list[dict]]:
    """MetaTool's ToolE: 199 tools, 2,000 sampled single-tool and 497 two-tool questions."""
    described = json.loads(read(repo, "dataset/plugin_des.json"))
    tools = [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": text,
                "parameters": {"type": "object", "properties": {}},
            },
        }
        for name, text in described.items()
    ]
    rows = list(csv.DictReader(io.StringIO(read(repo, "dataset/data/all_clean_data.csv"))))
    single = [{"query": r["Query"], "tools": [r["Tool"]]} for r in rows]
    queries = random.Random(0).sample(single, 2000)
    for q in json.loads(read(repo, "dataset/data/multi_tool_query_golden.json")):
        queries.append({"query": q["query"], "tools": list(q["tool"])})
    return tools, queries


_TOOLLENS = re.compile(
    r"^category_name:(.*?), tool_name:(.*?), api_name:(.*?), api_description:(.*?),"
    r" required_params: (.*?), optional_params: (.*?), return_schema: .*$",
    re.S,
)


def _toollens_parameters(required: str, optional: str) -> dict:
    properties, needed = {}, []
    for text, is_required in ((required, True), (optional, False)):
        try:
            listed = json.loads(text)
        except ValueError:
            listed = []
        for p in listed if isinstance(listed, list) else []:
            if isinstance(p, dict) and p.get("name"):
                name = re.sub(r"[^a-zA-Z0-9_]+", "_", str(p["name"])).strip("_")[:64] or "arg"
                kind = str(p.get("type", "string")).lower()
                properties[name] = {
                    "type": kind if kind in ("number", "integer", "boolean") else "string",
                    "description": str(p.get("description") or ""),
                }
                if is_required:
                    needed.append(name)
    return {"type": "object", "properties": properties, "required": sorted(set(needed))}


def toollens(repo: str) -> tuple[list[dict], list[dict]]:
    """COLT's ToolLens test split: 464 ToolBench APIs, questions needing 1-3 of them."""
    base = "datasets/ToolLens"
    names, tools, used = {}, [], collections.Counter()
    for record in json_lines(read(repo, f"{base}/corpus.jsonl")):
        found = _TOOLLENS.match(record["text"])
        if not found:
            continue
        category, tool, api, description, required, optional = found.groups()
        name = f"{tool[:30]}__{api[:30]}"
        used[name] += 1
        names[record["_id"]] = name if used[name] == 1 else f"{name}_{used[name]}"
        tools.append(
            {
                "type": "function",
                "category": category,
                "function": {
                    "name": names[record["_id"]],
                    "description": f"{tool}: {description}".strip(" :"),
                    "parameters": _toollens_parameters(required, optional),
                },
            }
        )
    texts = {q["_id"]: q["text"] for q in json_lines(read(repo, f"{base}/queries.jsonl"))}
    needed = collections.defaultdict(set)
    for line in read(repo, f"{base}/qrels/test.tsv").splitlines()[1:]:
        query, corpus, _ = line.split("\t")
        needed[query].add(names[corpus])
    queries = [{"query": texts[q], "tools": sorted(t)} for q, t in needed.items() if q in texts]
    return tools, queries


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dataset", choices=("bfcl", "metatool", "toollens"))
    parser.add_argument("repo", help="path of a clone of the dataset's repository")
    parser.add_argument("out", help="output prefix: writes <out>_tools.jsonl, <out>_queries.jsonl")
    args = parser.parse_args(argv)
    tools, queries = {"bfcl": bfcl, "metatool": metatool, "toollens": toollens}[args.dataset](
        args.repo
    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    for suffix, records in (("tools", tools), ("queries", queries)):
        with open(f"{args.out}_{suffix}.jsonl", "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)
    needs = collections.Counter(len(q["tools"]) for q in queries)
    by_need = ", ".join(f"{n}: {c}" for n, c in sorted(needs.items()))
    print(f"{args.dataset}: {len(tools)} tools, {len(queries)} questions (tools needed {by_need})")


if __name__ == "__main__":
    main()
