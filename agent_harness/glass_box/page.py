"""``workshop chat``: the glass box panel as a page of its own, served by Voilà on loopback.

Voilà turns a notebook into a web page: it runs the notebook in a kernel and shows only its
outputs, here the :class:`~agent_harness.glass_box.panel.GlassBox` panel, whose widgets talk
to that kernel. No web server of our own: :func:`chat_command` writes the one-cell notebook
(:data:`PAGE_SOURCE`) into the data folder and returns the Voilà command line, bound to
127.0.0.1, with the backend, the agent and the identity passed to the kernel in its
environment (``WORKSHOP_BACKEND``, ``WORKSHOP_CHAT_AGENT``, ``WORKSHOP_CHAT_IDENTITY``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_harness.foundation.identity import Identity

__all__ = [
    "PAGE_SOURCE",
    "LOOPBACK",
    "TEMPLATE",
    "WIDGETS_ONLY",
    "chat_command",
    "voila_missing",
    "write_page",
]

LOOPBACK = "127.0.0.1"
#: The page's Voilà template (written next to the page, found through ``JUPYTER_PATH``).
TEMPLATE = "glass-box"
#: The only front-end extensions the page loads: the widgets' and Voilà's manager of ipywidgets
#: 8 widgets (other extensions installed for JupyterLab, such as nbgrader's, fail outside
#: JupyterLab and fill the browser console with errors).
WIDGETS_ONLY = ("@jupyter-widgets/jupyterlab-manager", "@voila-dashboards/widgets-manager8")
_CDN_LINKS = (
    '<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@^5'
    '/css/all.min.css" type="text/css" />',
    '<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@^5'
    '/css/v4-shims.min.css" type="text/css" />',
)
# Voilà's lab template links Font Awesome from a CDN, which a machine without internet access
# cannot load (a console error); Voilà's own bundle carries the same icons: drop the links.
_INDEX = (
    "{%- extends 'lab/index.html.j2' -%}\n"
    "{%- block notebook_css -%}\n"
    "{{ super()"
    + "".join(f" | replace('{link}', '')" for link in _CDN_LINKS)
    + " }}\n{%- endblock notebook_css -%}\n"
)
#: The page: connect (preparing the database on first use), as the identity when one is
#: given (JSON; none: the workshop owner), and show the panel.
PAGE_SOURCE = """\
import os

import agent_harness
from agent_harness.glass_box import GlassBox

h = agent_harness.connect(identity=os.environ.get("WORKSHOP_CHAT_IDENTITY") or None)
GlassBox(h, agent=os.environ.get("WORKSHOP_CHAT_AGENT") or None)
"""


def voila_missing() -> str | None:
    """Why ``workshop chat`` cannot start (None: it can)."""
    missing = [m for m in ("voila", "ipywidgets") if importlib.util.find_spec(m) is None]
    if not missing:
        return None
    return (
        f"{' and '.join(missing)} not installed: `workshop chat` serves the panel with Voilà."
        " Install them with: pip install 'voila>=0.5.13' ipywidgets"
    )


def write_page(folder: Path) -> Path:
    """Write the page's notebook into ``folder`` (created), and its Voilà template under
    ``folder/voila/templates``; returns the notebook's path."""
    import nbformat

    template = folder / "voila" / "templates" / TEMPLATE
    template.mkdir(parents=True, exist_ok=True)
    (template / "conf.json").write_text('{"base_template": "lab"}\n', encoding="utf-8")
    (template / "index.html.j2").write_text(_INDEX, encoding="utf-8")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(PAGE_SOURCE)]
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    path = folder / "glass_box.ipynb"
    nbformat.write(notebook, path)
    return path


def chat_command(
    folder: Path,
    port: int = 8866,
    *,
    backend: str | None = None,
    agent: str | None = None,
    identity: Identity | None = None,
    no_browser: bool = False,
    env: Mapping[str, str] | None = None,
) -> tuple[list[str], dict[str, str]]:
    """The command line and environment that serve the panel.

    Args:
        folder: Where the page's notebook is written.
        port: The port on 127.0.0.1.
        backend: ``embedded`` or ``oracle`` (default: ``WORKSHOP_BACKEND`` or embedded).
        agent: Chat as this agent (progressive disclosure); None: retrieval, no agent.
        identity: Chat as this identity (the database filters and masks what every tool
            reads); None or the owner: the workshop owner.
        no_browser: Do not open a browser.
        env: The environment to start from (default: this process's).

    Returns:
        (command, environment).
    """
    env = dict(os.environ if env is None else env)
    env.setdefault("HF_HUB_OFFLINE", "1")
    if backend:
        env["WORKSHOP_BACKEND"] = backend
    if agent:
        env["WORKSHOP_CHAT_AGENT"] = agent
    else:
        env.pop("WORKSHOP_CHAT_AGENT", None)
    if identity is not None and not identity.owner:
        fields = identity.to_dict()
        fields.pop("owner")
        env["WORKSHOP_CHAT_IDENTITY"] = json.dumps(fields)
    else:
        env.pop("WORKSHOP_CHAT_IDENTITY", None)
    page = write_page(Path(folder))
    paths = [str(Path(folder)), *filter(None, env.get("JUPYTER_PATH", "").split(os.pathsep))]
    env["JUPYTER_PATH"] = os.pathsep.join(paths)
    command = [
        sys.executable,
        "-m",
        "voila",
        str(page),
        f"--port={int(port)}",
        f"--Voila.ip={LOOPBACK}",
        "--Voila.port_retries=0",  # the port asked for, or a clear error
        "--theme=light",
        f"--template={TEMPLATE}",
        *(f"--VoilaConfiguration.extension_allowlist={name}" for name in WIDGETS_ONLY),
    ]
    if no_browser:
        command.append("--no-browser")
    return command, env
