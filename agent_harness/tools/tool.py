"""What a tool is: a :class:`Tool` built from a documented, typed function.

:meth:`Tool.from_function` reads the function's name, its Google-style docstring (required: it
is the tool's public spec, every argument documented under ``Args:``) and its type hints, and
builds an OpenAI function schema with pydantic. ``@register``
(:mod:`agent_harness.tools.decorator`) and ``h.tools.add`` build their tools with it; tools
defined as rows are built by :mod:`agent_harness.tools.tool_definitions`.

Options (``Tool.from_function(fn, category="vessels", timeout_s=2.0)``, the same keywords as
``@register``):

* ``category``: one per tool (core, knowledge, skills, scratchpad, vessels, ports, voyages,
  cargo, units, ...). Without it the tool takes its module's ``TOOL_CATEGORY``, else
  ``"general"``. Categories filter retrieval and some are protected from the circuit breaker.
* ``timeout_s``: the call's time limit; past it the caller gets a ``timeout`` error (the tool's
  thread is left to finish on its own: Python cannot kill a thread).
* ``access_level``: what the tool does to the world: ``read`` (default: looks things up),
  ``write`` (stores or changes data) or ``execute`` (runs code). A skill grants a level per
  tool; an agent whose skills grant less cannot run it (notebook 07).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import docstring_parser
import pydantic

from agent_harness.parts.access import ACCESS_LEVELS, allows
from agent_harness.tools.argument_checks import bound_schema, schema_problems, whole_numbers_as_int

__all__ = [
    "Tool",
    "ToolError",
    "ToolDefinitionError",
    "ToolDefinitionWarning",
    "PYTHON",
    "DEFAULT_CATEGORY",
    "DEFAULT_TIMEOUT_S",
    "ACCESS_LEVELS",
    "allows",
    "parse_docstring",
    "name_words",
    "add_tool",
    "refuse_taken_name",
]

DEFAULT_CATEGORY = "general"
#: The implementation type of a tool built from a Python function (the other types, tools
#: defined as rows, are in :data:`agent_harness.tools.implementations.IMPLEMENTATION_TYPES`).
PYTHON = "python"
#: A tool call longer than this is answered with a ``timeout`` error.
DEFAULT_TIMEOUT_S = 30.0
_CATEGORY = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


class ToolError(Exception):
    """Raised by a tool for a problem the caller can fix (bad name, nothing found, ...).

    The message reaches the model as ``{"error": message}``: say what was wrong and what to do.
    It is the caller's mistake, not a fault of the tool: telemetry records it as
    ``caller_error`` and the circuit breaker does not count it. For a service the tool depends
    on that failed, raise :class:`~agent_harness.tools.faults.UpstreamError` instead.
    """


class ToolDefinitionError(TypeError):
    """The function cannot be a tool (no docstring, undocumented argument, duplicate name)."""


class ToolDefinitionWarning(UserWarning):
    """A definition is kept as published but part of it is ignored (a default that does not fit)."""


_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
#: How often a tool's name words are repeated in its keyword text: BM25 then weighs the name
#: about 3:1 against the description on both backends (measured in bench/README.md).
NAME_REPEAT = 3


def name_words(name: str) -> str:
    """A tool or argument name as lower-case words: snake_case, camelCase, PascalCase, dots,
    hyphens and digits split (``getHTTPStatus2`` -> ``get http status 2``)."""
    return " ".join(w.lower() for w in _NAME_WORD.findall(str(name))) or str(name).lower()


def _schema_words(schema: Any, out: list[str], depth: int = 0) -> None:
    """Argument names (as words), descriptions and enum values of a JSON schema, nested
    objects, arrays and anyOf/oneOf/allOf included (depth-limited)."""
    if not isinstance(schema, dict) or depth > 6:
        return
    for name, spec in (schema.get("properties") or {}).items():
        out.append(name_words(name))
        if isinstance(spec, dict):
            out.extend(str(spec[k]) for k in ("title", "description") if spec.get(k))
            out.extend(str(v) for v in spec.get("enum") or [] if isinstance(v, (str, int)))
            _schema_words(spec, out, depth + 1)
    for key in ("items", "additionalProperties"):
        _schema_words(schema.get(key), out, depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        for option in schema.get(key) or []:
            _schema_words(option, out, depth + 1)


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {argument: description}).

    docstring_parser reads it: the description is the text before the first section (its
    lines joined with spaces), an argument's description may continue on more-indented lines.

    Raises:
        docstring_parser.ParseError: A section it cannot read (an entry without a colon).
    """
    parsed = docstring_parser.parse(doc or "", docstring_parser.DocstringStyle.GOOGLE)
    description = "\n".join(
        text for text in (parsed.short_description, parsed.long_description) if text
    )
    arguments = {
        param.arg_name.lstrip("*"): _one_line(param.description) for param in parsed.params
    }
    return _one_line(description), arguments


