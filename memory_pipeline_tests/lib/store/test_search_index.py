import shutil

import pytest

from memory_pipeline.lib.in_hermes.fact_search import SearchError, search
from memory_pipeline.lib.privacy.matching import load_keywords
from memory_pipeline.lib.privacy.tagging import retag_store
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.schema.database import opened
from memory_pipeline.lib.store.settings import holographic_settings
from memory_pipeline_tests.support.hermes_oracle import holographic_retriever, holographic_store
from memory_pipeline_tests.support.repository import DEMO_KEYWORDS
from memory_pipeline_tests.support.search_queries import LABELLED_QUERIES, PRIVATE_QUERY, title_of
from memory_pipeline_tests.support.store_helpers import judge_of


@pytest.fixture
def demo_store(synced_home):
    return synced_home / "memory_store.db"


def _titles(results):
    return sorted(title_of(r["content"]) for r in results)


def test_labelled_queries_all_answered(demo_store):
    with opened(demo_store) as conn:
        for query, titles in LABELLED_QUERIES.items():
            assert _titles(search(conn, query, limit=50)) == sorted(titles), query
        query, titles = PRIVATE_QUERY
        assert search(conn, query) == []
        assert _titles(search(conn, query, include_private=True)) == titles


def holographic_answered(db) -> int:
    """How many labelled queries Hermes' own retriever (facts_fts, unicode61) answers fully."""
    store = holographic_store(db)
    try:
        retriever = holographic_retriever(store)
        answered = 0
        for query, titles in LABELLED_QUERIES.items():
            found = {title_of(r["content"]) for r in retriever.search(query, min_trust=0.0, limit=50)}
            answered += set(titles) <= found
        return answered
    finally:
        store.close()


def test_hermes_own_fts_misses_chinese_inside_sentences(demo_store, tmp_path):
    copy = tmp_path / "copy.db"
    shutil.copyfile(demo_store, copy)
    answered = holographic_answered(copy)
    assert 0 < answered < len(LABELLED_QUERIES)


def test_index_follows_facts_hermes_writes(demo_store):
    store = holographic_store(demo_store)
    try:
        fact_id = store.add_fact("会议纪要：新的部署窗口改到周三", category="project")
    finally:
        store.close()
    with opened(demo_store) as conn:
        assert fact_id not in [r["fact_id"] for r in search(conn, "部署窗口", include_private=True)]
        assert FactStore(conn, holographic_settings(demo_store.parent)).index.sync_search_index().added == 1
        assert [r["fact_id"] for r in search(conn, "部署窗口", include_private=True)] == [fact_id]
        assert search(conn, "部署窗口") == []  # indexed is not judged: no verdict, not shown
        retag_store(FactStore(conn, holographic_settings(demo_store.parent)), judge_of(load_keywords(DEMO_KEYWORDS)))
        assert [r["fact_id"] for r in search(conn, "部署窗口")] == [fact_id]
        conn.execute("DELETE FROM facts WHERE fact_id = ?", (fact_id,))
        assert FactStore(conn, holographic_settings(demo_store.parent)).index.sync_search_index().removed == 1
        assert search(conn, "部署窗口", include_private=True) == []
        assert FactStore(conn, holographic_settings(demo_store.parent)).index.sync_search_index().changed == 0


def test_short_query_is_refused_but_one_cjk_character_is_a_word(demo_store):
    with opened(demo_store) as conn:
        with pytest.raises(SearchError, match="at least 2 characters"):
            search(conn, " x ")
        found = search(conn, " 部 ")
        everything = conn.execute("SELECT count(*) FROM facts WHERE instr(content, '部') > 0 AND tags NOT LIKE '%private%'").fetchone()[0]
        assert found and all("部" in f["content"] for f in found) and len(found) == min(10, everything)
        assert search(conn, 'a"b') == []  # quotes are data, never FTS syntax


def test_a_query_typed_in_full_width_finds_what_its_plain_form_finds(demo_store):
    """A CJK input method in full-width mode types `ｓｔａｇｉｎｇ　１８：００`: the plain words."""
    with opened(demo_store) as conn:
        plain = [r["fact_id"] for r in search(conn, "staging 18:00")]
        assert plain and [r["fact_id"] for r in search(conn, "ｓｔａｇｉｎｇ\u3000１８：００")] == plain


def test_holographic_fts_out_of_step_is_detected_and_rebuilt(demo_store):
    with opened(demo_store) as conn:
        assert FactStore(conn, holographic_settings(demo_store.parent)).index.holographic_fts_health().healthy
        # A known pitfall: a direct UPDATE with the triggers gone leaves facts_fts stale.
        conn.execute("DROP TRIGGER facts_au")
        conn.execute("UPDATE facts SET content = 'Completely rewritten zebra content' WHERE fact_id = 1")
        health = FactStore(conn, holographic_settings(demo_store.parent)).index.holographic_fts_health()
        assert not health.healthy
        FactStore(conn, holographic_settings(demo_store.parent)).index.rebuild_holographic_fts()
        assert FactStore(conn, holographic_settings(demo_store.parent)).index.holographic_fts_health().healthy
        hit = conn.execute("SELECT rowid FROM facts_fts WHERE facts_fts MATCH 'zebra'").fetchall()
        assert hit == [(1,)]


