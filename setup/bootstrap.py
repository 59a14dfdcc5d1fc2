#!/usr/bin/env python3
"""The workshop's two commands, for any OS with Python 3.10-3.13 (standard library only).

    python3 setup/bootstrap.py          # install into .venv, prepare the database, open JupyterLab
    python3 setup/bootstrap.py test     # install what tests need and run the whole test suite

On Linux, ``test`` and ``sandbox`` also install bubblewrap (the grader's sandbox) when it is
missing and the system allows it (root or password-less sudo, apt-get); elsewhere the grader
runs with process limits only and says so.

Both install one environment, the same for every attendee, the instructor and CI: every
package pinned in requirements.lock (the universal lock generated from pyproject.toml by
setup/lock.py: exact releases for Python 3.10-3.13 on Linux, macOS and Windows) with each file's
hash checked, then the project itself (editable, no dependencies). Both are idempotent: the
virtual environment is reused, and the installer runs only when requirements.lock or
pyproject.toml changed since the last successful install (a stamp in .venv records their hash).

Installer: uv when it can be had (on PATH, or pip-installed from the package index into
.venv/bootstrap-uv/, outside the environment itself), else pip (or with WORKSHOP_INSTALLER=pip);
the same lock and hashes either way, and uv is given pip's configured package sources (index
URLs, find-links, trusted hosts, certificate). If uv fails, pip runs instead.

The last step of the first command, JupyterLab, takes this process over (Linux, macOS: exec;
Windows: a child that ends with this process, see agent_harness/interfaces/handover.py), so stopping
bootstrap (Ctrl+C, SIGTERM) stops JupyterLab and its kernels and frees the port.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
UV_REQUIREMENT = "uv==0.13.9"
UV_HOME = VENV / "bootstrap-uv"  # uv's own install folder, outside the environment's packages
LOCK = ROOT / "requirements.lock"
STAMP = VENV / ".installed-lock"
TICK_SECONDS = 3  # how often a long step prints the seconds elapsed


def say(message: str) -> None:
    print(f"[bootstrap] {message}", flush=True)


def run(*command: str | Path, env: dict | None = None, what: str | None = None) -> None:
    """Run ``command``, announced as ``what`` (or the command line itself), stop on failure."""
    result = run_showing_progress(what or " ".join(str(c) for c in command), command, env)
    if result.returncode != 0:
        sys.exit(f"[bootstrap] failed (exit {result.returncode}): {' '.join(map(str, command))}")


def run_showing_progress(what: str, command, env: dict | None) -> subprocess.CompletedProcess:
    """Say ``what``, run ``command``, and print the seconds elapsed every few seconds while it
    runs (an installer told to be quiet prints nothing for 3-12 s otherwise)."""
    say(what)
    done = threading.Event()
    started = time.monotonic()

    def tick() -> None:
        while not done.wait(TICK_SECONDS):
            say(f"  ... {time.monotonic() - started:.0f} s")

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        return subprocess.run([str(c) for c in command], cwd=ROOT, env=env)
    finally:
        done.set()
        ticker.join()


def lock_size() -> int:
    """How many packages requirements.lock pins."""
    return sum(1 for line in LOCK.read_text("utf-8").splitlines() if "==" in line.split(";")[0])


def ensure_venv() -> None:
    if not (3, 10) <= sys.version_info[:2] <= (3, 13):
        sys.exit(
            f"[bootstrap] Python {sys.version.split()[0]} is not supported: use 3.10 to 3.13 "
            "(e.g. python3.12 setup/bootstrap.py)."
        )
    if not PYTHON.exists():
        say(f"creating virtual environment {VENV}")
        venv.EnvBuilder(with_pip=True).create(VENV)


def pip_sources() -> tuple[list[str], dict[str, str]]:
    """pip's configured package sources as uv options, and the environment uv needs for them.

    Reads ``pip config list`` (pip's files and PIP_* variables; a variable beats an [install]
    setting, which beats [global]): index-url, extra-index-url, find-links, trusted-host,
    no-index and cert (uv reads a certificate bundle from SSL_CERT_FILE).
    """
    listed = subprocess.run(
        [str(PYTHON), "-m", "pip", "config", "list"], capture_output=True, text=True
    ).stdout
    rank = {"global": 0, "install": 1, ":env:": 2}
    found: dict[str, tuple[int, str]] = {}
    for line in listed.splitlines():
        key, sep, value = line.partition("=")
        section, _, name = key.rpartition(".")
        if not sep or section not in rank:
            continue
        try:
            value = str(ast.literal_eval(value))
        except (ValueError, SyntaxError):
            continue
        if name not in found or rank[section] >= found[name][0]:
            found[name] = (rank[section], value)
    settings = {name: value for name, (_, value) in found.items()}
    options: list[str] = ["--index-strategy", "unsafe-best-match"]  # pip's rule: best version
    if "index-url" in settings:
        options += ["--index-url", settings["index-url"]]
    for url in settings.get("extra-index-url", "").split():
        options += ["--extra-index-url", url]
    for link in settings.get("find-links", "").split():
        options += ["--find-links", link]
    for host in settings.get("trusted-host", "").split():
        options += ["--allow-insecure-host", host]
    if settings.get("no-index", "").lower() in ("1", "true", "yes", "on"):
        options.append("--no-index")
    env = {}
    if settings.get("cert") and not os.environ.get("SSL_CERT_FILE"):
        env["SSL_CERT_FILE"] = settings["cert"]
    return options, env


def find_uv() -> str | None:
    """A uv executable: on PATH, in .venv/bootstrap-uv, or pip-installed there now."""
    on_path = shutil.which("uv")
    if on_path:
        return on_path
    exe = "uv.exe" if os.name == "nt" else "uv"

    def installed() -> str | None:
        return next((str(p) for p in UV_HOME.glob(f"*/{exe}") if p.is_file()), None)

    if not installed():
        say(f"installing {UV_REQUIREMENT} (a faster installer) into {UV_HOME}")
        pip = [str(PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        done = subprocess.run([*pip, "--target", str(UV_HOME), UV_REQUIREMENT], cwd=ROOT)
        if done.returncode != 0:
            say("uv could not be installed: using pip")
            return None
    return installed()


def install() -> None:
    """Install the lock (every package, hash-checked), then the project (editable), uv or pip."""
    locked = ("--require-hashes", "-r", LOCK)
    project = ("--no-deps", "-e", ROOT)
    lock_step = f"installing the {lock_size()} packages of {LOCK.name} (hashes checked)"
    project_step = "installing the workshop itself (editable)"
    uv = None if os.environ.get("WORKSHOP_INSTALLER") == "pip" else find_uv()
    if uv:
        options, extra_env = pip_sources()
        env = {**os.environ, **extra_env}
        uv_pip = (uv, "pip", "install", "--quiet", "--python", PYTHON, *options)
        # compiled as pip compiles (uv does not by default): see compile_bytecode
        lock_command = (*uv_pip, "--compile-bytecode", *locked)
        for what, command in ((lock_step, lock_command), (project_step, (*uv_pip, *project))):
            if run_showing_progress(f"{what} with uv", command, env).returncode != 0:
                say(f"uv failed ({' '.join(map(str, command))}): installing with pip instead")
                break
        else:
            return
    pip = (PYTHON, "-m", "pip", "install", "--quiet", "--disable-pip-version-check")
    run(*pip, *locked, what=f"{lock_step} with pip")
    run(*pip, *project, what=f"{project_step} with pip")


#: Part of the stamp: what an install does besides the lock (an environment installed before
#: the packages were compiled is installed once more, which compiles them).
INSTALL_RECIPE = b"packages compiled to bytecode"

#: The project's own packages, compiled in place by :func:`compile_bytecode`.
PROJECT_PACKAGES = ("agent_harness", "grader")


def compile_bytecode() -> None:
    """Compile the project's own modules (the packages are compiled when they install).

    Every Python process, each notebook's kernel, each sandbox of the grader (which cannot
    write ``__pycache__``), otherwise compiles what it imports from source when bytecode may
    not be written (``PYTHONDONTWRITEBYTECODE``, a read-only checkout): seconds per process.
    Up-to-date files are skipped; a failure only costs that time.
    """
    folders = [str(ROOT / name) for name in PROJECT_PACKAGES]
    subprocess.run(
        [str(PYTHON), "-m", "compileall", "-q", "-j", "0", *folders],
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )


def ensure_installed(kit: Path | None = None) -> None:
    """Install unless this lock and pyproject.toml were installed last time (the stamp), from
    the package index, or from a room kit (see install_from_kit)."""
    locked = LOCK.read_bytes() + (ROOT / "pyproject.toml").read_bytes()
    digest = hashlib.sha256(locked + INSTALL_RECIPE).hexdigest()
    if STAMP.exists() and STAMP.read_text() == digest:
        say(f"{LOCK.name} already installed")
        return
    started = time.monotonic()
    install() if kit is None else install_from_kit(kit)
    STAMP.write_text(digest)
    say(f"{LOCK.name} installed in {time.monotonic() - started:.1f} s")


def hand_over(command: list, env: dict) -> None:
    """The final, long-running step: this process becomes it (see
    agent_harness/interfaces/handover.py)."""
    path = ROOT / "agent_harness" / "interfaces" / "handover.py"  # standard library only, by path
    spec = importlib.util.spec_from_file_location("workshop_handover", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    say(" ".join(str(c) for c in command))
    os.chdir(ROOT)
    module.hand_over([str(c) for c in command], env)


def ensure_sandbox() -> None:
    """Install bubblewrap for `workshop grade` on Debian/Ubuntu when missing (best effort)."""
    if not sys.platform.startswith("linux") or shutil.which("bwrap"):
        return
    apt = shutil.which("apt-get")
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    sudo = [] if root else ["sudo", "-n"]
    if not apt or (not root and not shutil.which("sudo")):
        say("bubblewrap not installed: `workshop grade` will use process limits only")
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = [*sudo, apt, "install", "-y", "-qq", "bubblewrap"]
    say("installing bubblewrap (the grader's sandbox): " + " ".join(install))
    if subprocess.run(install, env=env, capture_output=True).returncode != 0:
        subprocess.run([*sudo, apt, "update", "-qq"], env=env, capture_output=True)
        subprocess.run(install, env=env, capture_output=True)
    if not shutil.which("bwrap"):
        say("could not install bubblewrap: `workshop grade` will use process limits only")


# --- The offline room kit (--kit PATH): a separate install path, the online one is untouched ---
#
# A kit (`workshop kit build`, agent_harness/kit/) is one folder holding every file of the lock
# for its platforms, uv's wheel and a manifest of sha256s. With --kit, bootstrap first checks the
# kit (agent_harness/kit/manifest.py, standard library only, loaded by path): built from this
# checkout's requirements.lock, for this platform and Python, every file it will read present
# with its sha256. Any problem stops it BEFORE .venv is created or changed. Then it installs
# the same lock with the same hashes required, with uv from the kit's own wheel (pip with
# WORKSHOP_INSTALLER=pip or when uv fails), from the kit's wheels alone: no index, no network.


def kit_checks():
    """agent_harness/kit/manifest.py, loaded by path (nothing is installed yet)."""
    path = ROOT / "agent_harness" / "kit" / "manifest.py"
    spec = importlib.util.spec_from_file_location("workshop_kit_manifest", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def check_kit(kit: Path) -> None:
    """Refuse a kit that cannot install here, naming each file and what to do."""
    say(f"checking the kit {kit} (platform, Python, lock, every file's sha256)")
    problems = kit_checks().check_for_install(kit, LOCK)
    if problems:
        lines = [f"  {p}" for p in problems[:10]]
        if len(problems) > 10:
            lines.append(f"  ... and {len(problems) - 10} more")
        sys.exit(f"[bootstrap] refused the kit {kit} (nothing was installed):\n" + "\n".join(lines))


def kit_uv(kit: Path) -> str | None:
    """uv from the kit's own wheel for this platform, pip-installed offline into UV_HOME."""
    exe = "uv.exe" if os.name == "nt" else "uv"
    found = next((str(p) for p in UV_HOME.glob(f"*/{exe}") if p.is_file()), None)
    if found:
        return found
    checks = kit_checks()
    manifest, _ = checks.read_manifest(kit)
    wheel = kit / manifest["targets"][checks.this_machine()[0]]["installer"]
    say(f"installing uv (a faster installer) from the kit into {UV_HOME}")
    pip = [str(PYTHON), "-m", "pip", "install", "--isolated", "--quiet", "--no-index"]
    done = subprocess.run([*pip, "--no-deps", "--target", str(UV_HOME), str(wheel)], cwd=ROOT)
    if done.returncode != 0:
        say("uv could not be installed from the kit: using pip")
        return None
    return next((str(p) for p in UV_HOME.glob(f"*/{exe}") if p.is_file()), None)


