"""The environment, read in one place. Each setting resolves the same way everywhere: the flag,
else the variable, else (where there is one) the profile's config, else the default; `lib` takes
the explicit values these return and never reads the environment itself."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from memory_pipeline.lib.hermes.profiles import pipeline_data_dir, resolve_hermes_home

if TYPE_CHECKING:
    from memory_pipeline.lib.privacy.matching import KeywordList

HERMES_HOME_ENV = "HERMES_HOME"
DATA_DIR_ENV = "MEMORY_PIPELINE_DATA_DIR"
DAGSTER_HOME_ENV = "DAGSTER_HOME"
OLLAMA_HOST_ENV = "OLLAMA_HOST"
MODEL_ENV = "MEMORY_PIPELINE_OLLAMA_MODEL"
KEYWORDS_ENV = "MEMORY_PIPELINE_PRIVACY_KEYWORDS"
# Set only where the software is started (or by the CLI's --allow-remote-ollama), never by a run's
# config: anyone who can reach the UI could otherwise send the memory files off the machine.
REMOTE_ENV = "MEMORY_PIPELINE_ALLOW_REMOTE_OLLAMA"


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


def keywords_named(flag: str | os.PathLike | None = None) -> str | os.PathLike | None:
    """The keyword list the user named: `--keywords`, else `$MEMORY_PIPELINE_PRIVACY_KEYWORDS`."""
    return flag or variable(KEYWORDS_ENV)


# The keyword list (RE2) and Ollama (pandas, through the extractors) are imported where a value
# is asked for: every command imports this module, and `--help` or `search` stay quick.


def keywords_path(flag: str | os.PathLike | None, home: Path) -> Path:
    from memory_pipeline.lib.privacy.matching import keyword_list_path

    return keyword_list_path(keywords_named(flag), home)


def keywords(flag: str | os.PathLike | None, home: Path) -> KeywordList:
    """The list that applies (a named one must be there; the home's own may be absent)."""
    from memory_pipeline.lib.privacy.matching import load_keyword_list

    return load_keyword_list(keywords_named(flag), home)


def ollama_host(flag: str | None = None) -> str:
    """`--ollama-host` (or the resource's field), else `$OLLAMA_HOST`, else the local default."""
    from memory_pipeline.lib.extraction.ollama import ollama_url

    return ollama_url(flag or variable(OLLAMA_HOST_ENV))


def model(flag: str | None = None) -> str:
    from memory_pipeline.lib.extraction.ollama import ollama_model

    return ollama_model(flag or variable(MODEL_ENV))


def remote_ollama_allowed() -> bool:
    """Whoever started this process allowed an Ollama host off this machine."""
    return (variable(REMOTE_ENV) or "").lower() in ("1", "true", "yes")
