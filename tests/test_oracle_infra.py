"""The Oracle infrastructure files agree with each other and with the Python settings.

No Docker engine or Oracle database is needed: these are static checks of docker-compose.yml,
setup/oracle/startdb/, .devcontainer/, the GitHub Actions workflow and docs/oracle.md. Whether
Oracle really starts with them is checked only where Docker runs (the workflow's `oracle` job,
Codespaces); see docs/oracle.md.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
STARTDB = ROOT / "setup" / "oracle" / "startdb"
DEVCONTAINER = ROOT / ".devcontainer"
WORKFLOW = ROOT / ".github" / "workflows" / "tests.yml"
DOCS = ROOT / "docs" / "oracle.md"
README = (ROOT / "README.md").read_text(encoding="utf-8")

# Every account setting the compose file, the start-up scripts and the Python settings share.
ORACLE_ACCOUNT_VARS = (
    "WORKSHOP_ORACLE_USER",
    "WORKSHOP_ORACLE_PASSWORD",
    "WORKSHOP_ORACLE_SC_USER",
    "WORKSHOP_ORACLE_SC_PASSWORD",
    "WORKSHOP_ORACLE_RO_USER",
    "WORKSHOP_ORACLE_RO_PASSWORD",
)
DEFAULT_PATTERN = re.compile(r"\$\{(\w+):-([^}]*)\}")


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def oracle_service(compose) -> dict:
    return compose["services"]["oracle"]


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def devcontainer() -> dict:
    # Kept as plain JSON (no comments), so the standard parser must accept it.
    return json.loads((DEVCONTAINER / "devcontainer.json").read_text(encoding="utf-8"))


def _compose_defaults(oracle_service: dict) -> dict[str, str]:
    """The ${VAR:-default} defaults used in the service's environment, by variable."""
    found: dict[str, str] = {}
    for value in oracle_service["environment"].values():
        for name, default in DEFAULT_PATTERN.findall(str(value)):
            assert found.setdefault(name, default) == default, f"two defaults for {name}"
    return found


def _script_defaults(path: Path) -> dict[str, str]:
    return dict(DEFAULT_PATTERN.findall(path.read_text(encoding="utf-8")))


def _heredoc_sql(path: Path) -> str:
    """The SQL a start-up script sends to sqlplus (the first <<SQL ... SQL block)."""
    match = re.search(r"<<SQL\n(.*?)\nSQL\n", path.read_text(encoding="utf-8"), re.S)
    assert match, f"{path.name}: no <<SQL here-document"
    return match.group(1)


def _startdb_mount(oracle_service: dict) -> tuple[Path, str]:
    for volume in oracle_service["volumes"]:
        source, target, *options = volume.split(":")
        if target == "/container-entrypoint-startdb.d":
            return ROOT / source, ",".join(options)
    raise AssertionError("no bind mount onto /container-entrypoint-startdb.d")


def _step_runs(job: dict) -> list[str]:
    return [step.get("run", "") for step in job["steps"]]


# --- docker-compose.yml -----------------------------------------------------------------------


def test_compose_image_is_a_pinned_regular_faststart_tag(oracle_service):
    image = oracle_service["image"]
    assert re.fullmatch(r"gvenzl/oracle-free:\d+\.\d+\.\d+-faststart", image), (
        f"{image}: pin an exact version of the regular faststart image, e.g. "
        "gvenzl/oracle-free:23.26.0-faststart"
    )
    assert "slim" not in image, "slim images remove Oracle Text, Spatial, MLE and DBFS"


def test_compose_publishes_1521_on_the_host_port_the_dsn_uses(oracle_service):
    published = [str(p).rsplit(":", 2) for p in oracle_service["ports"]]
    assert any(p[-2:] == ["1521", "1521"] for p in published), oracle_service["ports"]


def test_compose_keeps_oradata_in_a_named_volume(compose, oracle_service):
    sources = [v.split(":")[0] for v in oracle_service["volumes"] if ":/opt/oracle/oradata" in v]
    assert sources, "mount a volume on /opt/oracle/oradata"
    assert sources[0] in (compose.get("volumes") or {}), (
        f"{sources[0]} must be a named volume declared under the top-level volumes:"
    )


