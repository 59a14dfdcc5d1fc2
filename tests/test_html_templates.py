"""HTML comes from Jinja2 templates with autoescape (issue 29 item 4), never from f-strings
escaped by hand: the grader's feedback page and the glass box's fragments.

A hostile value (a student's folder name, a check's message, a model's answer or tool
arguments, a memory's content) goes into every field a user, a submission or the model
controls; the page must show it as text: no tag and no attribute of its own.
"""

from __future__ import annotations

import ast
import re
import types
from fnmatch import fnmatch
from html.parser import HTMLParser
from pathlib import Path

import pytest

from agent_harness.glass_box.panel import GlassBox, render_chat_html, render_meter_html
from agent_harness.glass_box.trail import render_trail_html
from grader.feedback import render_feedback
from grader.results import GradeRow

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
#: The folders whose HTML must come from templates.
HTML_FOLDERS = ("grader", "agent_harness/glass_box")
#: HTML's elements (not ``<student>`` or ``<probe 3>``, placeholders in plain text).
ELEMENTS = (
    "a abbr address article aside audio b body br button canvas caption code col dd del details"
    " dialog div dl dt em fieldset figure footer form h1 h2 h3 h4 h5 h6 head header hr html i"
    " iframe img input ins kbd label legend li link main meta nav ol option p pre q s script"
    " section select small source span strong style sub summary sup svg table tbody td"
    " template textarea tfoot th thead time title tr u ul video"
).split()
#: The start of a tag: ``<div``, ``</td``, ``<!DOCTYPE``.
TAG = re.compile(rf"<(!doctype|/?({'|'.join(ELEMENTS)})[\s/>])", re.IGNORECASE)
HOSTILE = '<script>alert("x")</script> \'q\' & "dq" </pre></td><img src=x onerror=alert(1)>'


def _html_built_by_code(path: Path) -> list[str]:
    """Each place in a module that builds HTML from values in code: an f-string with a tag in
    its text, a tag string joined with ``+``, formatted with ``%`` or ``.format``."""

    def tagged(node) -> bool:
        return (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and bool(TAG.search(node.value))
        )

    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.JoinedStr) and any(tagged(v) for v in node.values):
            found.append(f"{where}:{node.lineno}: f-string")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
            constants = [side for side in (node.left, node.right) if tagged(side)]
            dynamic = [
                side for side in (node.left, node.right) if not isinstance(side, ast.Constant)
            ]
            if constants and dynamic:
                found.append(f"{where}:{node.lineno}: {type(node.op).__name__}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"
            and tagged(node.func.value)
        ):
            found.append(f"{where}:{node.lineno}: str.format")
    return found


def test_no_html_is_built_by_f_strings_in_the_grader_and_the_glass_box():
    modules = [p for folder in HTML_FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))]
    assert len(modules) > 10, "the scan found the modules"
    found = [place for path in modules for place in _html_built_by_code(path)]
    assert found == [], "HTML built in code; put it in a template:\n" + "\n".join(found)


def test_the_scan_finds_html_built_in_code(tmp_path):
    """The scan above can fail: each way of building HTML in code is found."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "x = 1\n"
        "a = f'<td>{x}</td>'\n"
        "b = '<b>' + str(x)\n"
        "c = '<i>%s</i>' % x\n"
        "d = '<p>{}</p>'.format(x)\n"
        "e = f'{x} < 3 <student>.html <probe {x}>'\n"  # text, not tags
        "f = '<p>fixed</p>'\n",  # a constant builds nothing
        encoding="utf-8",
    )
    found = _html_built_by_code(sample)
    assert [place.split(": ", 1)[1] for place in found] == ["f-string", "Add", "Mod", "str.format"]


class _Tags(HTMLParser):
    """The tags and attribute names of a page, and its text."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)

    def handle_data(self, data):
        self.text.append(data)


def _shows_hostile_as_text(page: str, allowed_tags: set[str]) -> None:
    parsed = _Tags(page)
    assert parsed.tags <= allowed_tags, parsed.tags - allowed_tags
    assert parsed.attributes <= {
        "lang",
        "charset",
        "http-equiv",
        "content",
        "class",
        "style",
        "title",
        "colspan",
    }, parsed.attributes
    assert HOSTILE in "".join(parsed.text), "the hostile text is shown as it was written"
    assert "<script" not in page and "<img" not in page


