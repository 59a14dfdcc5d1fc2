"""Settings read from environment variables, with defaults that work on a laptop.

| variable | meaning | default |
|---|---|---|
| WORKSHOP_BACKEND | ``embedded`` (SQLite, no server) or ``oracle`` | ``embedded`` |
| WORKSHOP_DATA_DIR | folder holding the embedded databases | ``<project>/.workshop`` |
| WORKSHOP_USER / WORKSHOP_AGENT | the memory scope | ``workshop`` / ``supplychain-agent`` |
| WORKSHOP_LLM | ``auto`` (live when a key is set), ``live`` or ``offline`` | ``auto`` |
| OPENAI_API_KEY / OPENAI_BASE_URL | any OpenAI-compatible endpoint | unset |
| WORKSHOP_MODEL | the chat model name | ``gpt-4o-mini`` |
| WORKSHOP_ORACLE_DSN | Oracle connect string | ``localhost:1521/FREEPDB1`` |
| WORKSHOP_ORACLE_USER / _PASSWORD | the harness owner (memory, toolbox, ...) | ``workshop`` |
| WORKSHOP_ORACLE_RO_USER / _PASSWORD | run_sql's user: SELECT grants only | ``workshop_ro`` |
| WORKSHOP_ORACLE_SC_USER / _PASSWORD | owner of the SUPPLYCHAIN demo schema | ``supplychain`` |
| WORKSHOP_ONNX_MODEL | in-database model: URL or file (zip/.onnx), ``none`` | Oracle's URL |

The Oracle defaults match ``docker-compose.yml`` and the init scripts in ``setup/oracle/``.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings", "PROJECT_ROOT", "BACKENDS", "DEFAULT_ONNX_MODEL"]

BACKENDS = ("embedded", "oracle")

# Oracle's augmented all_MiniLM_L12_v2 (tokenizer inside the ONNX graph), as linked from the AI
# Vector Search User's Guide, "SQL Quick Start Using a Vector Embedding Model Uploaded into the
# Database". Such links rotate: the current one is on Oracle's "oml_ai_models_object_storage"
# page (docs.oracle.com/pls/topic/lookup?ctx=en/database/oracle/oracle-database/26/vecse
# &id=oml_ai_models_object_storage).
DEFAULT_ONNX_MODEL = (
    "https://adwc4pm.objectstorage.us-ashburn-1.oci.customer-oci.com/p/"
    "VBRD9P8ZFWkKvnfhrWxkpPe8K03-JIoM5h_8EJyJcpE80c108fuUjg7R5L5O7mMZ/n/adwc4pm/b/"
    "OML-Resources/o/all_MiniLM_L12_v2_augmented.zip"
)

# The package lives at <project>/agent_harness when installed editable from the repository.
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _default_data_dir() -> Path:
    if (PROJECT_ROOT / "pyproject.toml").exists():
        return PROJECT_ROOT / ".workshop"
    return Path.cwd() / ".workshop"


def _setting(default, variable: str, **options):
    """A field read from the environment variable ``variable`` (by its exact name)."""
    if callable(default):
        return Field(default_factory=default, validation_alias=variable, **options)
    return Field(default, validation_alias=variable, **options)


class Settings(BaseSettings):
    """Everything :func:`agent_harness.connect` needs to know.

    Each setting is declared once below: its type, its default and the environment variable it
    is read from (pydantic-settings reads them; see the table in the module's docstring).
    Build it with :meth:`from_env`; ``settings.model_copy(update={...})`` gives a changed copy.

    Attributes:
        backend: ``embedded`` or ``oracle``.
        data_dir: Folder of the embedded databases (ignored by the Oracle backend).
        user_id: Memory scope: whose memories.
        agent_id: Memory scope: which agent's memories.
        llm_mode: ``auto``, ``live`` or ``offline``.
        openai_api_key: Key for the live endpoint, if any.
        openai_base_url: Base URL of an OpenAI-compatible endpoint, if not OpenAI's.
        model: Chat model name for the live endpoint.
        oracle_dsn: Oracle connect string (Oracle backend only).
        oracle_user: The harness owner on Oracle (memories, toolbox, skillbox, scratchpad).
        oracle_password: Its password.
        oracle_ro_user: The read-only user behind run_sql (CREATE SESSION + SELECT grants).
        oracle_ro_password: Its password.
        oracle_sc_user: The owner of the SUPPLYCHAIN demo schema (must be SUPPLYCHAIN).
        oracle_sc_password: Its password.
        onnx_model: URL or local path of the in-database embedding model (zip or .onnx), or
            ``none`` for client-side embeddings.
    """

    model_config = SettingsConfigDict(
        frozen=True,
        case_sensitive=True,  # WORKSHOP_BACKEND, not workshop_backend
        validate_by_name=True,  # from_env(backend=...) as well as WORKSHOP_BACKEND
        validate_by_alias=True,
        extra="forbid",
    )

    backend: str = _setting("embedded", "WORKSHOP_BACKEND")
    data_dir: Path = _setting(_default_data_dir, "WORKSHOP_DATA_DIR")
    user_id: str = _setting("workshop", "WORKSHOP_USER")
    agent_id: str = _setting("supplychain-agent", "WORKSHOP_AGENT")
    llm_mode: str = _setting("auto", "WORKSHOP_LLM")
    openai_api_key: str | None = _setting(None, "OPENAI_API_KEY")
    openai_base_url: str | None = _setting(None, "OPENAI_BASE_URL")
    model: str = _setting("gpt-4o-mini", "WORKSHOP_MODEL")
    oracle_dsn: str = _setting("localhost:1521/FREEPDB1", "WORKSHOP_ORACLE_DSN")
    oracle_user: str = _setting("workshop", "WORKSHOP_ORACLE_USER")
    oracle_password: str = _setting("Workshop_2026", "WORKSHOP_ORACLE_PASSWORD", repr=False)
    oracle_ro_user: str = _setting("workshop_ro", "WORKSHOP_ORACLE_RO_USER")
    oracle_ro_password: str = _setting("WorkshopRo_2026", "WORKSHOP_ORACLE_RO_PASSWORD", repr=False)
    oracle_sc_user: str = _setting("supplychain", "WORKSHOP_ORACLE_SC_USER")
    oracle_sc_password: str = _setting(
        "Supplychain_2026", "WORKSHOP_ORACLE_SC_PASSWORD", repr=False
    )
    onnx_model: str = _setting(DEFAULT_ONNX_MODEL, "WORKSHOP_ONNX_MODEL")

    # For the settings below, an empty variable means "not set" (the default is used).
    @field_validator("backend", mode="before")
    @classmethod
    def _known_backend(cls, value) -> str:
        backend = str(value).strip().lower() or "embedded"
        if backend not in BACKENDS:
            raise ValueError(
                f"WORKSHOP_BACKEND={backend!r} is not a backend; use one of {BACKENDS}."
            )
        return backend

    @field_validator("llm_mode", mode="before")
    @classmethod
    def _known_mode(cls, value) -> str:
        mode = str(value).strip().lower() or "auto"
        if mode not in ("auto", "live", "offline"):
            raise ValueError(f"WORKSHOP_LLM={mode!r} is not a mode; use auto, live or offline.")
        return mode

    @field_validator("data_dir", mode="before")
    @classmethod
    def _folder(cls, value) -> Path:
        return Path(value).expanduser() if value else _default_data_dir()

    @field_validator("openai_api_key", "openai_base_url", mode="before")
    @classmethod
    def _set_or_none(cls, value) -> str | None:
        return value or None

    @field_validator("onnx_model", mode="before")
    @classmethod
    def _model_or_default(cls, value) -> str:
        return str(value).strip() or DEFAULT_ONNX_MODEL

    @classmethod
    def from_env(cls, **overrides) -> Settings:
        """Build settings from the environment; keyword arguments (not None) win over it.

        Raises:
            ValueError: An unknown backend or LLM mode, with the accepted values.
        """
        try:
            return cls(**{name: value for name, value in overrides.items() if value is not None})
        except ValidationError as error:
            # the validators' own words, without pydantic's "Value error, " and error URLs
            messages = [str(e.get("ctx", {}).get("error") or e["msg"]) for e in error.errors()]
            raise ValueError(" ".join(messages)) from None
