"""agent_harness/foundation/config.py: Settings read from environment variables by
pydantic-settings, each setting declared once (its type, default and variable), the same
variables and errors as the hand-written Settings.from_env it replaced (issue 29 item 4)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_harness.foundation import config
from agent_harness.foundation.config import DEFAULT_ONNX_MODEL, Settings

#: Each variable, the setting it fills, and its default: the table of the module's docstring.
VARIABLES = {
    "WORKSHOP_BACKEND": ("backend", "embedded"),
    "WORKSHOP_USER": ("user_id", "workshop"),
    "WORKSHOP_AGENT": ("agent_id", "supplychain-agent"),
    "WORKSHOP_LLM": ("llm_mode", "auto"),
    "OPENAI_API_KEY": ("openai_api_key", None),
    "OPENAI_BASE_URL": ("openai_base_url", None),
    "WORKSHOP_MODEL": ("model", "gpt-4o-mini"),
    "WORKSHOP_ORACLE_DSN": ("oracle_dsn", "localhost:1521/FREEPDB1"),
    "WORKSHOP_ORACLE_USER": ("oracle_user", "workshop"),
    "WORKSHOP_ORACLE_PASSWORD": ("oracle_password", "Workshop_2026"),
    "WORKSHOP_ORACLE_RO_USER": ("oracle_ro_user", "workshop_ro"),
    "WORKSHOP_ORACLE_RO_PASSWORD": ("oracle_ro_password", "WorkshopRo_2026"),
    "WORKSHOP_ORACLE_SC_USER": ("oracle_sc_user", "supplychain"),
    "WORKSHOP_ORACLE_SC_PASSWORD": ("oracle_sc_password", "Supplychain_2026"),
    "WORKSHOP_ONNX_MODEL": ("onnx_model", DEFAULT_ONNX_MODEL),
    "WORKSHOP_DATA_DIR": ("data_dir", None),  # the project's .workshop folder
}
#: What a variable must hold to be taken as given (the two with a fixed set of values).
GIVEN = {"WORKSHOP_BACKEND": "oracle", "WORKSHOP_LLM": "offline"}


@pytest.fixture
def clean_env(monkeypatch):
    for variable in VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    return monkeypatch


def _documented_variables() -> set[str]:
    """The variables the module docstring's table names (``X_USER / _PASSWORD`` spelled out)."""
    names = set()
    for row in re.findall(r"^\| ([A-Z_ /]+) \|", config.__doc__, re.M):
        first, *rest = [name.strip() for name in row.split("/")]
        names.add(first)
        stem = first.rsplit("_", 1)[0]
        names.update(name if not name.startswith("_") else stem + name for name in rest)
    return names


def test_each_setting_is_read_from_its_variable_and_documented():
    """One declaration per setting names its variable; the docstring's table lists exactly those
    variables (on main the variables were written inside from_env only: nothing to compare)."""
    declared = {f.validation_alias: name for name, f in Settings.model_fields.items()}
    assert declared == {variable: name for variable, (name, _) in VARIABLES.items()}
    assert _documented_variables() == set(declared)


@pytest.mark.parametrize("variable", list(VARIABLES))
def test_a_variable_sets_its_setting_and_unset_gives_the_default(clean_env, variable):
    name, default = VARIABLES[variable]
    if variable != "WORKSHOP_DATA_DIR":
        assert getattr(Settings.from_env(), name) == default
    value = GIVEN.get(variable, f"/given/{variable.lower()}")
    clean_env.setenv(variable, value)
    expected = Path(value) if variable == "WORKSHOP_DATA_DIR" else value
    assert getattr(Settings.from_env(), name) == expected


def test_empty_or_spaced_values_are_read_as_before(clean_env, tmp_path):
    for variable in VARIABLES:
        clean_env.setenv(variable, "")
    empty = Settings.from_env()
    assert (empty.backend, empty.llm_mode, empty.onnx_model) == (
        "embedded",
        "auto",
        DEFAULT_ONNX_MODEL,
    )
    assert (empty.openai_api_key, empty.openai_base_url) == (None, None)
    assert empty.data_dir == config._default_data_dir()
    assert empty.user_id == "" and empty.oracle_dsn == ""  # the others: empty is a value
    clean_env.setenv("WORKSHOP_BACKEND", " Oracle ")
    clean_env.setenv("WORKSHOP_LLM", " OFFLINE ")
    clean_env.setenv("WORKSHOP_ONNX_MODEL", "  none ")
    clean_env.setenv("WORKSHOP_DATA_DIR", "~/workshop-data")
    spaced = Settings.from_env()
    assert (spaced.backend, spaced.llm_mode, spaced.onnx_model) == ("oracle", "offline", "none")
    assert spaced.data_dir == Path("~/workshop-data").expanduser()
    clean_env.setenv("workshop_backend", "oracle")  # names are exact, as os.environ's are
    clean_env.delenv("WORKSHOP_BACKEND")
    assert Settings.from_env().backend == "embedded"


def test_keyword_arguments_win_over_the_environment_and_none_means_not_given(clean_env):
    clean_env.setenv("WORKSHOP_BACKEND", "oracle")
    clean_env.setenv("WORKSHOP_USER", "from-env")
    settings = Settings.from_env(backend="embedded", user_id="kw", agent_id=None, data_dir="~/d")
    assert (settings.backend, settings.user_id) == ("embedded", "kw")
    assert (
        settings.agent_id == "supplychain-agent" and settings.data_dir == Path("~/d").expanduser()
    )
    with pytest.raises(Exception, match="frozen"):
        settings.backend = "oracle"
    assert settings.model_copy(update={"model": "m"}).model == "m"
    assert "Workshop_2026" not in repr(settings)  # passwords stay out of logs


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("WORKSHOP_BACKEND", "postgres",
         "WORKSHOP_BACKEND='postgres' is not a backend; use one of ('embedded', 'oracle')."),
        ("WORKSHOP_LLM", "Sometimes",
         "WORKSHOP_LLM='sometimes' is not a mode; use auto, live or offline."),
    ],
)  # fmt: skip
def test_a_bad_value_says_which_variable_and_what_it_accepts(clean_env, variable, value, message):
    clean_env.setenv(variable, value)
    with pytest.raises(ValueError) as raised:
        Settings.from_env()
    assert str(raised.value) == message  # the same words as before, no pydantic noise
    clean_env.delenv(variable)
    with pytest.raises(ValueError, match="is not a mode"):
        Settings.from_env(llm_mode="bogus")
