"""``get_document``: a voyage or a vessel as one JSON document assembled from its rows.

The documents are the database's own views (Oracle's JSON Relational Duality Views
``voyage_dv`` / ``vessel_dv``; JSON views on SQLite, see
:mod:`agent_harness.backends.roles.documents`), read through the identity's connection: a
voyage outside your regions has no document, and a masked value is null in it. Importing this
module registers nothing; :func:`tools` is added by every harness.
"""

from __future__ import annotations

import functools
from typing import Annotated, Literal

from pydantic import Field

from agent_harness.backends.errors import BackendError
from agent_harness.tools.context import current
from agent_harness.tools.tool import Tool, ToolError

__all__ = ["get_document", "tools"]


#: The largest document key: an id column's INTEGER / NUMBER(10) holds it on both backends.
MAX_KEY = 2**31 - 1


def get_document(
    name: Literal["voyage_dv", "vessel_dv"], key: Annotated[int, Field(ge=0, le=MAX_KEY)]
) -> dict:
    """Get one voyage (with its vessel, containers and their cargo items) or one vessel (with
    its carrier and voyages) as a single JSON document, with its _metadata.etag.

    Args:
        name: voyage_dv (key = voyage_id) or vessel_dv (key = imo_number).
        key: The document's _id: a voyage_id or an IMO number.
    """
    try:
        document = current().backend.documents.get(name, key)
    except BackendError as e:
        raise ToolError(str(e)) from e
    if document is None:
        what = "voyage_id" if name == "voyage_dv" else "imo_number"
        raise ToolError(
            f"no {name} document with _id {key!r} that you may see: check the {what} (run_sql"
            f" lists them) and remember that documents follow your identity's regions"
        )
    return document


@functools.cache
def tools() -> tuple[Tool, ...]:
    """The document tools, built once, for a harness to register."""
    return (Tool.from_function(get_document, category="documents"),)
