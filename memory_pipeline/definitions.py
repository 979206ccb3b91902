"""The code location `memory_pipeline` (named in pyproject.toml's `[tool.dg.project]`): what
`memory-pipeline ui`, a team server's code server and the CLI load. A command given
`--allow-remote-ollama` runs the same definitions with an extractor allowed off this machine
(`allowing_remote_ollama`), in its own process only."""

import functools

import dagster as dg

from memory_pipeline import environment
from memory_pipeline.defs import audit, embeddings, extract, ingest, privacy, search, sync
from memory_pipeline.defs.audit import AUDIT_CHECKS
from memory_pipeline.defs.embeddings import EmbedderResource, RemoteAllowedEmbedderResource
from memory_pipeline.defs.io_managers import audit_run_io_manager
from memory_pipeline.defs.jobs import memory_sync_job
from memory_pipeline.defs.resources import (
    ExtractorResource,
    FactStoreResource,
    HermesHomeResource,
    PrivacyResource,
    RemoteAllowedExtractorResource,
)
from memory_pipeline.defs.schedules import memory_sync_schedule
from memory_pipeline.defs.sensors import memory_files_sensor, privacy_keywords_sensor, profile_discovery_sensor, sync_recorded_sensor


def _from_environment(name: str):
    """The variable, read at run time (the UI shows where a value comes from), when it is set;
    else empty, which each resource resolves to its documented default."""
    return dg.EnvVar(name) if environment.variable(name) else ""


def _definitions(extractor: type[ExtractorResource], embedder: type[EmbedderResource]) -> dg.Definitions:
    return dg.Definitions(
        assets=dg.load_assets_from_modules([ingest, sync, extract, privacy, embeddings, search, audit]),
        asset_checks=AUDIT_CHECKS,
        jobs=[memory_sync_job],
        schedules=[memory_sync_schedule],
        sensors=[memory_files_sensor, profile_discovery_sensor, privacy_keywords_sensor, sync_recorded_sensor],
        resources={
            "hermes": HermesHomeResource(hermes_home=_from_environment(environment.HERMES_HOME_ENV)),
            "store": FactStoreResource(),
            "extractor": extractor(
                ollama_host=_from_environment(environment.OLLAMA_HOST_ENV), model=_from_environment(environment.MODEL_ENV)
            ),
            "audit_runs": audit_run_io_manager,
            "privacy": PrivacyResource(keywords_path=_from_environment(environment.KEYWORDS_ENV)),
            "embedder": embedder(
                embedder=_from_environment(environment.EMBEDDER_ENV), ollama_host=_from_environment(environment.OLLAMA_HOST_ENV)
            ),
        },
        # One SQLite writer per run: every step of a run executes in one process, in order.
        executor=dg.in_process_executor,
    )


defs = _definitions(ExtractorResource, EmbedderResource)


@functools.cache
def allowing_remote_ollama() -> dg.Definitions:
    """The same definitions, their extractor allowed an Ollama host off this machine: for the job a
    command given `--allow-remote-ollama` runs in its own process; never served as a code location."""
    return _definitions(RemoteAllowedExtractorResource, RemoteAllowedEmbedderResource)