def _one_line(text: str | None) -> str:
    return re.sub(r"\s*\n\s*", " ", (text or "").strip())


_NULL = {"type": "null"}

#: How arguments are validated: as JSON means them. ``"12"`` is no number and ``true`` no
#: integer (no coercion), NaN and Infinity are refused, unknown arguments too.
STRICT = pydantic.ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


def _clean_schema(node: Any) -> Any:
    """Keep the schema small, as every token is sent to the model: drop pydantic's titles and
    ``"additionalProperties": true`` (JSON Schema's default), and write an optional argument
    (``x: list[str] | None = None``) as its type alone: it is left out of ``required``, so the
    model may omit it, and omitting it means None."""
    if isinstance(node, dict):
        node = {
            k: _clean_schema(v)
            for k, v in node.items()
            if k != "title" and not (k == "additionalProperties" and v is True)
        }
        options = node.get("anyOf")
        if (
            isinstance(options, list)
            and len(options) == 2
            and _NULL in options
            and node.get("default", ...) is None
        ):
            (kept,) = [o for o in options if o != _NULL]
            rest = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
            node = {**kept, **rest}
        return node
    if isinstance(node, list):
        return [_clean_schema(v) for v in node]
    return node


def check_access(name: str, level: Any) -> str:
    if level not in ACCESS_LEVELS:
        raise ToolDefinitionError(
            f"tool {name!r}: access_level must be one of {', '.join(ACCESS_LEVELS)}, got {level!r}"
        )
    return level


def check_category(name: str, category: Any) -> str:
    if not isinstance(category, str) or not _CATEGORY.match(category):
        raise ToolDefinitionError(
            f"tool {name!r}: category must be a short lower-case word like 'vessels'"
            f" (letters, digits, _), got {category!r}"
        )
    return category


