"""The tool registry: ``@register`` turns a documented, typed function into an LLM tool.

``@register`` (no arguments) reads the function's name, its Google-style docstring (required:
it is the tool's public spec, every argument documented under ``Args:``) and its type hints, and
builds an OpenAI function schema with pydantic. A registered name is never silently replaced:
a second, different function with the same name is refused.

:class:`ToolRegistry` stores the tools in the vector-indexed ``toolbox`` table, retrieves the top-k
tools for a query plus an always-on set, validates a call's arguments against the schema before
dispatch, and returns every result (or error) as JSON text for the model.
"""

from __future__ import annotations

import inspect
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pydantic

from agent_harness.memory import content_hash
from agent_harness.tools import context
from agent_harness.values import dumps

__all__ = [
    "register",
    "Tool",
    "ToolError",
    "ToolDefinitionError",
    "ToolRegistry",
    "REGISTERED",
    "ALWAYS_ON",
]

#: Sent on every turn whatever the query: the agent's basic senses.
ALWAYS_ON = (
    "run_sql",
    "search_knowledge",
    "remember",
    "exec_js",
    "load_skill",
    "list_skills",
    "fetch_tool_output",
)


class ToolError(Exception):
    """Raised by a tool for a problem the model can fix (bad name, nothing found, ...).

    The message reaches the model as ``{"error": message}``: say what was wrong and what to do.
    """


class ToolDefinitionError(TypeError):
    """The function cannot be a tool (no docstring, undocumented argument, duplicate name)."""


_SECTION = re.compile(r"^\s*(Args|Arguments|Returns|Raises|Yields|Examples?|Notes?):\s*$")
_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {argument: description}).

    The description is the text before the first section header; argument descriptions may
    continue on more-indented lines.
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    description: list[str] = []
    args: dict[str, str] = {}
    section = None
    current = None
    arg_indent = None
    for line in lines:
        header = _SECTION.match(line)
        if header:
            section = header.group(1)
            current = None
            arg_indent = None
            continue
        if section is None:
            description.append(line)
        elif section in ("Args", "Arguments") and line.strip():
            indent = len(line) - len(line.lstrip())
            match = _ARG_LINE.match(line)
            if match and (arg_indent is None or indent <= arg_indent):
                arg_indent = indent
                current = match.group(1).lstrip("*")
                args[current] = match.group(3).strip()
            elif current:
                args[current] = (args[current] + " " + line.strip()).strip()
    text = "\n".join(description).strip()
    return re.sub(r"\s*\n\s*", " ", text), args


def _clean_schema(node: Any) -> Any:
    """Drop pydantic's titles; keep the schema small, as every token is sent to the model."""
    if isinstance(node, dict):
        return {k: _clean_schema(v) for k, v in node.items() if k != "title"}
    if isinstance(node, list):
        return [_clean_schema(v) for v in node]
    return node


