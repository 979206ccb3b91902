"""What a profile's agent has of memory-pipeline, read from its `config.yaml` as Hermes reads it:
the plugin enabled (`plugins.enabled`, not `plugins.disabled`, its directory under `plugins/`), or
the MCP server configured (`mcp_servers`, a server whose command runs `memory-pipeline mcp`).
Either one lets the agent follow a compacted entry's `fact_store#N` pointer to its full text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory_pipeline.lib.hermes.profiles import Profile, config_section

PLUGIN_NAME = "memory-pipeline"


def plugin_dir(profile_home: Path) -> Path:
    """Where `hermes-plugin install` writes the plugin for a profile (Hermes' user plugins)."""
    return profile_home / "plugins" / PLUGIN_NAME


def plugin_enabled(profile: Profile) -> bool:
    """The plugin is installed and listed in `plugins.enabled` (and not in `plugins.disabled`)."""
    plugins = config_section(profile.home / "config.yaml", "plugins")
    enabled, disabled = plugins.get("enabled"), plugins.get("disabled")
    return (
        isinstance(enabled, list)
        and PLUGIN_NAME in enabled
        and not (isinstance(disabled, list) and PLUGIN_NAME in disabled)
        and (plugin_dir(profile.home) / "__init__.py").is_file()
    )


def pointer_reader(profile: Profile) -> str | None:
    """How the profile's agent follows `fact_store#N`: "the memory-pipeline plugin", "the
    memory-pipeline MCP server", or None when it cannot."""
    if plugin_enabled(profile):
        return "the memory-pipeline plugin"
    for server in config_section(profile.home / "config.yaml", "mcp_servers").values():
        if isinstance(server, dict) and _runs_our_server(server):
            return "the memory-pipeline MCP server"
    return None


def _runs_our_server(server: dict[str, Any]) -> bool:
    command = str(server.get("command") or "")
    args = [str(a) for a in server.get("args") or [] if isinstance(a, str | int)]
    words = [Path(command).name, *args]
    ours = "memory-pipeline" in words or "memory_pipeline" in " ".join(words)
    return ours and "mcp" in args
