"""The offline room kit (issue 30): `workshop kit build` picks the lock's files per platform
and Python, `python3 setup/bootstrap.py --kit` refuses a kit that cannot install here before
anything is installed, and a kit built from the lock installs the workshop in a network
namespace with no network, where `workshop setup` and a notebook run.

Where the end-to-end kit's files come from: the kit builder itself, with the user's cache folder
(`<cache>/agent-harness-workshop/kit-files/`) as its first source (`--find-links`) and the
package index only for the files missing there; each build leaves its files in that folder. The
first run on a machine downloads the ~290 MB one platform and Python need (about 15 s here);
every later run reads no index page at all. uv's cache cannot serve instead: it keeps wheels
unpacked, not the files whose sha256 the lock names. When the index is unreachable and the
folder is incomplete, the end-to-end tests are skipped with that reason.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from agent_harness.kit import manifest as kit_manifest
from agent_harness.kit.plan import plan_kit
from agent_harness.kit.sources import DistFile, LocalFiles, fetch
from agent_harness.kit.targets import wheel_rank
from agent_harness.kit.verify import verify_kit
from grader.notebook_folders import notebook_path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
KEY, PYTHON = kit_manifest.this_machine()
NUMPY = "numpy-2.4.6-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"


# --- choosing files: wheel tags and the lock's hashes (no network) ---


@pytest.mark.parametrize(
    ("filename", "key", "python", "fits"),
    [
        (NUMPY, "linux-x86_64", "3.11", True),
        (NUMPY, "linux-x86_64", "3.12", False),
        (NUMPY, "linux-aarch64", "3.11", False),
        ("x-1-cp312-cp312-manylinux_2_34_x86_64.whl", "linux-x86_64", "3.12", False),  # > 2.28
        ("x-1-cp310-abi3-manylinux2014_aarch64.whl", "linux-aarch64", "3.13", True),
        ("x-1-cp312-cp312-macosx_14_0_arm64.whl", "macos-arm64", "3.12", True),
        ("x-1-cp312-cp312-macosx_15_0_arm64.whl", "macos-arm64", "3.12", False),  # macOS > 14
        ("x-1-cp312-cp312-macosx_10_13_universal2.whl", "macos-arm64", "3.12", True),
        ("x-1-cp312-cp312-win_amd64.whl", "windows-amd64", "3.12", True),
        ("x-1-cp312-cp312-win32.whl", "windows-amd64", "3.12", False),
        ("x-1-py3-none-any.whl", "windows-amd64", "3.10", True),
        ("x-1.tar.gz", "linux-x86_64", "3.12", False),  # an sdist needs building: never chosen
    ],
)  # fmt: skip
def test_a_wheel_fits_exactly_the_targets_its_tags_name(filename, key, python, fits):
    assert (wheel_rank(filename, key, python) is not None) is fits


def _wheel(folder: Path, filename: str, content: bytes) -> str:
    (folder / filename).write_bytes(content)
    return hashlib.sha256(content).hexdigest()


def test_the_plan_takes_only_files_whose_sha256_the_lock_names(tmp_path):
    files = tmp_path / "files"
    files.mkdir()
    pure = _wheel(files, "demo_pure-1.0-py3-none-any.whl", b"pure")
    linux = _wheel(files, "demo_native-2.0-cp312-cp312-manylinux_2_17_x86_64.whl", b"linux")
    _wheel(files, "demo_native-2.0-cp312-cp312-win_amd64.whl", b"a file the lock never saw")
    uv = _wheel(files, "uv-0.13.9-py3-none-win_amd64.whl", b"uv")
    _wheel(files, "uv-0.13.9-py3-none-manylinux_2_17_x86_64.whl", b"uv too")
    lock = tmp_path / "requirements.lock"
    lock.write_text(
        f"demo-pure==1.0 \\\n    --hash=sha256:{pure}\n"
        f"demo-native==2.0 \\\n    --hash=sha256:{linux} \\\n    --hash=sha256:{'0' * 64}\n"
        "demo-windows-only==3.0 ; sys_platform == 'win32' \\\n"
        f"    --hash=sha256:{'1' * 64}\n"
    )
    plan = plan_kit(
        lock, ["linux-x86_64", "windows-amd64"], ["3.12"], LocalFiles([files]), None, "0.13.9"
    )
    chosen = {t: sorted(f.filename for f in fs) for t, fs in plan.wheels.items()}
    assert chosen[("linux-x86_64", "3.12")] == [
        "demo_native-2.0-cp312-cp312-manylinux_2_17_x86_64.whl",
        "demo_pure-1.0-py3-none-any.whl",
    ]
    # the Windows wheel's bytes are not the lock's, and the Windows-only package has no file
    assert plan.gaps[("windows-amd64", "3.12")] == ["demo-native==2.0", "demo-windows-only==3.0"]
    assert plan.installers["windows-amd64"].sha256 == uv
    assert plan.needs("linux-x86_64") == "2.17"


class _Index:
    """A package index's answers, as PackageIndex.many gives them (files with URLs)."""

    def __init__(self, files: dict):
        self.files = files
        self.asked: list = []

    def many(self, releases, progress):
        self.asked += releases
        return {r: self.files.get(r, []) for r in releases}