@dataclass
class Tool:
    """A registered tool: the function, its argument model and its OpenAI schema."""

    name: str
    description: str
    function: Callable[..., Any]
    arguments_model: type[pydantic.BaseModel]
    parameters: dict
    category: str | None = None
    source: str = field(default="")

    @classmethod
    def from_function(cls, fn: Callable[..., Any]) -> Tool:
        """Build a tool from a function, or raise :class:`ToolDefinitionError` saying why."""
        name = fn.__name__
        if not re.match(r"^[a-zA-Z_][a-zA-Z0-9_]{0,63}$", name):
            raise ToolDefinitionError(f"tool name {name!r} must match ^[a-zA-Z_][a-zA-Z0-9_]*$")
        if not (fn.__doc__ or "").strip():
            raise ToolDefinitionError(
                f"tool {name!r} has no docstring. The docstring is the tool's spec for the model:"
                " write what it answers, then an Args: section describing every argument."
            )
        description, arg_docs = parse_docstring(fn.__doc__)
        if not description:
            raise ToolDefinitionError(f"tool {name!r}: the docstring needs a description line")
        signature = inspect.signature(fn)
        try:
            hints = inspect.get_annotations(fn, eval_str=True)
        except Exception as e:  # a hint that does not evaluate
            raise ToolDefinitionError(f"tool {name!r}: cannot read its type hints: {e}") from e
        fields: dict[str, Any] = {}
        for param in signature.parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise ToolDefinitionError(f"tool {name!r}: *args/**kwargs cannot be described")
            if param.name not in hints:
                raise ToolDefinitionError(
                    f"tool {name!r}: argument {param.name!r} has no type hint"
                )
            if param.name not in arg_docs:
                raise ToolDefinitionError(
                    f"tool {name!r}: argument {param.name!r} is not documented in the docstring's"
                    " Args: section; the model needs to know what it means"
                )
            default = ... if param.default is param.empty else param.default
            fields[param.name] = (
                hints[param.name],
                pydantic.Field(default, description=arg_docs[param.name]),
            )
        model = pydantic.create_model(
            f"{name}_arguments", __config__=pydantic.ConfigDict(extra="forbid"), **fields
        )
        parameters = _clean_schema(model.model_json_schema())
        parameters.setdefault("properties", {})
        parameters.setdefault("required", [])
        parameters["additionalProperties"] = False
        return cls(
            name=name,
            description=description,
            function=fn,
            arguments_model=model,
            parameters=parameters,
            source=f"{fn.__module__}.{fn.__qualname__}",
        )

    def schema(self) -> dict:
        """The OpenAI ``tools`` entry for this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def takes(self) -> str:
        """A one-line reminder of the arguments, e.g. "find_vessel takes: name, limit?"."""
        names = ", ".join(
            f"{n}{'' if n in self.parameters['required'] else '?'}"
            for n in self.parameters["properties"]
        )
        return f"{self.name} takes: {names or 'no arguments'}"

    def index_text(self) -> str:
        """What the toolbox embeds: "name: description / args: a, b"."""
        args = ", ".join(self.parameters.get("properties", {}))
        return f"{self.name}: {self.description} / args: {args}"


#: Every tool registered with ``@register`` in this process, by name.
REGISTERED: dict[str, Tool] = {}


def register(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: make ``fn`` a tool (no arguments; the function is returned unchanged).

    Raises:
        ToolDefinitionError: No docstring, an undocumented or untyped argument, or a name that
            another function already registered. Re-running the cell that defines the SAME
            function (same module and qualified name) replaces it, so notebooks can be re-run.
    """
    tool = Tool.from_function(fn)
    existing = REGISTERED.get(tool.name)
    if existing is not None and existing.source != tool.source:
        raise ToolDefinitionError(
            f"a tool named {tool.name!r} is already registered (by {existing.source});"
            " choose another name"
        )
    REGISTERED[tool.name] = tool
    return fn


