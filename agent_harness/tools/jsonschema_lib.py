"""The ``jsonschema`` library, imported without its slow optional IRI checker.

jsonschema 4.26 imports ``rfc3987_syntax`` when it is installed (jupyter_events installs it
through the ``jsonschema[format-nongpl]`` extra) only to check the ``iri`` string format, and
that import compiles 39 lark grammars: 2.2 s on a 2-core machine, paid by every kernel that
defines a tool and by every graded notebook run (python-jsonschema/jsonschema#1428). The
harness validates arguments without format checking, so it imports jsonschema with
``rfc3987_syntax`` hidden; an ``import rfc3987_syntax`` anywhere else still works as usual.

    from agent_harness.tools.jsonschema_lib import jsonschema
"""

from __future__ import annotations

import sys

__all__ = ["jsonschema"]

_SLOW = "rfc3987_syntax"
_hidden = _SLOW not in sys.modules
if _hidden:
    sys.modules[_SLOW] = None  # importing it now raises ImportError, which jsonschema expects
try:
    import jsonschema
finally:
    if _hidden and _SLOW in sys.modules and sys.modules[_SLOW] is None:
        del sys.modules[_SLOW]