def test_compose_health_check_uses_the_image_script_and_the_ready_marker(oracle_service):
    health = oracle_service["healthcheck"]
    command = " ".join(health["test"]) if isinstance(health["test"], list) else health["test"]
    assert "healthcheck.sh" in command
    for key in ("interval", "timeout", "retries", "start_period"):
        assert key in health, f"healthcheck needs {key}"
    marker = re.search(r"test -f (\S+)", command)
    assert marker, "the health check must also wait for the start-up scripts' marker"
    ready_script = (STARTDB / "99_ready.sh").read_text(encoding="utf-8")
    assert f":-{marker.group(1)}}}" in ready_script, "99_ready.sh writes a different marker"
    tmpfs = [str(t).split(":")[0] for t in oracle_service.get("tmpfs", [])]
    assert str(Path(marker.group(1)).parent.as_posix()) in tmpfs, (
        "the marker must live on a tmpfs so it vanishes when the container stops"
    )


def test_compose_passes_every_account_setting_with_a_default(oracle_service):
    env = oracle_service["environment"]
    for name in ("ORACLE_PASSWORD", "APP_USER", "APP_USER_PASSWORD", *ORACLE_ACCOUNT_VARS):
        assert DEFAULT_PATTERN.search(str(env.get(name, ""))), f"{name}: use ${{VAR:-default}}"
    assert env["APP_USER"] == "${WORKSHOP_ORACLE_USER:-workshop}"
    assert env["APP_USER_PASSWORD"] == "${WORKSHOP_ORACLE_PASSWORD:-Workshop_2026}"


# --- setup/oracle/startdb ---------------------------------------------------------------------


def test_mounted_start_up_scripts_exist_read_only_and_executable(oracle_service):
    folder, options = _startdb_mount(oracle_service)
    assert folder == STARTDB and folder.is_dir(), folder
    assert "ro" in options.split(","), "mount the scripts read-only (:ro)"
    scripts = sorted(folder.iterdir())
    assert [p.name for p in scripts] == ["01_vector_pool.sh", "02_users.sh", "99_ready.sh"]
    for script in scripts:
        text = script.read_bytes()
        assert text.startswith(b"#!/bin/bash\n"), script.name
        assert b"\r\n" not in text, f"{script.name} has CRLF line ends; bash in Linux fails"
        if os.name != "nt":
            # Not executable = sourced into the image's entrypoint, which we avoid.
            assert os.access(script, os.X_OK), f"chmod +x {script}"


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed here")
@pytest.mark.parametrize("name", ["01_vector_pool.sh", "02_users.sh", "99_ready.sh"])
def test_start_up_script_is_valid_bash(name):
    result = subprocess.run(
        ["bash", "-n", str(STARTDB / name)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


POSIX_BASH = pytest.mark.skipif(
    os.name == "nt" or shutil.which("bash") is None, reason="needs bash on Linux or macOS"
)


def _run_script(name: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(STARTDB / name)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env},
    )


@POSIX_BASH
@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("WORKSHOP_ORACLE_SC_USER", "x;drop"),
        ("WORKSHOP_ORACLE_RO_USER", "1abc"),
        ("WORKSHOP_ORACLE_PASSWORD", 'quote"s_2026'),
        ("WORKSHOP_ORACLE_RO_PASSWORD", "short"),
    ],
)
def test_users_script_refuses_unsafe_values_before_running_any_sql(variable, value):
    # Validation happens before sqlplus is called, so this runs without Oracle.
    result = _run_script("02_users.sh", **{variable: value})
    assert result.returncode == 1
    assert f"WORKSHOP: ERROR: {variable}" in result.stderr
    assert "sqlplus" not in result.stderr


@POSIX_BASH
def test_ready_script_writes_its_marker_or_fails_loudly(tmp_path):
    marker = tmp_path / "run" / "ready"
    ok = _run_script("99_ready.sh", WORKSHOP_READY_FILE=str(marker))
    assert ok.returncode == 0, ok.stderr
    assert marker.is_file()
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    failed = _run_script("99_ready.sh", WORKSHOP_READY_FILE=str(blocked / "ready"))
    assert failed.returncode == 1
    assert "cannot write" in failed.stderr


