"""`workspace.yaml` at the top of a checkout names the code location `[tool.dg.project]` names,
and Dagster's own `definitions validate` loads it."""

import subprocess
import sys
import tomllib

import yaml

from memory_pipeline_tests.support.repository import REPO_ROOT as ROOT


def test_workspace_names_the_projects_code_location_and_dagster_loads_it(tmp_path):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["dg"]["project"]
    (entry,) = yaml.safe_load((ROOT / "workspace.yaml").read_text(encoding="utf-8"))["load_from"]
    assert entry["python_module"] == {"module_name": project["code_location_target_module"], "location_name": project["code_location_name"]}
    done = subprocess.run(
        [sys.executable, "-m", "dagster", "definitions", "validate", "-w", "workspace.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DAGSTER_HOME": str(tmp_path), "HERMES_HOME": str(tmp_path / "hermes")},
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
