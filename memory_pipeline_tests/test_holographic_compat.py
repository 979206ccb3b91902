"""Hermes reads the pipeline's store as its own: the real Holographic code from
hermes-agent==0.19.0, on copies of synced stores."""

import re
import shutil
import sqlite3

import numpy as np
import pytest

from memory_pipeline_tests.support.hermes_oracle import holographic_retriever, holographic_store
from memory_pipeline_tests.support.store_helpers import query, read_entries, write_entries
from memory_pipeline_tests.support.syncing import synced_profile


def _vectors(db):
    conn = sqlite3.connect(db)
    try:
        facts = {i: np.frombuffer(v, dtype=np.float64) for i, v in conn.execute("SELECT fact_id, hrr_vector FROM facts")}
        rows = conn.execute("SELECT bank_name, vector, fact_count FROM memory_banks")
        banks = {n: (np.frombuffer(v, dtype=np.float64), c) for n, v, c in rows}
    finally:
        conn.close()
    return facts, banks


@pytest.fixture
def synced_copy(capsys, synced_home, tmp_path):
    """A demo store after a sync, an edit, a removal (policy delete) and a move: then copied."""
    demo_home = synced_home
    memory, user = demo_home / "memories" / "MEMORY.md", demo_home / "memories" / "USER.md"
    entries = read_entries(memory)
    entries[2] += " 备用镜像 mirror.example.org 也会 403。"
    moved = entries.pop(5)
    write_entries(memory, entries[:-1])
    write_entries(user, read_entries(user) + [moved])
    result = synced_profile(demo_home, removal_policy="delete")
    assert (result["updated"], result["removed"]) == (2, 1)
    copy = tmp_path / "copy.db"
    shutil.copyfile(demo_home / "memory_store.db", copy)
    return copy


def test_rebuild_all_vectors_changes_nothing(synced_copy):
    facts, banks = _vectors(synced_copy)
    store = holographic_store(synced_copy)
    try:
        assert store.rebuild_all_vectors() == len(facts)
    finally:
        store.close()
    rebuilt_facts, rebuilt_banks = _vectors(synced_copy)
    assert rebuilt_facts.keys() == facts.keys() and rebuilt_banks.keys() == banks.keys()
    for fact_id, vector in facts.items():
        assert vector.shape == (1024,)
        assert np.max(np.abs(rebuilt_facts[fact_id] - vector)) <= 1e-9, fact_id
    for name, (vector, count) in banks.items():
        assert rebuilt_banks[name][1] == count
        assert np.max(np.abs(rebuilt_banks[name][0] - vector)) <= 1e-9, name


def _fts_tokens(text):
    # unicode61 splits on everything that is not a letter or digit; a CJK run is one token.
    return set(re.findall(r"\w+", text.lower()))


def test_search_finds_every_fact_by_a_distinctive_word(synced_copy):
    rows = query(synced_copy, "SELECT fact_id, content FROM facts")
    tokens = {fact_id: _fts_tokens(content) for fact_id, content in rows}
    store = holographic_store(synced_copy)
    try:
        retriever = holographic_retriever(store)
        for fact_id, own in tokens.items():
            others = set().union(*(t for i, t in tokens.items() if i != fact_id))
            distinctive = sorted((t for t in own - others if len(t) >= 3 and not t.isdigit()), key=lambda t: (-t.isascii(), -len(t)))
            assert distinctive, f"fact {fact_id} has no distinctive word"
            found = [r["fact_id"] for r in retriever.search(distinctive[0], min_trust=0.0)]  # private facts sit below 0.3
            assert fact_id in found, (fact_id, distinctive[0])
    finally:
        store.close()


def test_probe_finds_an_entitys_facts(synced_copy, tmp_path):
    """Holographic's probe unbinds the entity from the category bank. Its signal is weak by
    design (on a store its own add_fact filled, probes without a category miss most facts), so
    the test holds it to clearly-better-than-chance recall, and to identical rankings on the
    vectors Holographic itself rebuilds."""
    linked = query(
        synced_copy,
        """SELECT e.name, min(fe.fact_id), min(f.category) FROM entities e
                                   JOIN fact_entities fe USING (entity_id) JOIN facts f ON f.fact_id = fe.fact_id
                                   GROUP BY e.entity_id HAVING count(*) = 1""",
    )
    assert len(linked) >= 10
    rebuilt = tmp_path / "rebuilt.db"
    shutil.copyfile(synced_copy, rebuilt)
    oracle = holographic_store(rebuilt)
    oracle.rebuild_all_vectors()
    store = holographic_store(synced_copy)
    try:
        mine, theirs = holographic_retriever(store), holographic_retriever(oracle)
        hits = 0
        for name, fact_id, category in linked:
            ranking = [(r["fact_id"], round(r["score"], 9)) for r in mine.probe(name, category=category, limit=3)]
            assert ranking == [(r["fact_id"], round(r["score"], 9)) for r in theirs.probe(name, category=category, limit=3)]
            hits += fact_id in [i for i, _ in ranking]
        assert hits / len(linked) >= 0.6, (hits, len(linked))
    finally:
        store.close()
        oracle.close()


def test_holographic_add_mirror_then_sync_gains_no_duplicate(capsys, demo_home):
    """Holographic mirrors each memory `add` as add_fact(entry, general / user_pref); a sync on
    top must collapse onto those rows."""
    db = demo_home / "memory_store.db"
    store = holographic_store(db)
    mirrored = {}
    try:
        for name, category in (("MEMORY.md", "general"), ("USER.md", "user_pref")):
            for entry in read_entries(demo_home / "memories" / name):
                mirrored[entry] = store.add_fact(entry, category=category)
    finally:
        store.close()
    result = synced_profile(demo_home)
    assert result["facts_total"] == len(mirrored) == 23 and result["added"] == 23
    assert query(db, "SELECT count(*) FROM facts") == [(23,)]
    ledger = dict(query(db, "SELECT f.content, l.fact_id FROM memory_pipeline_ledger l JOIN facts f USING (fact_id)"))
    assert ledger == mirrored
    facts, banks = _vectors(db)
    shutil.copyfile(db, demo_home / "check.db")
    store = holographic_store(demo_home / "check.db")
    try:
        store.rebuild_all_vectors()
    finally:
        store.close()
    rebuilt, rebuilt_banks = _vectors(demo_home / "check.db")
    assert all(np.max(np.abs(rebuilt[i] - v)) <= 1e-9 for i, v in facts.items())
    assert all(np.max(np.abs(rebuilt_banks[n][0] - v)) <= 1e-9 and rebuilt_banks[n][1] == c for n, (v, c) in banks.items())
