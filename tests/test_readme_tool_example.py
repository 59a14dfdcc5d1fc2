"""README's "Writing a tool" example runs as written, on a harness connected before it, and
README's table of implementation types is the library's table."""

from __future__ import annotations

import json
import re
from pathlib import Path

from agent_harness.tools import REGISTERED
from agent_harness.tools.implementations import IMPLEMENTATION_TYPES

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def readme_tool_example() -> str:
    """The first Python block after "Writing a tool" in README.md, exactly as written."""
    after = README.split("\nWriting a tool", 1)[1]
    return after.split("```python\n", 1)[1].split("\n```", 1)[0]


def offered(h, question: str, k: int = 3) -> list[str]:
    return [s["function"]["name"] for s in h.tools.retrieve(question, k=k, always_on=False)]


def test_the_readme_tool_example_works_on_a_harness_connected_before_it(fresh_harness):
    h = fresh_harness
    code = readme_tool_example()
    assert "@register" in code and "h.tools.call(" in code and "h.tools.retrieve(" in code
    assert "berth_count" not in h.tools.names()
    heard = []
    stop = h.tools.on_change(lambda tool, what: heard.append((tool, what)))
    namespace = {"__name__": "readme_example", "h": h}
    try:
        exec(compile(code, "README.md (Writing a tool)", "exec"), namespace)
        assert ("berth_count", "added") in heard
        assert json.loads(h.tools.call("berth_count", {"port": "nlrtm"})) == {
            "port_code": "NLRTM",
            "name": "Rotterdam",
            "berths": h.backend.query(
                "SELECT berths FROM supplychain.ports WHERE port_code = 'NLRTM'"
            )[0]["berths"],
        }
        refused = json.loads(h.tools.call("berth_count", {"port": "XXXXX"}))
        assert "UN/LOCODE like NLRTM" in refused["error"]
        assert offered(h, "how many berths has Rotterdam")[0] == "berth_count"
        indexed = {r["name"] for r in h.backend.indexed_rows("toolbox")}
        assert "berth_count" in indexed  # the retrieve indexed it
    finally:
        REGISTERED.pop("berth_count", None)
        stop()
    assert "berth_count" not in h.tools.names() and ("berth_count", "removed") in heard
    assert "unknown tool" in json.loads(h.tools.call("berth_count", {"port": "NLRTM"}))["error"]
    assert "berth_count" not in offered(h, "how many berths has Rotterdam", k=50)
    assert "berth_count" not in {r["name"] for r in h.backend.indexed_rows("toolbox")}


def test_the_readme_lists_exactly_the_implementation_types():
    table = README.split("<!-- implementation-types")[1].split("<!-- end implementation-types")[0]
    listed = [
        re.findall(r"`(\w+)`", row.split("|")[1])[0]
        for row in table.splitlines()[1:]
        if row.startswith("| `")
    ]
    assert listed == list(IMPLEMENTATION_TYPES)
