"""memory-pipeline as a user installs it: the wheel `pip wheel` builds, in a fresh virtual
environment outside the checkout, run from another directory on a `~/.hermes` with two profiles
and `HERMES_HOME` unset. It syncs, finds a Chinese substring, says which home it read and serves
the UI from the package alone.

The wheel is installed without its dependencies, which the fresh environment takes from the test
environment (the same pinned versions) through a path entry: what is tested is the package itself,
and the suite stays quick. Its modules are checked to come from the wheel, not the checkout.
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import urllib.error
from pathlib import Path

import pytest

from memory_pipeline_tests.support.repository import DEMO_HERMES_HOME, REPO_ROOT
from memory_pipeline_tests.support.servers import DEADLINE_S, GraphQL, free_port, wait_for

NO_OLLAMA = "http://127.0.0.1:9"  # nothing answers: `auto` extraction falls back to rules
ASSETS = {"parsed_entries", "hashed_entries", "ledger_diff", "extracted_facts", "fact_store", "privacy_tags", "fts_index", "audit_report"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the tool's bin directory, the user's home directory, an environment to run it in)."""
    root = tmp_path_factory.mktemp("installed")
    wheels = root / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(REPO_ROOT)],
        check=True,
        cwd=root,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    (wheel,) = wheels.glob("memory_pipeline-*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", str(wheel)],
        check=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    # The dependencies, as a plain path: the test environment's own .pth files (the checkout's
    # editable install among them) are not run from a path entry.
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")

    user = root / "user"
    shutil.copytree(DEMO_HERMES_HOME, user / ".hermes", ignore=shutil.ignore_patterns("memory_store.db*", "memory-pipeline"))
    env = {k: v for k, v in os.environ.items() if k not in ("HERMES_HOME", "VIRTUAL_ENV", "PYTHONPATH", "DAGSTER_HOME")}
    env.update(HOME=str(user), OLLAMA_HOST=NO_OLLAMA, PATH=f"{venv / 'bin'}:{env.get('PATH', '')}")
    work = root / "elsewhere"
    work.mkdir()
    where = subprocess.run(
        [python, "-c", "import memory_pipeline; print(memory_pipeline.__file__)"], capture_output=True, text=True, env=env, cwd=work
    )
    assert where.stdout.startswith(str(site)), where  # the wheel's modules, not the checkout's
    return venv / "bin", user, env, work


def _run(installed, *args: str) -> subprocess.CompletedProcess:
    bin_dir, _, env, work = installed
    return subprocess.run([str(bin_dir / "memory-pipeline"), *args], capture_output=True, text=True, env=env, cwd=work, timeout=300)


def test_the_installed_tool_syncs_searches_and_reports_on_the_users_own_home(installed):
    _, user, _, _ = installed
    version = _run(installed, "--version")
    assert version.returncode == 0 and version.stdout.strip() == "memory-pipeline 0.1.0"

    synced = _run(installed, "sync")
    assert synced.returncode == 0, synced.stderr
    assert synced.stderr.splitlines()[0] == "Hermes home: ~/.hermes (2 profiles)"
    assert synced.stdout.startswith("default: 23 added") and "\nwork: 8 added" in synced.stdout
    assert (user / ".hermes" / "memory_store.db").is_file() and (
        user / ".hermes" / "memory-pipeline" / "dagster_home" / "dagster.yaml"
    ).is_file()

    found = _run(installed, "search", "铁律", "--json")
    assert found.returncode == 0 and "PR 铁律" in found.stdout, found.stderr

    plugin = _run(installed, "hermes-plugin", "install", "--profile", "work")
    assert plugin.returncode == 0, plugin.stderr
    plugin_dir = user / ".hermes" / "profiles" / "work" / "plugins" / "memory-pipeline"
    assert {p.name for p in plugin_dir.iterdir()} == {
        "plugin.yaml",
        "__init__.py",
        "live_sync.py",
        "hermes_settings.py",
        "in_hermes",
        "pipeline.json",
    }
    # The one package that runs inside Hermes, copied whole from the installed wheel.
    assert {p.name for p in (plugin_dir / "in_hermes").glob("*.py")} == {
        "__init__.py",
        "entry_reader.py",
        "fact_search.py",
        "meaning.py",
        "recall.py",
        "search_gate.py",
        "search_query.py",
        "store_location.py",
        "visible.py",
        "warm_worker.py",
    }

    status = _run(installed, "status")
    assert status.returncode == 0 and status.stderr.startswith("Hermes home: ~/.hermes (2 profiles)")
    assert "default" in status.stdout and "work" in status.stdout


def test_the_installed_tool_serves_the_ui_from_the_package(installed):
    bin_dir, _, env, work = installed
    port = free_port()
    log = (work / "ui.log").open("w")
    process = subprocess.Popen(
        [str(bin_dir / "memory-pipeline"), "ui", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=work,
        start_new_session=True,
    )
    graphql = GraphQL(f"http://127.0.0.1:{port}")

    def assets():
        if process.poll() is not None:
            raise AssertionError(f"memory-pipeline ui exited: {(work / 'ui.log').read_text()[-2000:]}")
        try:
            data = graphql("{ assetNodes { assetKey { path } } }")
        except (urllib.error.URLError, ConnectionError, TimeoutError, AssertionError):
            return None
        return {"/".join(node["assetKey"]["path"]) for node in data["assetNodes"]} or None

    import psutil

    family: list[psutil.Process] = []
    try:
        assert wait_for(assets, DEADLINE_S, "the installed package's code location") >= ASSETS
        family = psutil.Process(process.pid).children(recursive=True)  # dagster dev, webserver, daemon, code server
    finally:
        # Killed outright (SIGKILL, which `ui` cannot catch): what it started still stops.
        process.kill()
        process.wait()
        log.close()
    _, alive = psutil.wait_procs(family, timeout=DEADLINE_S)
    for leftover in alive:
        leftover.kill()
    assert family and alive == [], [p.pid for p in alive]  # nothing it started is left behind
    said = (work / "ui.log").read_text()
    assert "Warning" not in said, said[-2000:]  # no superseded command, no deprecation on the terminal
