"""A change made at any moment of a sync, during the run included, is either in that run or makes
the next plain sync run (the sync service every caller goes through): the skip state records what
the run itself read. Each change is made from a hook at the exact moment (no sleep race), by
Hermes' own Holographic store where Hermes writes."""

import json
import sqlite3

import pytest

from memory_pipeline.defs import privacy as privacy_defs
from memory_pipeline.defs import resources
from memory_pipeline.launch import execute
from memory_pipeline_tests.support.hermes_oracle import holographic_store
from memory_pipeline_tests.support.store_helpers import query, read_entries, write_entries
from memory_pipeline_tests.support.syncing import sync_outcome, synced_profile

PRIVATE_FACT = "Lunch with Zhang Wei every Friday"  # a name on the demo keyword list


def _append(path, entry: str) -> None:
    write_entries(path, read_entries(path) + [entry])


def _clean(outcome) -> bool:
    """No problem with the run itself and no ERROR left failing: what `sync` says `ok` to."""
    return not outcome.run_problems and not any(c.severity == "ERROR" for p in outcome.profiles.values() for c in p.failing or [])


def _hermes_add_fact(db, content: str) -> int:
    store = holographic_store(db)
    try:
        return store.add_fact(content, category="general")
    finally:
        store.close()


def _tags(db, content: str) -> str:
    return query(db, "SELECT tags FROM facts WHERE content = ?", (content,))[0][0] or ""


@pytest.fixture
def after_the_run(monkeypatch):
    """Calls `change` once, when a run has finished and before the CLI records what it read."""
    calls = []

    def hook(change):
        real = execute.profile_run

        def profile_run(*args, **kwargs):
            result = real(*args, **kwargs)
            if not calls:
                calls.append(change())
            return result

        monkeypatch.setattr(execute, "profile_run", profile_run)
        return calls

    return hook


def test_an_entry_appended_after_the_run_read_the_files_is_synced_by_the_next_sync(synced_home, after_the_run):
    memory = synced_home / "memories" / "MEMORY.md"
    made = after_the_run(lambda: _append(memory, "**Late entry**: written while the sync finished"))
    assert synced_profile(synced_home, force=True)["skipped"] is False
    assert made, "the hook ran"
    later = synced_profile(synced_home)
    assert (later["skipped"], later["added"]) == (False, 1)
    assert synced_profile(synced_home)["skipped"] is True


def test_an_entry_appended_during_the_run_is_synced_by_the_next_sync(synced_home, monkeypatch):
    memory = synced_home / "memories" / "MEMORY.md"
    real = resources.HermesHomeResource.read

    def read_then_edit(self, name):
        readings = real(self, name)
        _append(memory, "**Mid-run entry**: written just after the run read the file")
        monkeypatch.setattr(resources.HermesHomeResource, "read", real)
        return readings

    monkeypatch.setattr(resources.HermesHomeResource, "read", read_then_edit)
    outcome = sync_outcome(synced_home, "default", force=True)
    # The audit read the files again and saw they moved since the run read them: a warning that the
    # next sync settles, no error to repair.
    assert _clean(outcome) and outcome.profiles["default"].summary.as_json()["added"] == 0
    report = json.loads((synced_home / "memory-pipeline" / "reports" / "default" / "audit.json").read_text(encoding="utf-8"))
    fresh = next(c for c in report["checks"] if c["name"] == "hashes_fresh")
    assert (fresh["passed"], fresh["severity"]) == (False, "WARN") and "a memory file changed during the run" in fresh["detail"]
    later = synced_profile(synced_home)
    assert (later["skipped"], later["added"]) == (False, 1)


def test_a_private_fact_hermes_adds_after_the_run_is_tagged_by_the_next_sync(synced_home, after_the_run):
    db = synced_home / "memory_store.db"
    after_the_run(lambda: _hermes_add_fact(db, PRIVATE_FACT))
    sync_outcome(synced_home, "default", force=True)
    assert "private-person" not in _tags(db, PRIVATE_FACT)
    assert synced_profile(synced_home)["skipped"] is False
    assert "private-person" in _tags(db, PRIVATE_FACT)


def test_a_private_fact_hermes_adds_between_tagging_and_the_audit_is_a_warning_then_tagged(synced_home, monkeypatch):
    db = synced_home / "memory_store.db"
    real = privacy_defs.retag_store

    def retag_then_hermes_writes(*args, **kwargs):
        report = real(*args, **kwargs)
        _hermes_add_fact(db, PRIVATE_FACT)
        monkeypatch.setattr(privacy_defs, "retag_store", real)
        return report

    monkeypatch.setattr(privacy_defs, "retag_store", retag_then_hermes_writes)
    outcome = sync_outcome(synced_home, "default", force=True)
    assert _clean(outcome)  # not an ERROR whose repair repairs nothing
    assert "privacy_coverage" in outcome.profiles["default"].summary.as_json()["failing_checks"]
    assert synced_profile(synced_home)["skipped"] is False
    assert "private-person" in _tags(db, PRIVATE_FACT)
    settled = synced_profile(synced_home)
    assert settled["skipped"] is True and "privacy_coverage" not in settled["failing_checks"]


def test_a_clock_that_ran_ahead_does_not_hide_a_later_hermes_edit(synced_home):
    db = synced_home / "memory_store.db"
    fact_id = _hermes_add_fact(db, "Standup is at 9:30")
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE facts SET updated_at = datetime('now', '+1 day') WHERE fact_id = ?", (fact_id,))
    conn.close()
    sync_outcome(synced_home, "default")
    assert synced_profile(synced_home)["skipped"] is True
    store = holographic_store(db)
    try:  # Hermes' own edit, stamped with a clock now behind the fact's updated_at
        store.update_fact(fact_id, content="Standup is at 9:30 with Zhang Wei")
    finally:
        store.close()
    assert synced_profile(synced_home)["skipped"] is False
    assert "private-person" in _tags(db, "Standup is at 9:30 with Zhang Wei")


def _restore_bank(db, bank: tuple) -> None:
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE memory_banks SET vector = ?, fact_count = ? WHERE bank_name = 'cat:general'", bank)
    conn.close()


def test_a_bank_holographic_rewrote_late_is_settled_by_the_next_sync(synced_home, after_the_run):
    """Holographic reads a category's vectors and writes their bundle in two transactions: a
    rebuild whose read came before another add and whose write came after leaves the bank one fact
    behind. Written here once the run is over, it changes nothing but the bank."""
    db = synced_home / "memory_store.db"
    _hermes_add_fact(db, "Deploy window is Tuesday night")
    early = query(db, "SELECT vector, fact_count FROM memory_banks WHERE bank_name = 'cat:general'")[0]
    _hermes_add_fact(db, "Release notes go out on Wednesday")
    made = after_the_run(lambda: _restore_bank(db, early))
    sync_outcome(synced_home, "default", force=True)
    assert made, "the hook ran"
    vectors = query(db, "SELECT count(*) FROM facts WHERE category = 'general' AND hrr_vector IS NOT NULL")[0][0]
    assert query(db, "SELECT fact_count FROM memory_banks WHERE bank_name = 'cat:general'") == [(vectors - 1,)]
    settled = synced_profile(synced_home)
    assert settled["skipped"] is False and "index_consistency" not in settled["failing_checks"]
    assert query(db, "SELECT fact_count FROM memory_banks WHERE bank_name = 'cat:general'") == [(vectors,)]
    assert synced_profile(synced_home)["skipped"] is True