def install_from_kit(kit: Path) -> None:
    """install(), from the kit's wheels alone: the same lock, hashes required, no index."""
    sources = ("--no-index", "--find-links", kit / "wheels")
    locked = ("--require-hashes", "-r", LOCK)
    project = ("--no-deps", "-e", ROOT)  # built with the kit's setuptools (a locked package)
    lock_step = (
        f"installing the {lock_size()} packages of {LOCK.name} from the kit (hashes checked)"
    )
    project_step = "installing the workshop itself (editable)"
    uv = None if os.environ.get("WORKSHOP_INSTALLER") == "pip" else kit_uv(kit)
    if uv:
        uv_pip = (uv, "pip", "install", "--quiet", "--python", PYTHON, "--offline", "--no-config")
        steps = (
            (lock_step, (*uv_pip, *sources, *locked)),
            (project_step, (*uv_pip, *sources, *project)),
        )
        for what, command in steps:
            if run_showing_progress(f"{what} with uv", command, None).returncode != 0:
                say(f"uv failed ({' '.join(map(str, command))}): installing with pip instead")
                break
        else:
            return
    # --isolated and no config file: pip's configured indexes and find-links are not read
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
    pip = (PYTHON, "-m", "pip", "install", "--isolated", "--quiet", *sources)
    run(*pip, *locked, env=env, what=f"{lock_step} with pip")
    run(*pip, *project, env=env, what=f"{project_step} with pip")


