"""`FactStore`, the one owner of a store's writes: a transaction is whole or nothing, what one
transaction noted (bank changes, resolved entities) never leaks into the next, and a store opened
to read cannot be written through."""

import sqlite3
from types import SimpleNamespace

import pytest

from memory_pipeline.lib.hermes.hashing import entry_id, entry_sha256
from memory_pipeline.lib.hermes.profiles import get_profile
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.profile_store import profile_store
from memory_pipeline.lib.store.schema.database import read_only
from memory_pipeline_tests.support.store_helpers import consistency_problems, query

_COUNTS = "SELECT count(*), (SELECT fact_count FROM memory_banks WHERE bank_name = 'cat:general') FROM facts"


def _fact(content: str):
    return SimpleNamespace(content=content, category="general", tags="", entity=None)


def test_a_failed_transaction_leaves_the_store_and_the_next_transaction_as_they_were(synced_home):
    where = profile_store(get_profile(synced_home, "default"))
    before = query(where.path, _COUNTS)
    with where.opened() as store:
        with pytest.raises(RuntimeError), store.transaction() as writes:
            writes.entries.add(_fact("**Backups**: restic to the NAS nightly, with Zhang Wei's new entity"), "memory")
            writes.facts.rebuild_banks()
            raise RuntimeError("killed mid-write")
        assert query(where.path, _COUNTS) == before
        # The next transaction counts only its own change: the rolled-back add left no trace in its bank sums.
        with store.transaction() as writes:
            text = "**Standup**: 09:45 in room Orion"
            fact_id = writes.entries.add(_fact(text), "memory")
            writes.ledger.record_entry(entry_id("memory", entry_sha256(text)), "memory", entry_sha256(text), [fact_id])
            writes.facts.rebuild_banks()
        assert writes.report.added == 1
    facts, general = query(where.path, _COUNTS)[0]
    assert (facts, general) == (before[0][0] + 1, before[0][1] + 1)
    assert consistency_problems(where.path) == []


def test_a_store_opened_to_read_cannot_be_written_through(synced_home):
    where = profile_store(get_profile(synced_home, "default"))
    with read_only(where.path) as conn, pytest.raises(sqlite3.OperationalError, match="readonly"):
        with FactStore(conn, where.settings).transaction() as writes:
            writes.records.set_tags_and_trust(1, "", 0.5)
    with where.reading() as reads:
        assert reads is not None and reads.fact_count() > 0
    assert profile_store(get_profile(synced_home, "work")).exists


def test_receipts_written_with_entry_hashes_lose_them_when_the_store_is_next_opened_to_write(synced_home):
    where = profile_store(get_profile(synced_home, "default"))
    sha = entry_sha256("Door PIN: 4821")
    with sqlite3.connect(where.path) as conn:  # as an earlier version wrote a receipt
        conn.execute(
            "INSERT INTO memory_pipeline_receipts (action, entry_id, entry_sha256, fact_ids, links, index_rows, banks) "
            "VALUES ('deleted', ?, ?, '7', 0, 2, '')",
            (entry_id("memory", sha), sha),
        )
    with where.opened():
        pass
    assert query(where.path, "SELECT entry_id, entry_sha256, source FROM memory_pipeline_receipts") == [(None, None, "memory")]
    with where.opened():  # nothing left to scrub: a no-change open writes nothing
        pass
