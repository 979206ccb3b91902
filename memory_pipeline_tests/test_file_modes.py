"""Files the pipeline writes that hold entry text are no more readable than the memory files they
come from, whatever umask the shell left: Dagster's stage values (with `DAGSTER_HOME` outside the
Hermes home), reports, history, skip state 0600 in 0700 directories; `compact --apply` keeps
MEMORY.md's mode, and its backup takes the same."""

import os
import stat

import pytest

from memory_pipeline.cli import main
from memory_pipeline_tests.support.syncing import sync_outcome


@pytest.fixture
def open_umask():
    previous = os.umask(0o022)  # a shell's usual umask: new files 0644, directories 0755
    yield
    os.umask(previous)


def _widened(root) -> list[str]:
    return [f"{p} {oct(stat.S_IMODE(p.stat().st_mode))}" for p in [root, *root.rglob("*")] if stat.S_IMODE(p.stat().st_mode) & 0o077]


def test_what_a_sync_writes_is_its_owners_alone(capsys, synced_home, tmp_path, monkeypatch, open_umask):
    dagster_home = tmp_path / "elsewhere" / "dagster_home"
    monkeypatch.setenv("DAGSTER_HOME", str(dagster_home))
    assert not sync_outcome(synced_home, force=True).run_problems
    assert (dagster_home / "storage" / "parsed_entries" / "default").is_file()
    assert _widened(dagster_home) == []
    assert _widened(synced_home / "memory-pipeline" / "reports") == []
    assert _widened(synced_home / "memory-pipeline" / "last_sync") == []


def test_compact_keeps_the_memory_files_mode_and_its_backup_takes_it(capsys, synced_home, open_umask):
    memory = synced_home / "memories" / "MEMORY.md"
    memory.chmod(0o600)  # how Hermes writes it (mkstemp)
    assert main(["compact", "--hermes-home", str(synced_home), "--profile", "default", "--apply", "--yes"]) == 0
    (backup,) = memory.parent.glob("MEMORY.md.bak-*")
    assert stat.S_IMODE(memory.stat().st_mode) == 0o600 and stat.S_IMODE(backup.stat().st_mode) == 0o600
