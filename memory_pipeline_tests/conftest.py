import os
import shutil
import tempfile
from pathlib import Path

import pytest

from memory_pipeline.environment import RUNTIME_DIR_ENV
from memory_pipeline_tests.support.repository import DEMO_HERMES_HOME, DEMO_KEYWORDS

_SHM = Path("/dev/shm")


def pytest_configure(config):
    """Scratch homes, stores and Dagster instances on tmpfs when the machine has one: SQLite's and
    Dagster's fsyncs cost nothing there (a run is ~25% faster), and a SIGKILL, unlike a power cut,
    leaves the page cache as it is, so no test means less."""
    if config.option.basetemp is not None or not (_SHM.is_dir() and os.access(_SHM, os.W_OK)):
        return
    scratch = Path(tempfile.mkdtemp(prefix="memory-pipeline-tests-", dir=_SHM))
    config._memory_pipeline_scratch = scratch
    config.option.basetemp = str(scratch / "pytest")
    os.environ["TMPDIR"] = str(scratch)  # tempfile (Dagster's test instances) and subprocesses
    tempfile.tempdir = None


def pytest_sessionstart(session):
    """The code location built once per process, as a command builds it: with none of the
    variables the tests isolate set, so each resource reads them at run time, whatever a test sets
    (a command never changes its own environment after it starts)."""
    saved = {name: os.environ.pop(name) for name in _ISOLATED_ENV if name in os.environ}
    try:
        import memory_pipeline.definitions  # noqa: F401
    finally:
        os.environ.update(saved)


def pytest_unconfigure(config):
    scratch = getattr(config, "_memory_pipeline_scratch", None)
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)  # tmpfs is memory: leave nothing behind


# Variables that would point a test at a real home, store or Dagster instance.
_ISOLATED_ENV = (
    "HERMES_HOME",
    "DAGSTER_HOME",
    "MEMORY_PIPELINE_DATA_DIR",
    "MEMORY_PIPELINE_PRIVACY_KEYWORDS",
    "OLLAMA_HOST",
    "MEMORY_PIPELINE_OLLAMA_MODEL",
    "MEMORY_PIPELINE_ALLOW_REMOTE_OLLAMA",
    "OLLAMA_API_KEY",
)


# `auto` extraction must fall back to rules in tests, even on a machine that runs Ollama: port 9
# (discard) on loopback answers nothing. Tests that want a model start their own server.
NO_OLLAMA = "http://127.0.0.1:9"


def _isolate(patch) -> None:
    for name in _ISOLATED_ENV:
        patch.delenv(name, raising=False)
    patch.setenv("OLLAMA_HOST", NO_OLLAMA)
    # Each test's warm workers in a runtime directory of its own (short: a socket path has 108
    # bytes): never the user's own, and never one a test running beside it opens to others.
    patch.setenv(RUNTIME_DIR_ENV, tempfile.mkdtemp(prefix="run-"))


@pytest.fixture(autouse=True)
def isolated_environment(monkeypatch):

    _isolate(monkeypatch)


def _copy_demo(target: Path) -> Path:
    shutil.copytree(DEMO_HERMES_HOME, target, ignore=shutil.ignore_patterns("memory_store.db*", "memory-pipeline"))
    # The demo's keyword list, where a user keeps their own (`make demo` puts it there too).
    (target / "memory-pipeline").mkdir(mode=0o700)
    shutil.copyfile(DEMO_KEYWORDS, target / "memory-pipeline" / "privacy_keywords.txt")
    return target


@pytest.fixture
def demo_home(tmp_path) -> Path:
    """A private copy of the demo Hermes home (memory files only, nothing a run wrote)."""
    return _copy_demo(tmp_path / "hermes_home")


@pytest.fixture(scope="session")
def _synced_demo_template(tmp_path_factory) -> Path:
    from memory_pipeline_tests.support.syncing import sync_outcome

    home = _copy_demo(tmp_path_factory.mktemp("synced") / "hermes_home")
    with pytest.MonkeyPatch.context() as patch:
        _isolate(patch)
        outcome = sync_outcome(home, quiet=True)  # as cron's first sync: its standing warning said
        assert all(p.run is not None and p.run.success for p in outcome.profiles.values()) and not outcome.run_problems
    return home


@pytest.fixture
def synced_context(demo_home):
    """The demo home's default profile (a private copy) with its store as a sync leaves it (facts,
    ledger, verdicts, search index), made without a Dagster run: the seam for tests of what a
    service does with a synced store (`support/store_fixture.py`)."""
    from memory_pipeline_tests.support.store_fixture import context_of, synced_store

    context = context_of(demo_home)
    synced_store(context)
    return context


@pytest.fixture
def synced_home(_synced_demo_template, tmp_path) -> Path:
    """A private copy of the demo home after one sync of every profile (stores, ledger, index,
    reports, skip state): for tests whose subject comes after the first sync. One sync per session."""
    from memory_pipeline_tests.support.syncing import in_step_as_copied

    home = tmp_path / "hermes_home"
    shutil.copytree(_synced_demo_template, home)
    in_step_as_copied(home)  # its next sync skips what is unchanged, as on the home it copies
    return home


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: one worker per core and one more. The slowest tests spend much of their time
    waiting on the servers, daemons and runs they started (about a quarter of the suite's test time),
    and the extra worker keeps the cores busy meanwhile."""
    return len(os.sched_getaffinity(0)) + 1


# The slowest files first: on two workers they then overlap the many quick ones instead of one
# of them running alone at the end (pytest-xdist hands out files in collection order when told
# `--no-loadscope-reorder`, as `make test` does; by default it puts the files with most tests first).
SLOWEST_FIRST = (
    "test_ui_end_to_end.py",
    "test_team_server.py",
    "test_installed_tool.py",
    "test_crash_and_concurrency.py",
    "test_own_state.py",
    "test_full_disk.py",
    "test_concurrent_syncs.py",
)


def pytest_collection_modifyitems(items):
    for item in items:
        if item.path.name in SLOWEST_FIRST:
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.path.name not in SLOWEST_FIRST)  # stable: each file keeps its order
