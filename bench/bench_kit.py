"""Time an offline install from a room kit, beside an online install, back to back.

    .venv/bin/python bench/bench_kit.py [KIT]

Without KIT, builds a kit for this platform and Python first (the user's cache folder
`<cache>/agent-harness-workshop/kit-files` first, the index for the rest, as tests/test_kit.py
does). Then, for each run, a fresh copy of the project from the kit's project/source.zip and:

- kit: `python3 setup/bootstrap.py setup --kit KIT` in a network namespace with no network
  (`unshare -n`, root) and an empty uv cache (what an attendee's laptop sees);
- online: `python3 setup/bootstrap.py setup` with the machine's uv cache (the usual path).

Prints, per run, bootstrap's own install time ("requirements.lock installed in X s"), the whole
command's time (venv, install, `workshop setup`), and the load average. Target: the install from
the kit under 60 s. Needs Linux with `unshare` and `ip` as root.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
NO_NETWORK = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]


def build(out: Path) -> Path:
    from agent_harness.kit.build import build_kit
    from agent_harness.kit.manifest import this_machine
    from grader.cache_paths import cache_root

    key, python = this_machine()
    started = time.monotonic()
    result = build_kit(out, [key], [python], find_links=[cache_root() / "kit-files"])
    print(f"kit for {key}, Python {python}: {result.manifest['size'] / 1e6:,.0f} MB, built in "
          f"{time.monotonic() - started:.1f} s")  # fmt: skip
    return out


def run(kit: Path, mode: str, home: Path) -> None:
    with zipfile.ZipFile(kit / "project" / "source.zip") as archive:
        archive.extractall(home / "workshop")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WORKSHOP_", "VIRTUAL_ENV"))}
    python = getattr(sys, "_base_executable", sys.executable)
    command = [python, "setup/bootstrap.py", "setup"]
    if mode == "kit":
        env["UV_CACHE_DIR"] = str(home / "uv-cache")
        command = [*NO_NETWORK, *command, "--kit", str(kit)]
    load = os.getloadavg()
    started = time.monotonic()
    done = subprocess.run(command, cwd=home / "workshop", env=env, capture_output=True, text=True)
    total = time.monotonic() - started
    installed = re.search(r"installed in ([0-9.]+) s", done.stdout)
    status = "ok" if done.returncode == 0 and "ready:" in done.stdout else "FAILED"
    loads = " ".join(f"{x:.2f}" for x in load)
    print(
        f"{mode:<7} {status}  install {installed and installed.group(1)} s, whole `setup` "
        f"{total:.1f} s  (load average before: {loads})"
    )
    if status != "ok":
        print(done.stdout[-2000:], done.stderr[-2000:])


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-kit-") as tmp:
        kit = Path(argv[0]) if argv else build(Path(tmp) / "kit")
        for round_ in range(2):
            for mode in ("kit", "online"):
                home = Path(tmp) / f"{mode}-{round_}"
                run(kit, mode, home)
                shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
