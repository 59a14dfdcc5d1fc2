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

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

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


@dataclass(frozen=True)
class Settings:
    """Everything :func:`agent_harness.connect` needs to know.

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

    backend: str = "embedded"
    data_dir: Path = field(default_factory=_default_data_dir)
    user_id: str = "workshop"
    agent_id: str = "supplychain-agent"
    llm_mode: str = "auto"
    openai_api_key: str | None = None
    openai_base_url: str | None = None
    model: str = "gpt-4o-mini"
    oracle_dsn: str = "localhost:1521/FREEPDB1"
    oracle_user: str = "workshop"
    oracle_password: str = field(default="Workshop_2026", repr=False)
    oracle_ro_user: str = "workshop_ro"
    oracle_ro_password: str = field(default="WorkshopRo_2026", repr=False)
    oracle_sc_user: str = "supplychain"
    oracle_sc_password: str = field(default="Supplychain_2026", repr=False)
    onnx_model: str = DEFAULT_ONNX_MODEL

    @classmethod
    def from_env(cls, **overrides) -> Settings:
        """Build settings from the environment; keyword arguments win over it.

        Raises:
            ValueError: An unknown backend or LLM mode, with the accepted values.
        """
        env = os.environ
        settings = cls(
            backend=env.get("WORKSHOP_BACKEND", "embedded").strip().lower() or "embedded",
            data_dir=Path(env["WORKSHOP_DATA_DIR"]).expanduser()
            if env.get("WORKSHOP_DATA_DIR")
            else _default_data_dir(),
            user_id=env.get("WORKSHOP_USER", "workshop"),
            agent_id=env.get("WORKSHOP_AGENT", "supplychain-agent"),
            llm_mode=env.get("WORKSHOP_LLM", "auto").strip().lower() or "auto",
            openai_api_key=env.get("OPENAI_API_KEY") or None,
            openai_base_url=env.get("OPENAI_BASE_URL") or None,
            model=env.get("WORKSHOP_MODEL", "gpt-4o-mini"),
            oracle_dsn=env.get("WORKSHOP_ORACLE_DSN", "localhost:1521/FREEPDB1"),
            oracle_user=env.get("WORKSHOP_ORACLE_USER", "workshop"),
            oracle_password=env.get("WORKSHOP_ORACLE_PASSWORD", "Workshop_2026"),
            oracle_ro_user=env.get("WORKSHOP_ORACLE_RO_USER", "workshop_ro"),
            oracle_ro_password=env.get("WORKSHOP_ORACLE_RO_PASSWORD", "WorkshopRo_2026"),
            oracle_sc_user=env.get("WORKSHOP_ORACLE_SC_USER", "supplychain"),
            oracle_sc_password=env.get("WORKSHOP_ORACLE_SC_PASSWORD", "Supplychain_2026"),
            onnx_model=env.get("WORKSHOP_ONNX_MODEL", DEFAULT_ONNX_MODEL).strip()
            or DEFAULT_ONNX_MODEL,
        )
        overrides = {k: v for k, v in overrides.items() if v is not None}
        if "data_dir" in overrides:
            overrides["data_dir"] = Path(overrides["data_dir"]).expanduser()
        settings = replace(settings, **overrides)
        if settings.backend not in BACKENDS:
            raise ValueError(
                f"WORKSHOP_BACKEND={settings.backend!r} is not a backend; use one of {BACKENDS}."
            )
        if settings.llm_mode not in ("auto", "live", "offline"):
            raise ValueError(
                f"WORKSHOP_LLM={settings.llm_mode!r} is not a mode; use auto, live or offline."
            )
        return settings