MODES = ("start", "setup", "sandbox", "test")
PROG = "python3 setup/bootstrap.py"
USAGE = "%(prog)s [MODE] [OPTIONS]"
_MODES_HELP = """modes:
  start [--no-lab] [LAB OPTIONS]  (the default) install into .venv, prepare the database, open
                                  JupyterLab; --no-lab stops before JupyterLab; LAB OPTIONS are
                                  `workshop lab`'s (see `workshop lab --help`), e.g. --instructor
  setup                           install into .venv and prepare the database only
  sandbox                         install bubblewrap, the grader's sandbox (Linux)
  test [PYTEST ARGS]              install what tests need and run the test suite
  help (or -h, --help)            print this and exit (nothing is installed)"""
_KIT_HELP = (
    "with start, setup or test: install from a room kit (`workshop kit build`) with no network;"
    " a kit for another platform or Python, built from another lock, or with a missing or"
    " corrupt file is refused before anything is installed"
)


def _kit_parser() -> argparse.ArgumentParser:
    """The one option bootstrap reads wherever it is: ``--kit PATH`` (or ``--kit=PATH``)."""
    parser = argparse.ArgumentParser(prog=PROG, usage=USAGE, add_help=False, allow_abbrev=False)
    parser.add_argument("--kit", metavar="PATH", help=_KIT_HELP)
    return parser


