"""The glass box's HTML, from the Jinja2 templates in ``templates/`` beside this module.

Autoescape is on: every value a template shows (a question, an answer, a tool's arguments, a
memory's content: text from the model, the user or the database) is escaped where it is put in,
so no caller escapes by hand and none can forget to.
"""

from __future__ import annotations

import jinja2

__all__ = ["render"]

_TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("agent_harness.glass_box", "templates"),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
    undefined=jinja2.StrictUndefined,
)


def render(template: str, **values) -> str:
    """The template ``templates/<template>`` filled with ``values`` (each escaped)."""
    return _TEMPLATES.get_template(template).render(**values)