def test_text_after_a_nul_byte_is_found_and_the_index_stays_in_step(demo_store):
    with opened(demo_store) as conn:
        conn.execute("INSERT INTO facts (content, category) VALUES (?, 'general')", ("before\x00after the byte findme",))
        assert FactStore(conn, holographic_settings(demo_store.parent)).index.sync_search_index().added == 1
        assert [r["content"] for r in search(conn, "findme", include_private=True)] == ["before\x00after the byte findme"]
        assert (
            FactStore(conn, holographic_settings(demo_store.parent)).index.sync_search_index().changed == 0
        )  # indexed once, not rewritten on every sync
        assert search(conn, "findme") == []  # not judged yet
        retag_store(FactStore(conn, holographic_settings(demo_store.parent)), judge_of(load_keywords(DEMO_KEYWORDS)))
        assert [r["content"] for r in search(conn, "findme")] == ["before\x00after the byte findme"]  # judged like any text


def test_words_in_any_order_find_the_facts_holding_them_all(demo_store):
    """Every word a substring of the fact, in any order and script, a one-character CJK word too;
    a quoted phrase stays exact; the best match first."""
    from memory_pipeline_tests.support.search_queries import MULTIWORD_QUERIES

    with opened(demo_store) as conn:
        for query, titles in MULTIWORD_QUERIES.items():
            assert _titles(search(conn, query, limit=50)) == sorted(titles), query
        with pytest.raises(SearchError, match="a word of at least 2 characters"):
            search(conn, 'x "" y')
        # A lone letter beside other words is left out, as a search box does.
        assert _titles(search(conn, "a restic")) == ["Backups"]


def test_matches_rank_by_bm25_current_first_newest_first_among_equals(demo_store):
    """A fact holding the words more often, or in a shorter text, ranks higher; equal ones newest
    first; a retired one after every current one. The order agrees with FTS5's own `bm25()` on
    the facts it scores apart."""
    store = holographic_store(demo_store)
    try:
        texts = [
            "zebra crossing notes: zebra zebra crossing",  # the words most often
            "zebra crossing",  # short, once each
            "zebra crossing " + "and a long tail of other words " * 12,  # long, once each
            "zebra crossing",  # the same as an older one: newer, so first of the two
        ]
        ids = [store.add_fact(t + f" #{n}", category="general") for n, t in enumerate(texts)]
    finally:
        store.close()
    with opened(demo_store) as conn:
        FactStore(conn, holographic_settings(demo_store.parent)).index.sync_search_index()
        found = [r["fact_id"] for r in search(conn, "zebra crossing", include_private=True)]
        assert found == [ids[0], ids[3], ids[1], ids[2]]
        fts = """SELECT rowid FROM memory_pipeline_fts WHERE memory_pipeline_fts MATCH '"zebra" AND "crossing"'
                 ORDER BY bm25(memory_pipeline_fts), rowid DESC"""
        bm25 = [i for (i,) in conn.execute(fts)]
        assert bm25[0] == ids[0] and bm25[-1] == ids[2]  # FTS5's order at both ends
        conn.execute("UPDATE facts SET tags = 'retired' WHERE fact_id = ?", (ids[0],))
        assert [r["fact_id"] for r in search(conn, "zebra crossing", include_private=True)][-1] == ids[0]


def test_a_withheld_fact_changes_no_shown_facts_score(demo_store):
    """A fact the agent is not given matches the query too (Hermes edited it since its "shown"
    verdict, so the verdict is for older text): what the agent is shown, and each score, is the
    same as before the edit."""
    store = holographic_store(demo_store)
    try:
        texts = ("zebra crossing by the school", "the zebra crossing", "an unrelated note")
        ids = [store.add_fact(text, category="general") for text in texts]
    finally:
        store.close()
    with opened(demo_store) as conn:
        writes = FactStore(conn, holographic_settings(demo_store.parent))
        writes.index.sync_search_index()
        retag_store(writes, judge_of(load_keywords(DEMO_KEYWORDS)))
        before = search(conn, "zebra crossing")
        assert sorted(r["fact_id"] for r in before) == sorted(ids[:2])
        long = "zebra crossing " + "a long note that was never judged " * 20
        conn.execute("UPDATE facts SET content = ? WHERE fact_id = ?", (long, ids[2]))
        conn.commit()
        writes.index.sync_search_index()
        assert ids[2] in [r["fact_id"] for r in search(conn, "zebra crossing", include_private=True)]
        assert search(conn, "zebra crossing") == before