def test_the_index_is_asked_about_every_release_and_its_best_wheel_wins(tmp_path):
    """A local py3-none-any wheel fits Windows, but an online install takes the release's
    win_amd64 wheel: so does the kit (the first rule, "the index only for what the local folders
    cannot serve", put the pure wheel in 4 Windows targets of the real lock). A local file with
    the chosen sha256 is copied instead of downloaded."""
    files = tmp_path / "files"
    files.mkdir()
    pure = _wheel(files, "speedy-1.0-py3-none-any.whl", b"pure python")
    native = hashlib.sha256(b"compiled").hexdigest()
    lock = tmp_path / "requirements.lock"
    lock.write_text(f"speedy==1.0 \\\n    --hash=sha256:{pure} \\\n    --hash=sha256:{native}\n")
    remote = DistFile("speedy-1.0-cp312-cp312-win_amd64.whl", native, 8, url="https://x/s.whl")
    index = _Index(
        {
            ("speedy", "1.0"): [
                remote,
                DistFile("speedy-1.0-py3-none-any.whl", pure, 11, url="u"),
            ],
            ("uv", "0.13.9"): [DistFile("uv-0.13.9-py3-none-any.whl", "ab" * 32, 2, url="u")],
        }
    )
    plan = plan_kit(
        lock, ["windows-amd64", "linux-x86_64"], ["3.12"], LocalFiles([files]), index, "0.13.9"
    )
    assert sorted(index.asked) == [("speedy", "1.0"), ("uv", "0.13.9")]
    assert plan.wheels[("windows-amd64", "3.12")] == [remote]
    [linux] = plan.wheels[("linux-x86_64", "3.12")]
    assert linux.path == files / "speedy-1.0-py3-none-any.whl"  # copied, not downloaded


def test_a_file_whose_bytes_are_not_the_expected_ones_is_not_written(tmp_path):
    source = tmp_path / "a-1-py3-none-any.whl"
    source.write_bytes(b"tampered")
    wanted = DistFile(source.name, hashlib.sha256(b"original").hexdigest(), 8, path=source)
    with pytest.raises(ValueError, match="is not the expected"):
        fetch(wanted, tmp_path / "out.whl", None, lambda n: None)
    assert not list(tmp_path.glob("out.whl*"))


# --- bootstrap --kit refuses a kit before anything is installed (a small kit, no network) ---


def _small_kit(folder: Path, key: str = KEY, python: str = PYTHON, lock: Path = LOCK) -> Path:
    """A kit of two stand-in wheels with a real manifest (what `workshop kit build` writes)."""
    (folder / "wheels").mkdir(parents=True)
    (folder / "installer").mkdir()
    names = ["wheels/demo-1.0-py3-none-any.whl", "installer/uv-0.13.9-py3-none-any.whl"]
    for name in names:
        (folder / name).write_bytes(name.encode() * 100)
    shutil.copyfile(lock, folder / "requirements.lock")
    files = {
        n: {"sha256": kit_manifest.sha256_of(folder / n), "size": (folder / n).stat().st_size}
        for n in [*names, "requirements.lock"]
    }
    manifest = {
        "format": kit_manifest.FORMAT,
        "built": "2026-11-28T00:00:00Z",
        "project": {"name": "agent-harness-workshop", "version": "0.1.0", "commit": "0" * 40},
        "lock_sha256": kit_manifest.lock_sha256(lock.read_text("utf-8")),
        "platforms": [key],
        "pythons": [python],
        "common": ["requirements.lock"],
        "targets": {
            key: {"installer": names[1], "needs": None, "pythons": {python: [names[0]]}, "size": 1}
        },
        "files": files,
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


@pytest.fixture
def checkout(tmp_path) -> Path:
    """The files bootstrap reads before installing: itself, the kit checks, the lock."""
    copy = tmp_path / "checkout"
    for name in ("setup/bootstrap.py", "agent_harness/kit/manifest.py", "requirements.lock",
                 "pyproject.toml"):  # fmt: skip
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, copy / name)
    return copy


