"""The environment, read in one place. Each setting resolves the same way everywhere: the flag,
else the variable, else the default; `lib` takes the explicit values these return and never reads
the environment itself (what a profile's config adds is `context.home`'s)."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

from memory_pipeline.lib.hermes.profiles import pipeline_data_dir, resolve_hermes_home

HERMES_HOME_ENV = "HERMES_HOME"
DATA_DIR_ENV = "MEMORY_PIPELINE_DATA_DIR"
DAGSTER_HOME_ENV = "DAGSTER_HOME"
OLLAMA_HOST_ENV = "OLLAMA_HOST"
MODEL_ENV = "MEMORY_PIPELINE_OLLAMA_MODEL"
KEYWORDS_ENV = "MEMORY_PIPELINE_PRIVACY_KEYWORDS"
# What recall by meaning embeds with: bundled (default), off or ollama:MODEL.
EMBEDDER_ENV = "MEMORY_PIPELINE_EMBEDDER"
# Set only where the software is started (or by the CLI's --allow-remote-ollama), never by a run's
# config: anyone who can reach the UI could otherwise send the memory files off the machine.
REMOTE_ENV = "MEMORY_PIPELINE_ALLOW_REMOTE_OLLAMA"
# The warm worker: where its socket goes (else the temporary directory) and how long it stays idle.
RUNTIME_DIR_ENV = "XDG_RUNTIME_DIR"
WORKER_IDLE_ENV = "MEMORY_PIPELINE_WORKER_IDLE"
WORKER_IDLE_S = 600.0


def variable(name: str) -> str | None:
    """A variable's value, None when unset or blank."""
    return os.environ.get(name, "").strip() or None


def hermes_home(flag: str | os.PathLike | None = None) -> Path:
    """`--hermes-home`, else `$HERMES_HOME`, else `~/.hermes`: the home Hermes itself would use."""
    return resolve_hermes_home(flag or variable(HERMES_HOME_ENV))


def data_dir(home: Path) -> Path:
    """`$MEMORY_PIPELINE_DATA_DIR`, else `<hermes-home>/memory-pipeline`."""
    return pipeline_data_dir(home, variable(DATA_DIR_ENV))


def dagster_home(home: Path) -> Path:
    """`$DAGSTER_HOME`, else `dagster_home/` in the pipeline's data directory."""
    override = variable(DAGSTER_HOME_ENV)
    return Path(override).expanduser().resolve() if override else data_dir(home) / "dagster_home"


def worker_address(home: Path) -> Path:
    """The socket of the warm worker for this home, this environment and this installation: a
    different setting (or an upgrade) is another worker, never one started with the old. In a
    directory of this user's alone, short enough for a Unix socket's 108 bytes."""
    import memory_pipeline

    package = Path(memory_pipeline.__file__)
    settings = [variable(name) for name in (KEYWORDS_ENV, OLLAMA_HOST_ENV, MODEL_ENV, EMBEDDER_ENV, REMOTE_ENV)]
    key = [str(home), str(data_dir(home)), str(dagster_home(home)), *settings, sys.executable, str(package), package.stat().st_mtime_ns]
    digest = hashlib.sha256(json.dumps(key).encode()).hexdigest()[:24]
    base = Path(variable(RUNTIME_DIR_ENV) or tempfile.gettempdir())
    return base / f"memory-pipeline-{os.geteuid()}" / f"{digest}.sock"


def worker_idle_s() -> float:
    """`$MEMORY_PIPELINE_WORKER_IDLE` seconds, else ten minutes: how long a warm worker waits for
    the next sync before it leaves."""
    try:
        return max(1.0, float(variable(WORKER_IDLE_ENV) or WORKER_IDLE_S))
    except ValueError:
        return WORKER_IDLE_S


# Ollama's client (pandas, through the extractors) is imported where a value is asked for: every
# command imports this module, and `--help` or `search` stay quick.


def ollama_host(flag: str | None = None) -> str:
    """`--ollama-host` (or the resource's field), else `$OLLAMA_HOST`, else the local default."""
    from memory_pipeline.lib.extraction.ollama import ollama_url

    return ollama_url(flag or variable(OLLAMA_HOST_ENV))


def model(flag: str | None = None) -> str:
    from memory_pipeline.lib.extraction.ollama import ollama_model

    return ollama_model(flag or variable(MODEL_ENV))


def embedder(flag: str | None = None, in_force: str | None = None) -> str:
    """`--embedder` (or the resource's field), else `$MEMORY_PIPELINE_EMBEDDER`, else the model the
    store's vectors were made with (a model chosen once stays until another is named), else the
    bundled encoder."""
    return flag or variable(EMBEDDER_ENV) or in_force or "bundled"


def remote_ollama_allowed() -> bool:
    """Whoever started this process allowed an Ollama host off this machine (a command's own
    `--allow-remote-ollama` travels in its `SyncOptions` instead)."""
    return (variable(REMOTE_ENV) or "").lower() in ("1", "true", "yes")