def _format_validation_error(tool: Tool, error: pydantic.ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "arguments"
        if item["type"] == "missing":
            problems.append(f"missing required argument '{where}'")
        elif item["type"] == "extra_forbidden":
            problems.append(f"unexpected argument '{where}'")
        else:
            problems.append(f"argument '{where}': {item['msg']} (got {item.get('input')!r:.60})")
    return f"{'; '.join(problems)}. {tool.takes()}"


class ToolRegistry:
    """The tools of one harness: stored in the toolbox table and retrieved by meaning.

    Args:
        harness: The harness the tools run against (set as the tools' context during a call).
        tools: The tools to offer; defaults to every registered tool.
        always_on: Names sent on every turn.
    """

    def __init__(self, harness, tools: dict[str, Tool] | None = None, always_on=ALWAYS_ON):
        self.harness = harness
        self._tools = dict(tools if tools is not None else REGISTERED)
        self.always_on = tuple(n for n in always_on if n in self._tools)

    # --- the catalog --------------------------------------------------------------------------
    def names(self) -> list[str]:
        """Every tool name, sorted."""
        return sorted(self._tools)

    def get(self, name: str) -> Tool:
        """One tool by name (KeyError with the available names if unknown)."""
        if name not in self._tools:
            raise KeyError(f"unknown tool {name!r}; available: {', '.join(self.names())}")
        return self._tools[name]

    def add(self, fn_or_tool: Callable[..., Any] | Tool) -> Tool:
        """Register a function (or tool) in this registry and index it."""
        tool = fn_or_tool if isinstance(fn_or_tool, Tool) else Tool.from_function(fn_or_tool)
        existing = self._tools.get(tool.name)
        if existing is not None and existing.source != tool.source:
            raise ToolDefinitionError(
                f"a tool named {tool.name!r} is already registered (by {existing.source});"
                " choose another name"
            )
        self._tools[tool.name] = tool
        self.sync()
        return tool

    def schemas(self, names: list[str] | None = None) -> list[dict]:
        """OpenAI schemas of the named tools (all when None)."""
        return [self._tools[n].schema() for n in (names if names is not None else self.names())]

    def sync(self) -> dict[str, int]:
        """Store every tool in the toolbox table; only changed ones are re-embedded.

        Returns:
            Counts: ``added_or_changed``, ``unchanged``, ``removed``.
        """
        backend = self.harness.backend
        stored = {r["name"]: r["content_hash"] for r in backend.indexed_rows("toolbox")}
        changed = []
        for tool in self._tools.values():
            fields = {
                "description": tool.description,
                "parameters": json.dumps(tool.parameters, sort_keys=True),
                "category": tool.category,
                "always_on": int(tool.name in self.always_on),
            }
            fields["content_hash"] = content_hash(tool.index_text() + fields["parameters"])
            if stored.get(tool.name) != fields["content_hash"]:
                changed.append((tool, fields))
        vectors = self.harness.embed([t.index_text() for t, _ in changed]) if changed else []
        for (tool, fields), vector in zip(changed, vectors):
            backend.upsert_indexed("toolbox", tool.name, fields, vector)
        removed = [n for n in stored if n not in self._tools]
        backend.delete_indexed("toolbox", removed)
        return {
            "added_or_changed": len(changed),
            "unchanged": len(self._tools) - len(changed),
            "removed": len(removed),
        }

    def retrieve(self, query: str, k: int = 5, always_on: bool = True) -> list[dict]:
        """The tools to send for this query: the top-k by meaning plus the always-on set.

        Args:
            query: The user's question (or any text).
            k: How many tools to pick by similarity; k >= the registry size returns every tool.
            always_on: Add the always-on tools (without counting them in k).

        Returns:
            OpenAI tool schemas, always-on first, then by similarity.
        """
        k = max(0, int(k))
        if k >= len(self._tools):
            picked = self.names()
        else:
            vector = self.harness.embed([str(query or "")])[0]
            candidates = self.harness.backend.nearest_indexed(
                "toolbox", vector, k + len(self.always_on), str(query or "")
            )
            skip = set(self.always_on) if always_on else set()
            picked = [n for n in candidates if n in self._tools and n not in skip][:k]
        if always_on:
            picked = [*self.always_on, *[n for n in picked if n not in self.always_on]]
        return self.schemas(picked)

    # --- calling ------------------------------------------------------------------------------
    def call(self, name: str, arguments: dict | str | None = None) -> str:
        """Validate the arguments, run the tool, and return its result as JSON text.

        Problems the model caused (unknown tool, malformed or wrong arguments, a ToolError, an
        exception inside the tool) come back as ``{"error": "..."}`` so the model can correct
        itself; they never raise.
        """
        result = self.call_detailed(name, arguments)
        return result["output"]

    def call_detailed(self, name: str, arguments: dict | str | None = None) -> dict:
        """Like :meth:`call`, returning ``{"output", "ok", "error", "duration_ms"}``."""
        started = time.perf_counter()

        def done(output: str, ok: bool, error: str | None = None) -> dict:
            return {
                "output": output,
                "ok": ok,
                "error": error,
                "duration_ms": round((time.perf_counter() - started) * 1000, 2),
            }

        def fail(message: str) -> dict:
            return done(dumps({"error": message}), False, message)

        tool = self._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            return fail(f"unknown tool {name!r}. Available tools: {', '.join(self.names())}")
        if arguments is None or arguments == "":
            arguments = {}
        if isinstance(arguments, (str, bytes)):
            try:
                arguments = json.loads(arguments)
            except ValueError as e:
                return fail(f"arguments are not valid JSON ({e}). {tool.takes()}")
        if not isinstance(arguments, dict):
            return fail(
                f"arguments must be a JSON object, not {type(arguments).__name__}. {tool.takes()}"
            )
        try:
            validated = tool.arguments_model.model_validate(arguments)
        except pydantic.ValidationError as e:
            return fail(_format_validation_error(tool, e))
        kwargs = {f: getattr(validated, f) for f in type(validated).model_fields}
        try:
            with context.using(self.harness):
                value = tool.function(**kwargs)
        except ToolError as e:
            return fail(str(e))
        except Exception as e:  # the tool failed: the model sees it as an observation
            return fail(f"{name} failed: {type(e).__name__}: {e}")
        output = value if isinstance(value, str) else dumps(value)
        return done(output, True)
