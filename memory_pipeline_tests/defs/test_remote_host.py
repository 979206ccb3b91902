"""A run's config (the UI's launchpad, GraphQL) cannot widen privacy: allowing an Ollama host off
this machine is a setting of the environment the server or CLI was started with, never a field a
run can set; a remote host given in run config is refused before any request is made."""

import dagster as dg
import pytest

from memory_pipeline.defs.resources import ExtractorResource
from memory_pipeline.launch.execute import run_sync, sync_job
from memory_pipeline.launch.instance import local_instance

REMOTE = "http://192.0.2.10:11434"  # TEST-NET-1: never contacted, the refusal comes first


def test_a_run_config_that_allows_a_remote_host_is_not_a_valid_config(demo_home):
    extractor = {"allow_remote_host": True, "ollama_host": REMOTE, "extractor": "OLLAMA"}
    config = {"resources": {"hermes": {"config": {"hermes_home": str(demo_home)}}, "extractor": {"config": extractor}}}
    with pytest.raises(dg.DagsterInvalidConfigError, match="allow_remote_host"):
        dg.validate_run_config(sync_job(), config)


def test_a_remote_host_in_run_config_is_refused_unless_the_process_was_started_allowing_it(demo_home, monkeypatch):
    instance = local_instance(demo_home)
    try:
        (run,) = run_sync(instance, demo_home, ["work"], resource_config={"extractor": {"extractor": "OLLAMA", "ollama_host": REMOTE}})
    finally:
        instance.dispose()
    assert not run.success and "is not on this machine and remote hosts are refused" in run.error
    assert ExtractorResource(ollama_host=REMOTE).ollama_settings().allow_remote is False
    monkeypatch.setenv("MEMORY_PIPELINE_ALLOW_REMOTE_OLLAMA", "1")  # the operator's decision, where the process starts
    assert ExtractorResource(ollama_host=REMOTE).ollama_settings().allow_remote is True
