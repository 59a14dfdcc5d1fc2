"""jsonschema is imported without rfc3987_syntax (2 s of lark grammars), and nothing else breaks."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from agent_harness.tools.jsonschema_lib import jsonschema
from tests.deadlines import PATIENCE_S


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=PATIENCE_S, check=True
    )
    return done.stdout.strip()


def test_defining_tools_does_not_import_rfc3987_syntax():
    code = (
        "import sys\n"
        "import agent_harness.harness\n"
        "print('jsonschema' in sys.modules)\n"  # not at import time: on first use
        "from agent_harness.tools.parameter_rows import validator\n"
        "validator('t', {'type': 'object', 'properties': {}, 'required': []})\n"
        "print('jsonschema' in sys.modules)\n"
        "print('rfc3987_syntax' in sys.modules, sys.modules.get('rfc3987_syntax', 0) is None)\n"
    )
    assert _run(code).split() == ["False", "True", "False", "False"]


@pytest.mark.skipif(
    importlib.util.find_spec("rfc3987_syntax") is None, reason="rfc3987_syntax is not installed"
)
def test_rfc3987_syntax_can_still_be_imported_afterwards():
    code = (
        "import agent_harness.tools.parameter_rows\n"
        "from rfc3987_syntax import is_valid_syntax\n"
        "print(is_valid_syntax('iri', 'https://example.org/ä'))\n"
    )
    assert _run(code) == "True"


def test_validation_still_works():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    jsonschema.validate({"n": 1}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"n": "one"}, schema)
