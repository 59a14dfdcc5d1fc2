"""House style is enforced: ruff (E, F, I, W, B, UP) passes on the project's Python."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_check_passes():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "agent_harness",
            "grader",
            "tests",
            "bench",
            "setup",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
