"""A full disk is one line naming where, whichever write hits it (Dagster's run and event
storage, the fact store, the reports), and every store stays consistent; once space is freed the
next sync syncs what was missed. Each case fills a small tmpfs of its own (root can mount one;
elsewhere the test is skipped, saying why)."""

import shutil
import subprocess
import uuid

import pytest

from memory_pipeline.cli import main
from memory_pipeline_tests.support.store_helpers import (
    consistency_problems,
    query,
    read_entries,
    said,
    write_entries,
)
from memory_pipeline_tests.support.syncing import synced_profile

ENTRY = "**Disk test**: an entry added when the disk is nearly full"


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "small-disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip() or 'mount failed'}): run as root to test a full disk")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk, free_kb: int):
    avail = shutil.disk_usage(disk).free // 1024
    filler = disk / f"filler-{uuid.uuid4().hex}"
    with open(filler, "wb") as handle:
        handle.write(b"\0" * max(0, avail - free_kb) * 1024)
    return filler


CASES = {
    # where the small disk is: the whole home (the instance and data directory inside it), at three levels
    "home, 20 KB free": ("home", 20),
    "home, 400 KB free": ("home", 400),
    "the store only": ("store", 0),
    "the data directory only": ("data", 0),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_full_disk_is_one_line_and_the_next_sync_catches_up(capsys, synced_home, small_disk, tmp_path, monkeypatch, case):
    where, free_kb = CASES[case]
    home = synced_home
    if where in ("home", "store"):
        home = small_disk / "hermes_home"
        shutil.copytree(synced_home, home)
    if where == "store":  # the instance and the data directory elsewhere
        monkeypatch.setenv("MEMORY_PIPELINE_DATA_DIR", str(tmp_path / "data"))
        shutil.copytree(home / "memory-pipeline", tmp_path / "data")
    if where == "data":
        monkeypatch.setenv("MEMORY_PIPELINE_DATA_DIR", str(small_disk / "data"))
        monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
        shutil.copytree(home / "memory-pipeline", small_disk / "data")
    memory = home / "memories" / "MEMORY.md"
    write_entries(memory, read_entries(memory) + [ENTRY])
    filler = _fill(small_disk, free_kb)

    code = main(["sync", "--hermes-home", str(home), "--profile", "default"])
    err = capsys.readouterr().err
    assert code != 0 and len(said(err)) == 1, err
    assert "No space left on device" in err or "database or disk is full" in err, err
    assert str(small_disk) in err, err  # names where

    filler.unlink()  # (even reading a WAL store needs a little room)
    store = home / "memory_store.db"
    assert query(store, "PRAGMA integrity_check") == [("ok",)] and consistency_problems(store) == []
    later = synced_profile(home)
    assert later["skipped"] is False
    assert query(store, "SELECT count(*) FROM facts WHERE content = ?", (ENTRY,)) == [(1,)]
