"""The instance configs the project ships, checked against Dagster's own config schema: the local
one every `DAGSTER_HOME` of the pipeline starts from, and the example for a server deployment."""

import shutil

import pytest
import yaml
from dagster._config import process_config
from dagster._core.errors import DagsterInvalidConfigError
from dagster._core.instance.config import dagster_instance_config
from dagster._serdes import class_from_code_pointer

from memory_pipeline.launch.instance import INSTANCE_TEMPLATE
from memory_pipeline_tests.support.repository import REPO_ROOT

DEPLOY = REPO_ROOT / "deploy" / "dagster.yaml"
DEPLOY_ENV = {
    "DAGSTER_POSTGRES_HOST": "db",
    "DAGSTER_POSTGRES_USER": "dagster",
    "DAGSTER_POSTGRES_PASSWORD": "secret",
    "DAGSTER_POSTGRES_DB": "dagster",
    "DAGSTER_POSTGRES_PORT": "5432",
    "MEMORY_PIPELINE_IMAGE": "memory-pipeline:latest",
}


def _validated(path, tmp_path) -> dict:
    """Dagster's validation of an instance file, then of each pluggable class's own config."""
    shutil.copyfile(path, tmp_path / "dagster.yaml")
    config, _ = dagster_instance_config(str(tmp_path))
    for key in ("run_launcher", "run_coordinator", "run_storage", "event_log_storage", "schedule_storage", "compute_logs"):
        if key in config:
            cls = class_from_code_pointer(config[key]["module"], config[key]["class"])
            result = process_config(cls.config_type(), config[key].get("config") or {})
            assert result.success, (key, [e.message for e in result.errors])
    return config


def test_local_instance_config(tmp_path):
    config = _validated(INSTANCE_TEMPLATE, tmp_path)
    assert config["telemetry"] == {"enabled": False} and config["run_queue"]["max_concurrent_runs"] == 1


def test_deployment_example_config(tmp_path, monkeypatch):
    for name, value in DEPLOY_ENV.items():
        monkeypatch.setenv(name, value)
    config = _validated(DEPLOY, tmp_path)
    assert set(config["storage"]) == {"postgres"}
    assert config["run_launcher"]["class"] == "DockerRunLauncher"
    (limit,) = config["run_queue"]["tag_concurrency_limits"]
    assert limit == {"key": "dagster/partition", "value": {"applyLimitPerUniqueValue": True}, "limit": 1}


def test_a_mistake_in_the_example_is_caught(tmp_path, monkeypatch):
    for name, value in DEPLOY_ENV.items():
        monkeypatch.setenv(name, value)
    broken = yaml.safe_load(DEPLOY.read_text())
    broken["run_launcher"]["config"]["volumes"] = broken["run_launcher"]["config"].pop("container_kwargs")["volumes"]
    (tmp_path / "broken.yaml").write_text(yaml.safe_dump(broken))
    with pytest.raises(AssertionError, match="run_launcher"):
        _validated(tmp_path / "broken.yaml", tmp_path)
    broken = yaml.safe_load(DEPLOY.read_text())
    broken["run_queue"]["max_concurent_runs"] = broken["run_queue"].pop("max_concurrent_runs")
    (tmp_path / "typo.yaml").write_text(yaml.safe_dump(broken))
    with pytest.raises(DagsterInvalidConfigError):
        _validated(tmp_path / "typo.yaml", tmp_path)