@dataclass
class Tool:
    """A registered tool: the function, its argument model, its OpenAI schema and options."""

    name: str
    description: str
    function: Callable[..., Any]
    arguments_model: type[pydantic.BaseModel] | None
    parameters: dict
    category: str = DEFAULT_CATEGORY
    timeout_s: float = DEFAULT_TIMEOUT_S
    source: str = field(default="")
    #: ``read``, ``write`` or ``execute`` (what a skill must grant to use it).
    access_level: str = "read"
    #: For tools defined as data: checks a dict of arguments against the JSON schema and
    #: returns them with defaults filled, or raises ValueError (None: the pydantic model does).
    validator: Callable[[dict], dict] | None = field(default=None, repr=False)
    #: ``python`` (a function), or the type of a tool defined as rows (``sql``, ...: one of
    #: :data:`agent_harness.tools.implementations.IMPLEMENTATION_TYPES`).
    implementation_type: str = PYTHON

    @property
    def defined_as_data(self) -> bool:
        """True for a tool defined as rows (``h.tools.define``), False for a Python function."""
        return self.implementation_type != PYTHON

    def validate(self, arguments: dict) -> dict:
        """The keyword arguments for the function, validated (defaults filled).

        A function's arguments are checked against the published schema first (the
        ``jsonschema`` library, Draft 2020-12: what the schema allows is accepted, nothing
        else), then built by its pydantic model; ``500.0`` reaches an integer argument as 500.

        Raises:
            pydantic.ValidationError or ValueError: What is wrong, for the model.
        """
        if self.validator is not None:
            return whole_numbers_as_int(self.parameters, self.validator(arguments))
        problems = schema_problems(self._checker(), arguments)
        if problems:
            raise ValueError(f"{'; '.join(problems)}. {self.takes()}")
        validated = self.arguments_model.model_validate(
            whole_numbers_as_int(self.parameters, arguments)
        )
        return {f: getattr(validated, f) for f in type(validated).model_fields}

    def _checker(self):
        """The ``jsonschema`` validator of :attr:`parameters` (made once per schema)."""
        cached = self.__dict__.get("_checked")
        if cached is None or cached[0] is not self.parameters:
            from agent_harness.tools.jsonschema_lib import jsonschema  # ~0.5 s: on first use

            cached = (self.parameters, jsonschema.Draft202012Validator(self.parameters))
            self.__dict__["_checked"] = cached
        return cached[1]

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        category: str | None = None,
        timeout_s: float | None = None,
        access_level: str = "read",
    ) -> Tool:
        """Build a tool from a function, or raise :class:`ToolDefinitionError` saying why.

        Args:
            fn: A typed function with a Google-style docstring.
            category: The tool's category (default: the module's ``TOOL_CATEGORY``, else
                ``"general"``).
            timeout_s: Time limit of one call in seconds (default 30).
            access_level: ``read`` (default), ``write`` or ``execute``.
        """
        name = fn.__name__
        if not re.match(r"^[a-zA-Z_][a-zA-Z0-9_]{0,63}$", name):
            raise ToolDefinitionError(f"tool name {name!r} must match ^[a-zA-Z_][a-zA-Z0-9_]*$")
        if category is None:
            category = getattr(fn, "__globals__", {}).get("TOOL_CATEGORY", DEFAULT_CATEGORY)
        category = check_category(name, category)
        access_level = check_access(name, access_level)
        timeout_s = DEFAULT_TIMEOUT_S if timeout_s is None else timeout_s
        if not isinstance(timeout_s, (int, float)) or not 0 < timeout_s <= 600:
            raise ToolDefinitionError(f"tool {name!r}: timeout_s must be 0-600 s, got {timeout_s}")
        if not (fn.__doc__ or "").strip():
            raise ToolDefinitionError(
                f"tool {name!r} has no docstring. The docstring is the tool's spec for the model:"
                " write what it answers, then an Args: section describing every argument."
            )
        try:
            description, arg_docs = parse_docstring(fn.__doc__)
        except docstring_parser.ParseError as e:
            raise ToolDefinitionError(
                f"tool {name!r}: cannot read its docstring ({e}). Write it in Google style: what"
                " it answers, then an Args: section with one 'name: what it means' per argument"
                " (and in Returns:/Raises:, 'Type: text')."
            ) from e
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
        model = pydantic.create_model(f"{name}_arguments", __config__=STRICT, **fields)
        parameters = bound_schema(_clean_schema(model.model_json_schema()))
        parameters.setdefault("properties", {})
        parameters.setdefault("required", [])
        parameters["additionalProperties"] = False
        return cls(
            name=name,
            description=description,
            function=fn,
            arguments_model=model,
            parameters=parameters,
            category=category,
            timeout_s=float(timeout_s),
            source=f"{fn.__module__}.{fn.__qualname__}",
            access_level=access_level,
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
        """What the toolbox embeds besides the name's words: the description (the registry
        adds the embedding of :func:`name_words` to it, see ``ToolRegistry``)."""
        return self.description

    def search_text(self) -> str:
        """What the toolbox's keyword index holds: the name's words (:func:`name_words`,
        :data:`NAME_REPEAT` times), the description, then each argument's name words,
        description and enum values (nested schemas too), one part per line."""
        arguments: list[str] = []
        _schema_words(self.parameters, arguments)
        name = name_words(self.name)
        return "\n".join([" ".join([name] * NAME_REPEAT), self.description, " ".join(arguments)])


def refuse_taken_name(tool: Tool, tools: dict[str, Tool]) -> None:
    """Raise :class:`ToolDefinitionError` when ``tools`` holds another tool named like ``tool``
    (the same function again, same module and qualified name, is not another tool)."""
    existing = tools.get(tool.name)
    if existing is not None and existing.source != tool.source:
        raise ToolDefinitionError(
            f"a tool named {tool.name!r} is already registered (by {existing.source});"
            " choose another name"
        )


def add_tool(tool: Tool, tools: dict[str, Tool]) -> Tool:
    """Put ``tool`` in ``tools`` by name, refusing a name another tool holds."""
    refuse_taken_name(tool, tools)
    tools[tool.name] = tool
    return tool
