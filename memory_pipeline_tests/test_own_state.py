"""The pipeline's own state, damaged: the local Dagster instance's files, the DuckDB history and
the skip state. Each is found before anything is written, in one line naming the file and the way
out; `sync --reset-state` moves it aside and the sync goes on; nothing of Hermes' is moved."""

import pytest

from memory_pipeline.cli import main
from memory_pipeline_tests.support.store_helpers import read_entries, said, table_checksums, write_entries

DAMAGE = {
    "dagster_home/history/runs.db": b"garbage, not a database\n" * 40,
    "dagster_home/history/runs/index.db": b"garbage, not a database\n" * 40,
    "dagster_home/schedules/schedules.db": b"garbage, not a database\n" * 40,
    "dagster_home/dagster.yaml": b"run_queue: [\n",
    "history.duckdb": None,  # truncated to its first bytes
    "digest.key": b"",  # emptied: the key of the digests the skip state and the UI keep
}


@pytest.mark.parametrize("relative", list(DAMAGE))
def test_a_damaged_file_of_its_own_is_named_before_any_write_and_reset_on_request(capsys, synced_home, relative):
    damaged = synced_home / "memory-pipeline" / relative
    assert damaged.exists(), relative
    damaged.write_bytes(DAMAGE[relative] if DAMAGE[relative] is not None else damaged.read_bytes()[:300])
    memory = synced_home / "memories" / "MEMORY.md"
    write_entries(memory, read_entries(memory) + ["**Late entry**: after the damage"])
    store = synced_home / "memory_store.db"
    before = table_checksums(store)

    assert main(["sync", "--hermes-home", str(synced_home), "--profile", "default"]) == 2
    err = capsys.readouterr().err
    assert len(said(err)) == 1 and f"{damaged}: " in err and "sync --reset-state" in err, err
    assert table_checksums(store) == before  # nothing written

    assert main(["sync", "--hermes-home", str(synced_home), "--profile", "default", "--reset-state", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert f"moved aside {damaged}.damaged-" in err
    assert table_checksums(store) != before and list(damaged.parent.glob(f"{damaged.name}.damaged-*"))


def test_a_damaged_skip_state_only_makes_the_profile_run(capsys, synced_home):
    state = synced_home / "memory-pipeline" / "last_sync" / "default.json"
    state.write_bytes(b"\x00{not json")
    assert main(["sync", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    assert "unchanged (skipped" not in capsys.readouterr().out
    assert main(["sync", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    assert "default: unchanged (skipped" in capsys.readouterr().out
