"""The pins agree: requirements files and the per-Python locks in constraints/ never drift."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^;\s]+)\s*(?:;\s*(.+))?$")


def _pins(path: Path, version: tuple[int, int]) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        match = PIN.match(line.strip())
        if not match:
            continue
        name, pinned, marker = match.groups()
        if marker:
            op, wanted = re.match(r'python_version\s*([<>=]+)\s*"([\d.]+)"', marker).groups()
            wanted = tuple(int(x) for x in wanted.split("."))
            if not {"<": version < wanted, ">=": version >= wanted}[op]:
                continue
        pins[name.lower().replace("_", "-")] = pinned
    return pins


@pytest.mark.parametrize(
    "lock", sorted((ROOT / "constraints").glob("py3*.txt")), ids=lambda p: p.stem
)
def test_every_direct_pin_matches_the_lock(lock):
    version = (3, int(lock.stem[3:]))
    wanted = {
        **_pins(ROOT / "requirements.txt", version),
        **_pins(ROOT / "requirements-dev.txt", version),
    }
    locked = _pins(lock, version)
    mismatched = {n: (v, locked.get(n)) for n, v in wanted.items() if locked.get(n) != v}
    assert not mismatched, f"regenerate {lock.name} (pip freeze): {mismatched}"


def test_a_lock_exists_for_every_supported_python():
    assert {p.stem for p in (ROOT / "constraints").glob("py3*.txt")} == {
        "py310",
        "py311",
        "py312",
        "py313",
    }
    assert (3, 10) <= sys.version_info[:2] <= (3, 13)
