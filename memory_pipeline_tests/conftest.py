import shutil
from pathlib import Path

import pytest

from memory_pipeline.lib.profiles import DEMO_HERMES_HOME

# Variables that would point a test at a real home, store or Dagster instance.
_ISOLATED_ENV = ("HERMES_HOME", "DAGSTER_HOME", "MEMORY_PIPELINE_DATA_DIR", "MEMORY_PIPELINE_PRIVACY_KEYWORDS", "OLLAMA_HOST")


@pytest.fixture(autouse=True)
def isolated_environment(monkeypatch):
    for name in _ISOLATED_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def demo_home(tmp_path) -> Path:
    """A private copy of the demo Hermes home (memory files only, nothing a run wrote)."""
    home = tmp_path / "hermes_home"
    shutil.copytree(
        DEMO_HERMES_HOME, home, ignore=shutil.ignore_patterns("memory_store.db*", "memory-pipeline")
    )
    return home