def _bootstrap(checkout: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, str(checkout / "setup" / "bootstrap.py"), *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert not (checkout / ".venv").exists(), "refused, yet something was installed"
    return done


def test_a_corrupt_file_is_refused_by_name_before_anything_is_installed(checkout, tmp_path):
    kit = _small_kit(tmp_path / "kit")
    with open(kit / "wheels/demo-1.0-py3-none-any.whl", "r+b") as f:
        f.write(b"X")  # same size, one byte changed: only the sha256 tells
    done = _bootstrap(checkout, "setup", "--kit", str(kit))
    assert done.returncode != 0
    assert "refused the kit" in done.stderr and "nothing was installed" in done.stderr
    assert "wheels/demo-1.0-py3-none-any.whl: corrupt" in done.stderr, done.stderr
    assert "copy the kit again" in done.stderr and "workshop kit verify" in done.stderr


def test_a_missing_file_is_refused_by_name(checkout, tmp_path):
    kit = _small_kit(tmp_path / "kit")
    (kit / "installer/uv-0.13.9-py3-none-any.whl").unlink()
    done = _bootstrap(checkout, "--kit", str(kit))  # the default mode, start
    assert done.returncode != 0
    assert "installer/uv-0.13.9-py3-none-any.whl: missing" in done.stderr, done.stderr


def test_a_kit_for_another_platform_is_refused_with_what_to_build(checkout, tmp_path):
    other = "windows-amd64" if KEY != "windows-amd64" else "linux-x86_64"
    kit = _small_kit(tmp_path / "kit", key=other)
    done = _bootstrap(checkout, "test", "--kit", str(kit), "-x")
    assert done.returncode != 0
    assert f"this kit is for {other} (Python {PYTHON}); this laptop is {KEY}" in done.stderr
    assert f"--platform {KEY}" in done.stderr, done.stderr


def test_a_kit_for_another_python_is_refused_with_what_to_run(checkout, tmp_path):
    other = "3.10" if PYTHON != "3.10" else "3.13"
    kit = _small_kit(tmp_path / "kit", python=other)
    done = _bootstrap(checkout, f"--kit={kit}", "setup")
    assert done.returncode != 0
    assert f"this kit holds Python {other} for {KEY}; this is Python {PYTHON}" in done.stderr


def test_a_kit_older_than_the_lock_is_refused_naming_what_it_lacks(checkout, tmp_path):
    older = tmp_path / "older.lock"
    older.write_text(LOCK.read_text("utf-8").replace("numpy==", "numpy==0.", 1), "utf-8")
    kit = _small_kit(tmp_path / "kit", lock=older)
    done = _bootstrap(checkout, "setup", "--kit", str(kit))
    assert done.returncode != 0
    assert (
        "requirements.lock: this checkout's requirements.lock is not the one the kit" in done.stderr
    )
    assert "the kit lacks numpy==" in done.stderr and "workshop kit build" in done.stderr


def test_a_folder_that_is_not_a_kit_is_refused(checkout, tmp_path):
    done = _bootstrap(checkout, "setup", "--kit", str(tmp_path))
    assert (
        done.returncode != 0 and "manifest.json: missing: this is not a workshop kit" in done.stderr
    )


def test_a_crlf_checkout_of_the_same_lock_is_the_same_lock(tmp_path):
    """A Windows checkout may turn the lock's line ends into CRLF: still the kit's lock."""
    kit = _small_kit(tmp_path / "kit")
    crlf = tmp_path / "requirements.lock"
    crlf.write_bytes(LOCK.read_bytes().replace(b"\n", b"\r\n"))
    assert kit_manifest.check_for_install(kit, crlf) == []


@pytest.mark.skipif(kit_manifest.os_version(KEY.split("-")[0]) is None, reason="no glibc/macOS")
def test_a_kit_needing_a_newer_glibc_or_macos_is_refused(tmp_path):
    kit = _small_kit(tmp_path / "kit")
    manifest = json.loads((kit / "manifest.json").read_text())
    manifest["targets"][KEY]["needs"] = "99.0"
    (kit / "manifest.json").write_text(json.dumps(manifest))
    [problem] = kit_manifest.check_for_install(kit, LOCK)
    assert "is older than the 99.0 the kit's wheels need" in problem.problem


def test_a_kit_is_never_written_over_anything_but_a_kit(tmp_path):
    from agent_harness.kit.build import KitBuildError, build_kit

    (tmp_path / "notes.txt").write_text("mine")
    for out in (tmp_path, ROOT):
        with pytest.raises(KitBuildError, match="holds more than a kit"):
            build_kit(out, [KEY], [PYTHON], index_url=None, echo=lambda s: None)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def _load_bootstrap():
    spec = importlib.util.spec_from_file_location("bootstrap_kit_test", ROOT / "setup/bootstrap.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_kit_install_names_no_index_and_requires_hashes(monkeypatch, tmp_path):
    """The commands of the kit path: the kit's wheels alone, the lock with its hashes."""
    bootstrap = _load_bootstrap()
    calls = []

    def record(command, **kwargs):
        calls.append([str(c) for c in command])
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(bootstrap.subprocess, "run", record)
    monkeypatch.setattr(bootstrap, "kit_uv", lambda kit: "/kit/uv")
    monkeypatch.delenv("WORKSHOP_INSTALLER", raising=False)
    bootstrap.install_from_kit(tmp_path)
    lock_step, project_step = calls
    for command in calls:
        assert command[:3] == ["/kit/uv", "pip", "install"]
        assert {"--offline", "--no-config", "--no-index"} <= set(command)
        assert ["--find-links", str(tmp_path / "wheels")] in [
            command[i : i + 2] for i in range(len(command))
        ]
        assert not any(c.startswith("--index-url") or c == "--extra-index-url" for c in command)
    assert lock_step[-3:] == ["--require-hashes", "-r", str(bootstrap.LOCK)]
    assert project_step[-3:] == ["--no-deps", "-e", str(bootstrap.ROOT)]
    calls.clear()
    monkeypatch.setenv("WORKSHOP_INSTALLER", "pip")
    bootstrap.install_from_kit(tmp_path)
    assert [c[1:5] for c in calls] == [["-m", "pip", "install", "--isolated"]] * 2
    assert all("--no-index" in c for c in calls)
    assert calls[0][-3:] == ["--require-hashes", "-r", str(bootstrap.LOCK)]


def test_kit_is_taken_out_of_the_arguments_wherever_it_is():
    bootstrap = _load_bootstrap()
    assert bootstrap.split_kit(["start", "--kit", "k", "--port", "9"]) == (
        ["start", "--port", "9"], Path("k").resolve(),
    )  # fmt: skip
    assert bootstrap.split_kit(["--kit=k"]) == ([], Path("k").resolve())
    assert bootstrap.split_kit(["test", "-x"]) == (["test", "-x"], None)


# --- the Oracle image: the docker commands it runs (a stand-in docker; Docker is not here) ---

FAKE_DOCKER = """#!/bin/sh
echo "$@" >> "$DOCKER_LOG"
case "$1 $2" in
  "info --format")
    [ -n "$DOCKER_DOWN" ] && { echo "Cannot connect to the Docker daemon" >&2; exit 1; }
    echo 27.5.1 ;;
  "image inspect") echo amd64 ;;
  "image save") printf 'image layers' > "$4" ;;
esac
"""


@pytest.fixture
def fake_docker(tmp_path, monkeypatch) -> Path:
    if os.name == "nt":
        pytest.skip("the stand-in docker is a shell script")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "docker").write_text(FAKE_DOCKER)
    (bin_dir / "docker").chmod(0o755)
    log = tmp_path / "docker.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("DOCKER_LOG", str(log))
    return log


def test_the_oracle_image_is_saved_into_the_kit_and_loaded_from_it(fake_docker, tmp_path):
    from agent_harness.backends.oracle.kit_image import compose_image, load_image, save_image

    image = compose_image()
    assert image == "gvenzl/oracle-free:23.26.0-faststart"  # docker-compose.yml's
    kit = _small_kit(tmp_path / "kit")
    entry = save_image(kit / "oracle", echo=lambda s: None)
    archive = kit / entry["file"]
    assert entry["image"] == image and entry["architecture"] == "amd64"
    assert entry["sha256"] == hashlib.sha256(archive.read_bytes()).hexdigest()
    manifest = json.loads((kit / "manifest.json").read_text())
    manifest["oracle"] = entry
    manifest["files"][entry["file"]] = {"sha256": entry["sha256"], "size": entry["size"]}
    (kit / "manifest.json").write_text(json.dumps(manifest))
    said = []
    load_image(kit, echo=said.append)
    log = fake_docker.read_text().splitlines()
    assert log == [
        "info --format {{.ServerVersion}}",
        f"image inspect --format {{{{.Architecture}}}} {image}",
        f"image save -o {archive} {image}",
        f"image load -i {archive}",
    ]
    assert said[-1].endswith("docker compose up -d --wait --pull never oracle")


def test_a_damaged_oracle_archive_is_not_loaded(fake_docker, tmp_path):
    from agent_harness.backends.oracle.kit_image import KitImageError, load_image, save_image

    kit = _small_kit(tmp_path / "kit")
    entry = save_image(kit / "oracle", echo=lambda s: None)
    manifest = json.loads((kit / "manifest.json").read_text())
    manifest["oracle"] = entry
    manifest["files"][entry["file"]] = {"sha256": entry["sha256"], "size": entry["size"]}
    (kit / "manifest.json").write_text(json.dumps(manifest))
    (kit / entry["file"]).write_bytes(b"image layerz")
    with pytest.raises(KitImageError, match="corrupt"):
        load_image(kit, echo=lambda s: None)
    assert "image load" not in fake_docker.read_text()


def test_without_docker_the_oracle_option_says_so(tmp_path, monkeypatch):
    from agent_harness.backends.oracle.kit_image import KitImageError, save_image

    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(KitImageError, match="`docker` is not on PATH"):
        save_image(tmp_path / "oracle", echo=lambda s: None)


def test_without_dockers_engine_the_build_stops_before_any_download(
    fake_docker, tmp_path, monkeypatch
):
    """A Docker CLI with no engine behind it (this machine): said first, nothing fetched."""
    from agent_harness.kit.build import KitBuildError, build_kit

    monkeypatch.setenv("DOCKER_DOWN", "1")
    with pytest.raises(KitBuildError, match="needs Docker's engine, which does not answer"):
        build_kit(tmp_path / "kit", [KEY], [PYTHON], oracle=True, echo=lambda s: None)
    assert not (tmp_path / "kit").exists()
    assert fake_docker.read_text().splitlines() == ["info --format {{.ServerVersion}}"]


# --- end to end: a kit for this platform and Python, installed with no network ---


def _no_network_prefix() -> list[str] | None:
    """A command prefix that runs in a new network namespace: no interface but loopback,
    brought up so a kernel and its client can talk (`unshare -n` as root, else `unshare -rn`)."""
    if not sys.platform.startswith("linux") or not (shutil.which("unshare") and shutil.which("ip")):
        return None
    for flags in ("-n", "-rn"):
        if subprocess.run(["unshare", flags, "true"], capture_output=True).returncode == 0:
            return ["unshare", flags, "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]
    return None


NO_NETWORK = _no_network_prefix()
needs_namespace = pytest.mark.skipif(
    NO_NETWORK is None,
    reason="no network namespace here (needs Linux with unshare and ip, as root or with user "
    "namespaces)",
)


@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> Path:
    """A kit for this platform and Python, built from the lock (see the module's docstring)."""
    from agent_harness.kit.build import KitBuildError, build_kit
    from grader.cache_paths import cache_root

    if KEY not in {p.key for p in kit_manifest.PLATFORMS if not p.unsupported}:
        pytest.skip(f"the workshop does not install on {KEY}")
    cache = cache_root() / "kit-files"
    cache.mkdir(parents=True, exist_ok=True)
    out = tmp_path_factory.mktemp("kit") / "kit"
    try:  # the cache alone (filled by an earlier build, whose files the index vouched for)
        build_kit(out, [KEY], [PYTHON], find_links=[cache], index_url=None, echo=lambda s: None)
    except KitBuildError:  # the cache lacks files: the index serves those, once
        try:
            build_kit(out, [KEY], [PYTHON], find_links=[cache], echo=lambda s: None)
        except KitBuildError as e:
            if "reading the package index failed" in str(e):
                pytest.skip(f"the index is unreachable and {cache} lacks files: {e}")
            raise
    for folder in ("wheels", "installer"):
        for path in (out / folder).iterdir():
            if not (cache / path.name).exists():  # a temporary name, then one atomic rename
                partial = cache / f"{path.name}.{os.getpid()}.part"
                shutil.copyfile(path, partial)
                os.replace(partial, cache / path.name)
    return out


def _attendee_env(home: Path) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("WORKSHOP_", "OPENAI_", "OTEL_", "VIRTUAL_ENV", "PYTHONPATH", "UV_"))
    }
    # uv's cache starts empty: what is installed comes from the kit
    return {**env, "UV_CACHE_DIR": str(home / "uv-cache"), "WORKSHOP_LLM": "offline"}