def _heredocs(path: Path) -> list[str]:
    """Every SQL here-document of a start-up script."""
    return re.findall(r"<<SQL[^\n]*\n(.*?)\nSQL\n", path.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("name", ["01_vector_pool.sh", "02_users.sh"])
def test_every_sqlplus_block_exits_with_failure_on_an_error(name):
    # EXIT SQL.SQLCODE exits with the ORA number modulo 256: ORA-01536 would exit 0.
    blocks = _heredocs(STARTDB / name)
    text = (STARTDB / name).read_text(encoding="utf-8")
    assert blocks and len(blocks) == text.count("<<SQL"), f"{name}: a here-document was missed"
    for block in blocks:
        first = [line.strip() for line in block.splitlines() if line.strip()][:2]
        assert first == ["WHENEVER SQLERROR EXIT FAILURE", "WHENEVER OSERROR EXIT FAILURE"], (
            name,
            first,
        )
        assert "SQL.SQLCODE" not in block


@POSIX_BASH
def test_why_sqlcode_is_no_exit_status():
    # What the shell sees of `EXIT SQL.SQLCODE` after ORA-01536 (space quota exceeded).
    result = subprocess.run(["bash", "-c", "exit 1536"], check=False)
    assert result.returncode == 0


def test_vector_pool_is_set_in_the_spfile_and_the_instance_restarted():
    sql = _heredoc_sql(STARTDB / "01_vector_pool.sh")
    script = (STARTDB / "01_vector_pool.sh").read_text(encoding="utf-8")
    assert "WORKSHOP_VECTOR_POOL_MB=512" in script
    assert re.search(r"ALTER SYSTEM SET vector_memory_size\s*=\s*\S+M\s+SCOPE\s*=\s*SPFILE", sql)
    for command in ("SHUTDOWN IMMEDIATE", "STARTUP", "ALTER PLUGGABLE DATABASE"):
        assert command in sql, command
    assert "ALTER SESSION SET CONTAINER" not in sql, "instance parameters belong to CDB$ROOT"


def test_users_script_switches_to_freepdb1_before_any_pdb_work():
    sql = _heredoc_sql(STARTDB / "02_users.sh")
    statements = [
        line.strip()
        for line in sql.splitlines()
        if line.strip() and not line.strip().startswith(("--", "WHENEVER", "SET "))
    ]
    assert re.fullmatch(r"ALTER SESSION SET CONTAINER\s*=\s*FREEPDB1;", statements[0]), statements[
        0
    ]
    for work in ("CREATE USER", "GRANT"):
        assert sql.index(statements[0]) < sql.index(work), work


def test_users_are_created_only_when_missing_and_read_only_gets_create_session_only():
    sql = _heredoc_sql(STARTDB / "02_users.sh")
    assert re.search(r"FROM dba_users WHERE username = UPPER\(p_name\)", sql)
    grants = {
        user: privileges
        for privileges, user in re.findall(r"'GRANT ([A-Z_, ]+) TO \$\{(\w+)\}'", sql)
    }
    assert grants == {
        "owner": "CREATE SESSION, DB_DEVELOPER_ROLE",
        "sc_user": "CREATE SESSION, DB_DEVELOPER_ROLE",
        "ro_user": "CREATE SESSION",
    }
    assert "ensure_user('${ro_user}', '${ro_password}', FALSE)" in sql, "no quota for read-only"


def test_compose_and_users_script_use_the_same_defaults(oracle_service):
    in_compose = _compose_defaults(oracle_service)
    in_script = _script_defaults(STARTDB / "02_users.sh")
    for name in ORACLE_ACCOUNT_VARS:
        assert in_script.get(name) == in_compose.get(name), name


# --- agreement with agent_harness/foundation/config.py --------------------------------------------


def _settings_values(settings) -> dict[str, str]:
    """Every field of the settings, as text."""
    values: dict[str, str] = {}
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        secret = getattr(value, "get_secret_value", None)
        values[name] = str(secret() if secret else value)
    return values


def _settings_default_for(monkeypatch, variable: str) -> str | None:
    """The default the Python settings use for `variable`, or None if they do not read it.

    The field is found by setting the variable to a sentinel, so this does not depend on how
    config.py names its fields.
    """
    from agent_harness.foundation.config import Settings

    # Plausible values, in case config.py validates what it reads.
    sentinel = "sentinel-host:1521/SENTINEL" if variable.endswith("_DSN") else "Sentinel_2026x"
    monkeypatch.setenv(variable, sentinel)
    field = next(
        (k for k, v in _settings_values(Settings.from_env()).items() if v == sentinel), None
    )
    monkeypatch.delenv(variable)
    return None if field is None else _settings_values(Settings.from_env())[field]


def test_account_defaults_agree_with_the_python_settings(monkeypatch, oracle_service):
    for name in (*ORACLE_ACCOUNT_VARS, "WORKSHOP_ORACLE_DSN", "WORKSHOP_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    in_python = {name: _settings_default_for(monkeypatch, name) for name in ORACLE_ACCOUNT_VARS}
    missing = [name for name, value in in_python.items() if value is None]
    if len(missing) == len(ORACLE_ACCOUNT_VARS):
        pytest.skip(
            "agent_harness/foundation/config.py does not read "
            "WORKSHOP_ORACLE_USER/_PASSWORD/_SC_*/_RO_* "
            "yet; the compose and start-up script defaults are checked against each other only"
        )
    assert not missing, f"config.py reads some Oracle account settings but not {missing}"
    in_compose = _compose_defaults(oracle_service)
    assert {n: in_compose[n] for n in ORACLE_ACCOUNT_VARS} == in_python


def test_dsn_agrees_with_the_python_settings_devcontainer_and_workflow(
    monkeypatch, devcontainer, workflow, oracle_service
):
    monkeypatch.delenv("WORKSHOP_ORACLE_DSN", raising=False)
    dsn = _settings_default_for(monkeypatch, "WORKSHOP_ORACLE_DSN")
    assert dsn == "localhost:1521/FREEPDB1"
    assert devcontainer["containerEnv"]["WORKSHOP_ORACLE_DSN"] == dsn
    assert workflow["jobs"]["oracle"]["env"]["WORKSHOP_ORACLE_DSN"] == dsn


# --- .devcontainer ----------------------------------------------------------------------------


def test_devcontainer_uses_python_312_docker_in_docker_and_codespaces_size(devcontainer):
    assert re.search(r"python:\S*3\.12", devcontainer["image"]), devcontainer["image"]
    assert any("docker-in-docker" in f for f in devcontainer["features"])
    assert {1521, 8888} <= set(devcontainer["forwardPorts"])
    assert devcontainer["hostRequirements"] == {"cpus": 4, "memory": "8gb"}
    assert devcontainer["containerEnv"]["WORKSHOP_BACKEND"] == "oracle"
    assert "OPENAI_API_KEY" in devcontainer["secrets"]
    vscode = devcontainer["customizations"]["vscode"]
    assert {"ms-python.python", "ms-toolsai.jupyter"} <= set(vscode["extensions"])
    for path in devcontainer["customizations"]["codespaces"]["openFiles"]:
        assert (ROOT / path).is_file(), path


def test_devcontainer_commands_install_start_oracle_and_prepare_it(devcontainer):
    scripts = {}
    for key in ("postCreateCommand", "postStartCommand"):
        match = re.fullmatch(r"bash (\.devcontainer/[\w-]+\.sh)", devcontainer[key])
        assert match, f"{key}: {devcontainer[key]}"
        scripts[key] = (ROOT / match.group(1)).read_text(encoding="utf-8")
    # Only sub-commands setup/bootstrap.py really has.
    source = (ROOT / "setup/bootstrap.py").read_text(encoding="utf-8")
    modes = re.search(r"^MODES = \(([^)]*)\)", source, re.M)
    used = re.search(r"setup/bootstrap\.py (\w+)", scripts["postCreateCommand"])
    assert used and modes and f'"{used.group(1)}"' in modes.group(1), used
    start = scripts["postStartCommand"]
    assert re.search(r"docker compose up -d --wait\b.* oracle\b", start)
    assert "WORKSHOP_BACKEND=oracle .venv/bin/workshop setup" in start
    # The editor connects (and opens notebook 00) only after .venv and Oracle are ready; the
    # default is updateContentCommand, before either (containers.dev JSON reference, waitFor).
    assert devcontainer.get("waitFor") == "postStartCommand"


# --- .github/workflows/tests.yml --------------------------------------------------------------


def test_workflow_keeps_the_embedded_job(workflow):
    embedded = workflow["jobs"]["embedded"]
    assert embedded["strategy"]["matrix"]["os"] == [
        "ubuntu-latest",
        "macos-latest",
        "windows-latest",
    ]
    assert "python setup/bootstrap.py test" in _step_runs(embedded)


def test_workflow_oracle_job_starts_compose_runs_marked_tests_and_every_notebook(workflow):
    job = workflow["jobs"]["oracle"]
    assert job["runs-on"] == "ubuntu-latest"
    assert job["env"]["WORKSHOP_BACKEND"] == "oracle"
    runs = "\n".join(_step_runs(job))
    assert re.search(r"docker compose up -d --wait\b.* oracle\b", runs)
    assert "python setup/bootstrap.py setup" in runs
    assert "workshop setup --backend oracle" in runs
    assert re.search(r"bootstrap\.py test -m oracle\b", runs)
    # One process: the tests share one Oracle schema, so xdist workers would change it under
    # each other (pyproject's addopts say -n auto; a later -n wins).
    [tests] = [line for line in runs.splitlines() if "bootstrap.py test -m oracle" in line]
    assert re.search(r"\s-n\s*0\b", tests) or "-p no:xdist" in tests, tests
    assert "for nb in solutions/*/*.ipynb" in runs and "papermill" in runs
    assert "-p backend oracle" in runs, "the notebooks take their backend from this parameter"
    uploads = [s for s in job["steps"] if "upload-artifact" in s.get("uses", "")]
    assert uploads and uploads[0]["if"] == "failure()"


def test_the_oracle_tests_and_notebooks_run_east_of_utc(workflow):
    # Issue 26: the session time zone follows the client; a job all in UTC hides a TIMESTAMP
    # compared with SYSTIMESTAMP. The container stays in UTC, the runner's steps do not.
    from zoneinfo import ZoneInfo

    steps = workflow["jobs"]["oracle"]["steps"]
    east = [s for s in steps if "bootstrap.py test -m oracle" in s.get("run", "")]
    east += [s for s in steps if "papermill" in s.get("run", "")]
    assert len(east) == 2
    for step in east:
        zone = ZoneInfo(step["env"]["TZ"])
        offset = zone.utcoffset(dt.datetime(2026, 1, 1))
        assert offset.total_seconds() > 0, step["name"]


def test_oracle_marker_is_registered():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^\s*"oracle:', pyproject, re.M)


# --- docs/oracle.md ---------------------------------------------------------------------------


def test_readme_names_every_oracle_module():
    section = README.split("## Backends")[1].split("\n## ")[0]
    modules = sorted(p.name for p in (ROOT / "agent_harness/backends/oracle").glob("*.py"))
    missing = [m for m in modules if m != "__init__.py" and f"`{m}`" not in section]
    assert not missing, f"README's Backends table does not name {missing}"


def test_the_health_check_rationale_matches_the_pinned_image():
    # gvenzl/oci-oracle-free since 23.8: container-entrypoint.sh keeps
    # /opt/oracle/hc-user-startup-scripts while the start-up scripts run and healthcheck.sh
    # exits 5 meanwhile; the docs must not say that nothing in healthcheck.sh waits for them.
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    assert "hc-user-startup-scripts" in text and "exits 5" in text
    assert "so that query can succeed while they still run" not in text


def test_oracle_walkthrough_covers_the_commands_and_the_known_problems():
    text = DOCS.read_text(encoding="utf-8")
    for needed in (
        "docker compose up -d --wait oracle",
        "WORKSHOP_BACKEND=oracle workshop setup",
        "workshop doctor",
        "docker compose down -v",
        "OPENAI_API_KEY",
        "ORA-51962",
        "WORKSHOP_ONNX_MODEL",
        *[p.name for p in sorted(STARTDB.iterdir())],
    ):
        assert needed in text, needed