FEEDBACK_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "strong", "section", "ul",
    "li", "table", "thead", "tbody", "tfoot", "tr", "th", "td", "pre", "dl", "dt", "dd",
}  # fmt: skip


def test_the_feedback_page_escapes_every_field_a_submission_controls():
    rows = [
        GradeRow(HOSTILE, HOSTILE, HOSTILE, 1, 2, "failed", HOSTILE),
        GradeRow(HOSTILE, HOSTILE, HOSTILE + "2", 0, 1, HOSTILE, "unknown status"),
    ]
    page = render_feedback(rows, HOSTILE, None, [HOSTILE])
    _shows_hostile_as_text(page, FEEDBACK_TAGS)
    assert page.count("&lt;script&gt;") >= 7  # title, h1, note, notebook, 2 ids, message
    assert "class='status-unknown'" in page  # an unknown status never becomes a class name


TRAIL_KINDS = [
    "identity", "knowledge", "memory_hit", "skills", "skill_loaded", "tools_offered",
    "tool_offered", "model_step", "tool_call", "offload", "answer", "an_error", HOSTILE,
]  # fmt: skip


def test_the_trail_escapes_every_field_of_the_tree():
    detail = {
        key: HOSTILE
        for key in (
            "kind", "content", "memory_id", "supplied", "strategy", "error_type", "breaker",
            "call_id", "error", "message", "index", "policy",
        )
    }  # fmt: skip
    detail.update(manifest=[HOSTILE], added=[HOSTILE], arguments={"a": HOSTILE}, score=0.5)
    events = [
        {"kind": kind, "name": HOSTILE, "ok": False, "duration_ms": 1.0, "detail": detail,
         "children": [{"kind": HOSTILE, "name": HOSTILE, "ok": None, "duration_ms": None,
                       "detail": {"x": HOSTILE}, "children": []}]}
        for kind in TRAIL_KINDS
    ]  # fmt: skip
    tree = {"turn_id": HOSTILE, "question": HOSTILE, "status": HOSTILE, "events": events}
    page = render_trail_html(tree, title=HOSTILE)
    _shows_hostile_as_text(page, {"div", "span"})
    parsed = _Tags(page)
    assert sum(HOSTILE in t for t in parsed.text) >= len(TRAIL_KINDS)


def test_the_chat_the_meter_and_the_status_escape_what_they_show():
    chat = render_chat_html([(HOSTILE, HOSTILE), (HOSTILE, None)])
    _shows_hostile_as_text(chat, {"div", "b"})
    assert "working on it…" in chat

    budget = {"window": 1000, "total": 500, "free": 500, "system": 100, "manifest": 100}
    _shows_hostile_as_text(render_meter_html(budget, HOSTILE), {"div", "b", "span"})

    box = types.SimpleNamespace(
        agent=HOSTILE, strategy=HOSTILE, thread_id=HOSTILE, _streamed="", _last_draw=0.0,
        harness=types.SimpleNamespace(identity=types.SimpleNamespace(describe=lambda: HOSTILE)),
        llm=types.SimpleNamespace(describe=lambda: HOSTILE),
        status=types.SimpleNamespace(value=None), stream=types.SimpleNamespace(value=None),
    )  # fmt: skip
    GlassBox._set_status(box, HOSTILE)
    _shows_hostile_as_text(box.status.value, {"div", "b", "br", "code"})
    assert box.status.value.count("&lt;script&gt;") == 6
    GlassBox._on_token(box, HOSTILE)
    _shows_hostile_as_text(box.stream.value, {"div"})


@pytest.mark.parametrize("package", ["grader", "agent_harness"])
def test_every_template_ships_as_package_data(package):
    """The wheel (and so the offline kit) carries each template: pyproject.toml's package-data
    names every file of a templates folder."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = pyproject["tool"]["setuptools"]["package-data"][package]
    templates = sorted((ROOT / package).rglob("templates/*"))
    assert templates
    for path in templates:
        relative = path.relative_to(ROOT / package).as_posix()
        assert any(fnmatch(relative, glob) for glob in globs), relative
