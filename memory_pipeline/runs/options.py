"""How a sync runs, as the person or program starting it chose: typed, from the command line's flags
(or a service's own choice) to the run. `run_config()` alone turns it into Dagster run config and
`from_run_config()` reads it back (a round trip, tested); the skip rule compares what was chosen.
Light: no Dagster import."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from memory_pipeline.lib.choices import ExtractorMode, PrivacyPolicy, RemovalPolicy, VectorFormat
from memory_pipeline.lib.privacy.choice import NO_LIST, Told


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
    keywords_path: str | None = None  # a keyword list this sync judges with (None: each profile's own)
    no_keywords: bool = False  # the built-in detectors alone, no list (`--no-keywords`)
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
            if getattr(self, f.name) != getattr(default, f.name) and f.name not in ("allow_remote_ollama", "keywords_path", "no_keywords")
        }

    def told(self) -> Told:
        """The privacy choice these options make for this sync alone (what the run's privacy
        resource is told by `run_config()`), over each profile's own."""
        listed = str(Path(self.keywords_path).expanduser().absolute()) if self.keywords_path else None  # as remembered
        return Told(policy=self.privacy_policy, keywords=NO_LIST if self.no_keywords else listed)

    def run_config(self) -> dict[str, dict[str, Any]]:
        """The resources' run config for these options: only what differs from the defaults (enum
        fields by member name, as the UI's launchpad offers them). The remote permission is not
        among them: it picks the job, where the command started."""
        chosen = self.chosen()
        extractor = {"extractor": self.extractor.name} if "extractor" in chosen else {}
        extractor.update({key: chosen[key] for key in ("model", "batch_size", "ollama_host") if key in chosen})
        store = {key: getattr(self, key).name for key in ("removal_policy", "vector_format") if key in chosen}
        config: dict[str, dict[str, Any]] = {
            "hermes": {"cap_target": self.cap_target} if "cap_target" in chosen else {},
            "extractor": extractor,
            "store": store,
            "privacy": {"no_keywords": True} if self.no_keywords else {"keywords_path": self.keywords_path} if self.keywords_path else {},
            "embedder": {"embedder": self.embedder} if self.embedder else {},
        }
        if self.privacy_policy is not None:
            config["privacy"]["policy"] = self.privacy_policy.name
        return {name: values for name, values in config.items() if values}

    @classmethod
    def from_run_config(cls, config: dict[str, dict[str, Any]], *, allow_remote_ollama: bool = False) -> SyncOptions:
        """The options a run's resource config says (what `run_config()` wrote, or the UI's launchpad)."""
        extractor, store, privacy = config.get("extractor", {}), config.get("store", {}), config.get("privacy", {})
        return cls(
            extractor=ExtractorMode[extractor["extractor"]] if "extractor" in extractor else ExtractorMode.AUTO,
            model=extractor.get("model"),
            batch_size=extractor.get("batch_size"),
            ollama_host=extractor.get("ollama_host"),
            allow_remote_ollama=allow_remote_ollama,
            removal_policy=RemovalPolicy[store["removal_policy"]] if "removal_policy" in store else RemovalPolicy.RETIRE,
            privacy_policy=PrivacyPolicy[privacy["policy"]] if "policy" in privacy else None,
            vector_format=VectorFormat[store["vector_format"]] if "vector_format" in store else VectorFormat.AUTO,
            cap_target=config.get("hermes", {}).get("cap_target"),
            keywords_path=privacy.get("keywords_path") or None,
            no_keywords=privacy.get("no_keywords") is True,
            embedder=config.get("embedder", {}).get("embedder") or None,
        )