def _mode(value: str) -> str:
    if value not in (*MODES, "help"):
        raise argparse.ArgumentTypeError(f"unknown mode {value!r}; the modes: {', '.join(MODES)}")
    return value


def parser() -> argparse.ArgumentParser:
    """The command line: a mode, then the options of what it runs (JupyterLab's, pytest's),
    handed over untouched; ``--kit`` is taken out first (:func:`split_kit`)."""
    command = argparse.ArgumentParser(
        prog=PROG,
        usage=USAGE,
        description=_MODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
        parents=[_kit_parser()],
    )
    command.add_argument(
        "mode", nargs="?", default="start", type=_mode, metavar="MODE", help=argparse.SUPPRESS
    )
    command.add_argument("options", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return command


def split_kit(argv: list[str]) -> tuple[list[str], Path | None]:
    """``--kit PATH`` (or ``--kit=PATH``) taken out of the arguments, anywhere in them."""
    found, rest = _kit_parser().parse_known_args(argv)
    return rest, Path(found.kit).expanduser().resolve() if found.kit else None


def main(argv: list[str]) -> None:
    argv, kit = split_kit(argv)  # --kit PATH, wherever it is
    command = parser()
    args = command.parse_args(argv)  # -h and --help print the help and exit here
    mode, options = args.mode, args.options
    if mode == "help":
        command.print_help()  # before anything is created: asking for help installs nothing
        return
    if kit is not None:
        if mode == "sandbox":
            command.error("--kit goes with start, setup or test")
        check_kit(kit)  # before .venv is created or changed
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    ensure_venv()
    if mode == "test":
        ensure_sandbox()
        ensure_installed(kit)
        compile_bytecode()
        hand_over([PYTHON, "-m", "pytest", *options], env)
    elif mode in ("start", "setup"):
        ensure_installed(kit)
        compile_bytecode()
        run(PYTHON, "-m", "agent_harness.interfaces.cli", "setup", env=env)
        if mode == "start" and "--no-lab" not in options:
            hand_over([PYTHON, "-m", "agent_harness.interfaces.cli", "lab", *options], env)
    else:  # sandbox
        ensure_sandbox()


if __name__ == "__main__":
    main(sys.argv[1:])