@pytest.fixture(scope="module")
def attendee(kit, tmp_path_factory):
    """An attendee's laptop with no network: the kit's source unzipped, then
    `python3 setup/bootstrap.py setup --kit KIT` in a network namespace."""
    if NO_NETWORK is None:
        pytest.skip("no network namespace here")
    home = tmp_path_factory.mktemp("attendee")
    with zipfile.ZipFile(kit / "project" / "source.zip") as archive:
        archive.extractall(home / "workshop")
    python = getattr(sys, "_base_executable", sys.executable)
    command = [*NO_NETWORK, python, "setup/bootstrap.py", "setup", "--kit", str(kit)]
    started = time.monotonic()
    done = subprocess.run(
        command, cwd=home / "workshop", env=_attendee_env(home), capture_output=True,
        text=True, timeout=1200,
    )  # fmt: skip
    installed = re.search(r"requirements.lock installed in ([0-9.]+ s)", done.stdout)
    print(
        f"\nbootstrap setup --kit with no network: {time.monotonic() - started:.1f} s, the "
        f"install {installed and installed.group(1)}; load average {os.getloadavg()}"
    )
    return home, done


@needs_namespace
def test_the_namespace_has_no_network():
    code = "import socket; socket.create_connection(('pypi.org', 443), timeout=10)"
    done = subprocess.run([*NO_NETWORK, sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode != 0 and ("gaierror" in done.stderr or "OSError" in done.stderr)


@pytest.mark.slow
@needs_namespace
def test_bootstrap_installs_from_the_kit_with_no_network_and_prepares_the_database(attendee):
    home, done = attendee
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert "installing uv (a faster installer) from the kit" in out
    assert "packages of requirements.lock from the kit (hashes checked) with uv" in out
    assert "ready: 75 memories" in out, out[-2000:]
    assert (home / "workshop" / ".workshop").is_dir()


@pytest.mark.slow
@needs_namespace
def test_the_kit_installs_exactly_the_locks_releases(attendee):
    """The same environment as an online install: every lock entry for this Python, no other."""
    from agent_harness.kit.targets import lock_module

    home, done = attendee
    assert done.returncode == 0
    venv_python = (
        home / "workshop" / ".venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    )
    code = (
        "import importlib.metadata as m, json, platform; print(json.dumps([platform."
        "python_version(), {d.metadata['Name']: d.version for d in m.distributions()}]))"
    )
    full, installed = json.loads(subprocess.check_output([str(venv_python), "-c", code]))
    lock = lock_module()
    target = next(p for p in kit_manifest.PLATFORMS if p.key == KEY)
    env = lock.environment(
        full, ("", target.sys_platform, target.machine, target.os_name, target.system)
    )
    expected = {
        n: pins[0].version
        for n, pins in lock.applicable(lock.read_lock(LOCK.read_text()), env).items()
    }
    expected["agent-harness-workshop"] = "0.1.0"
    got = {lock.canonicalize_name(n): v for n, v in installed.items() if n not in ("pip",)}
    assert got == expected


@pytest.mark.slow
@needs_namespace
def test_a_notebook_runs_with_papermill_with_no_network(attendee, tmp_path):
    home, done = attendee
    assert done.returncode == 0
    workshop = home / "workshop"
    papermill = workshop / ".venv" / "bin" / "papermill"
    out = tmp_path / "00_setup.ipynb"
    # the attendee's kit carries no solutions: the instructor's notebook, in the kit's install
    solution = notebook_path("00_setup")
    run = subprocess.run(
        [*NO_NETWORK, str(papermill), str(solution), str(out), "-p", "backend",
         "embedded", "-p", "llm_mode", "offline", "--no-progress-bar"],
        cwd=workshop, env=_attendee_env(home), capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    cells = json.loads(out.read_text())["cells"]
    outputs = [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])]
    assert outputs and not [o for o in outputs if o.get("output_type") == "error"]


def test_an_attendees_kit_leaves_the_instructors_material_out(tmp_path):
    """A kit handed to the attendees of a graded course must not carry the answers: the
    project's source in it has no solutions/ (solutions, probes, answers), tests/ or bench/
    unless the instructor asks (``--instructor``); what the attendee needs is there."""
    from agent_harness.kit.build import INSTRUCTOR_ONLY, _source_files

    attendee, instructor = _source_files(tmp_path), _source_files(tmp_path, instructor=True)
    assert [n for n in attendee if n.startswith(INSTRUCTOR_ONLY)] == []
    for folder in (
        "solutions/00_setup/probes.py",
        "solutions/00_setup/answers.py",
        "tests/",
        "bench/",
    ):
        assert any(n.startswith(folder) for n in instructor), folder
    for needed in ("setup/bootstrap.py", "requirements.lock", "pyproject.toml",
                   "notebooks/00_setup.ipynb", "grader/check.py", "grader/value_checks.py",
                   "agent_harness/harness.py"):  # fmt: skip
        assert needed in attendee, needed
    assert set(attendee) < set(instructor)


@pytest.mark.slow
def test_the_kit_holds_the_locks_files_the_project_and_a_three_line_readme(kit):
    manifest = json.loads((kit / "manifest.json").read_text())
    hashes = {
        h.removeprefix("--hash=sha256:")
        for h in LOCK.read_text().split()
        if h.startswith("--hash=")
    }
    wheels = manifest["targets"][KEY]["pythons"][PYTHON]
    assert wheels and all(manifest["files"][w]["sha256"] in hashes for w in wheels)
    assert all(kit_manifest.sha256_of(kit / w) == manifest["files"][w]["sha256"] for w in wheels)
    assert manifest["installer"] == "uv==" + _load_bootstrap().UV_REQUIREMENT.split("==")[1]
    assert (kit / manifest["targets"][KEY]["installer"]).name.startswith("uv-")
    assert any(
        n.startswith("project/agent_harness_workshop-") and n.endswith(".whl")
        for n in manifest["files"]
    )
    released = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert sorted(p.name for p in (kit / "notebooks").iterdir()) == released
    assert len((kit / "README-KIT.md").read_text().splitlines()) == 3
    # an attendee's kit (the default): neither the source nor the wheel holds the answers
    from agent_harness.kit.build import INSTRUCTOR_ONLY

    assert manifest["project"]["contents"] == "attendee"
    (wheel,) = (kit / "project").glob("*.whl")
    for archive in (kit / "project" / "source.zip", wheel):
        with zipfile.ZipFile(archive) as opened:
            held = [n for n in opened.namelist() if n.startswith(INSTRUCTOR_ONLY)]
        assert held == [], (archive.name, held[:5])
    size = sum(
        manifest["files"][n]["size"]
        for n in {*manifest["common"], manifest["targets"][KEY]["installer"], *wheels}
    )
    assert manifest["targets"][KEY]["size"] == size


@pytest.mark.slow
def test_verify_finds_a_lost_and_a_damaged_file_of_a_copy(kit, tmp_path):
    assert verify_kit(kit).problems == []
    copy = tmp_path / "stick"
    shutil.copytree(kit, copy, copy_function=os.link)  # hard links: no copy of 290 MB
    manifest = json.loads((kit / "manifest.json").read_text())
    lost, damaged = manifest["targets"][KEY]["pythons"][PYTHON][:2]
    (copy / lost).unlink()
    data = (copy / damaged).read_bytes()
    (copy / damaged).unlink()  # a new file: the kit's own stays intact
    (copy / damaged).write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    problems = [str(p) for p in verify_kit(copy).problems]
    assert problems == [
        f"{p}: {what}; {kit_manifest.VERIFY_HINT}"
        for p, what in sorted([(lost, "missing (lost in the copy)"),
                               (damaged, "corrupt: its sha256 is not the manifest's")])
    ]  # fmt: skip
