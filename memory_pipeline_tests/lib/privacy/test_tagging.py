import shutil

import numpy as np
import pytest

from memory_pipeline.lib.privacy.matching import load_keywords
from memory_pipeline.lib.privacy.tagging import retag_store
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.schema.database import opened
from memory_pipeline.lib.store.settings import holographic_settings
from memory_pipeline_tests.support.hermes_oracle import holographic_store
from memory_pipeline_tests.support.store_fixture import context_of, synced_store
from memory_pipeline_tests.support.store_helpers import judge_of, query, table_checksums


@pytest.fixture
def store(demo_home, tmp_path):
    """The demo's default profile as a sync with an empty keyword list leaves it (the detectors alone)."""
    empty = tmp_path / "none.txt"
    empty.write_text("# nothing private by keyword\n", encoding="utf-8")
    synced_store(context_of(demo_home), judge_of(load_keywords(empty)))
    return demo_home / "memory_store.db", holographic_settings(demo_home)


def _keywords(tmp_path, *terms, policy="hide"):
    path = tmp_path / "kw.txt"
    path.write_text("\n".join(terms) + "\n", encoding="utf-8")
    return judge_of(load_keywords(path), policy)


def test_detector_tagging_happened_in_the_sync(store):
    db, _ = store
    # The demo contact entry carries an e-mail and a phone number: tagged by detectors alone.
    assert query(db, "SELECT count(*) FROM facts WHERE tags LIKE '%private-person%'") == [(1,)]


def test_hide_policy_and_back(store, tmp_path):
    db, settings = store
    with opened(db) as conn:
        report = retag_store(FactStore(conn, settings), _keywords(tmp_path, "restic"))
        assert (report.tagged, report.hidden) == (1, 1)  # restic fact newly; the contact fact was hidden by the sync (the default)
        assert query(db, "SELECT count(*) FROM facts WHERE trust_score < 0.3") == [(2,)]
        report = retag_store(FactStore(conn, settings), _keywords(tmp_path, "# none"))
        assert (report.untagged, report.unhidden) == (1, 1)
        assert query(db, "SELECT trust_score FROM facts WHERE content LIKE '%restic%'") == [(0.5,)]


def test_variants_are_folded_and_nothing_else_is_written(store, tmp_path):
    db, settings = store
    with opened(db) as conn:
        conn.execute("UPDATE facts SET tags = tags || ',Private_Person' WHERE fact_id = 21")
        before = table_checksums(db)
        report = retag_store(FactStore(conn, settings), _keywords(tmp_path, "# none"))
        assert report.normalised == 1 and report.tagged == 0
        assert query(db, "SELECT tags FROM facts WHERE fact_id = 21") == [("synced-from-memory,user,private-person",)]
        after = table_checksums(db)
        # Another list: every verdict is recorded again under it.
        written = {
            "facts",
            "facts_fts",
            "facts_fts_data",
            "facts_fts_idx",
            "facts_fts_docsize",
            "memory_pipeline_verdicts",
            "memory_pipeline_judge",
        }
        assert {t for t in before if before[t] != after[t]} <= written
        assert retag_store(FactStore(conn, settings), _keywords(tmp_path, "# none")).wrote is False


def test_vectors_after_tagging_are_what_holographic_computes(store, tmp_path):
    db, settings = store
    with opened(db) as conn:
        retag_store(FactStore(conn, settings), _keywords(tmp_path, "atlas", "qwen"))
    copy = tmp_path / "copy.db"
    shutil.copyfile(db, copy)
    mine = dict(query(db, "SELECT fact_id, hrr_vector FROM facts"))
    oracle = holographic_store(copy)
    try:
        oracle.rebuild_all_vectors()
    finally:
        oracle.close()
    for fact_id, blob in query(copy, "SELECT fact_id, hrr_vector FROM facts"):
        assert np.max(np.abs(np.frombuffer(blob) - np.frombuffer(mine[fact_id]))) <= 1e-9
    for name, blob in query(copy, "SELECT bank_name, vector FROM memory_banks"):
        (own,) = query(db, "SELECT vector FROM memory_banks WHERE bank_name = ?", (name,))[0]
        assert np.max(np.abs(np.frombuffer(blob) - np.frombuffer(own))) <= 1e-9


def test_an_entity_left_with_no_fact_after_a_retag_is_removed(store, tmp_path):
    db, settings = store
    linked = query(
        db,
        """SELECT e.entity_id, e.name FROM entities e JOIN fact_entities fe USING (entity_id) JOIN facts f USING (fact_id)
           WHERE f.content LIKE '%restic%'""",
    )
    assert linked  # the backups fact's title names its entity
    with opened(db) as conn:
        retag_store(FactStore(conn, settings), _keywords(tmp_path, "restic"))
    orphans = query(
        db, "SELECT count(*) FROM entities e WHERE NOT EXISTS (SELECT 1 FROM fact_entities fe WHERE fe.entity_id = e.entity_id)"
    )
    assert orphans == [(0,)]
    gone = {entity_id for entity_id, _ in linked} - {r[0] for r in query(db, "SELECT entity_id FROM fact_entities")}
    assert gone and not query(db, f"SELECT 1 FROM entities WHERE entity_id IN ({','.join(map(str, gone))})")
