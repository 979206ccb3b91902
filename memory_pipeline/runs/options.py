"""How a sync runs, as the person or program starting it chose: typed, from the command line's flags
(or a service's own choice) to the run. `launch.execute.options_config` alone turns it into Dagster run
config; the skip rule compares what was chosen. Light: no Dagster import."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from memory_pipeline.lib.choices import ExtractorMode, PrivacyPolicy, RemovalPolicy, VectorFormat


@dataclass(frozen=True)
class SyncOptions:
    """Left at their defaults, each profile's own settings apply (its config.yaml, what an earlier
    `sync --privacy-policy` or `--keywords` left remembered), as the daemon's runs read them."""

    extractor: ExtractorMode = ExtractorMode.AUTO
    model: str | None = None  # the Ollama model (None: $MEMORY_PIPELINE_OLLAMA_MODEL, else the default)
    batch_size: int | None = None  # entries per LLM call
    ollama_host: str | None = None  # None: $OLLAMA_HOST, else loopback
    allow_remote_ollama: bool = False  # the command's `--allow-remote-ollama`: picks the job, never a run's config
    removal_policy: RemovalPolicy = RemovalPolicy.RETIRE
    privacy_policy: PrivacyPolicy | None = None  # what a private fact gets (None: each profile's own)
    vector_format: VectorFormat = VectorFormat.AUTO
    cap_target: float | None = None  # None: each profile's own
    keywords_path: str | None = None  # a keyword list this sync judges with, or "none" (None: each profile's own)
    embedder: str | None = None  # bundled, off or ollama:MODEL (None: $MEMORY_PIPELINE_EMBEDDER, else bundled)

    def chosen(self) -> dict[str, Any]:
        """The options that differ from the defaults, as plain values: what the skip rule compares
        (a default sync and the daemon's runs choose nothing, so each skips what the other left).
        The keyword list is compared as the privacy choice it resolves to, which a named list is
        remembered as; the remote permission is where the process started, never a setting."""
        default = SyncOptions()
        return {
            f.name: getattr(getattr(self, f.name), "value", getattr(self, f.name))
            for f in fields(self)
            if getattr(self, f.name) != getattr(default, f.name) and f.name not in ("allow_remote_ollama", "keywords_path")
        }
