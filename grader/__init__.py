"""The instructor's grader: ``workshop grade``, ``workshop check`` and ``workshop export``.

Importing the package first imports ``jsonschema`` with its optional ``rfc3987_syntax`` hidden
(as ``agent_harness`` does for tools): nbformat validates notebooks with jsonschema, which
otherwise compiles 39 lark grammars for an IRI format no notebook uses (about 1.3 s per
``workshop`` command on a 2-core machine; python-jsonschema/jsonschema#1428). An explicit
``import rfc3987_syntax`` later still works.
"""

import sys as _sys

_SLOW = "rfc3987_syntax"
if _SLOW not in _sys.modules and "jsonschema" not in _sys.modules:
    _sys.modules[_SLOW] = None  # importing it now raises ImportError, which jsonschema expects
    try:
        import jsonschema as _jsonschema  # noqa: F401
    except ImportError:
        pass
    finally:
        if _sys.modules.get(_SLOW, 0) is None:
            del _sys.modules[_SLOW]
