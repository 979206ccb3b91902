"""The hook's recall on natural questions: the fact a question is about in at least 90% of the
questions that name one, nothing in at least 95% of those that name none (the labelled set in
`support/recall_questions.py`, over the demo profile and entries in four languages)."""

import pytest

from memory_pipeline.lib.in_hermes.fact_search import message_facts
from memory_pipeline.lib.store.schema.database import opened
from memory_pipeline_tests.support.recall_questions import NAMED, NAMES_NOTHING, RECALL_ENTRIES
from memory_pipeline_tests.support.search_queries import title_of
from memory_pipeline_tests.support.store_helpers import read_entries, write_entries
from memory_pipeline_tests.support.syncing import synced_profile


@pytest.fixture
def recall_store(capsys, demo_home):
    memory = demo_home / "memories" / "MEMORY.md"
    write_entries(memory, read_entries(memory) + RECALL_ENTRIES)
    (demo_home / "config.yaml").write_text("memory:\n  memory_char_limit: 100000\n", encoding="utf-8")
    synced_profile(demo_home)
    return demo_home / "memory_store.db"


def test_the_hook_finds_what_a_question_names_and_adds_nothing_otherwise(recall_store):
    assert len(NAMED) + len(NAMES_NOTHING) >= 60
    with opened(recall_store, create=False) as conn:
        missed = [q for q, title in NAMED if title not in [title_of(f["content"]) for f in message_facts(conn, q)]]
        added = [q for q in NAMES_NOTHING if message_facts(conn, q)]
    assert len(missed) <= 0.10 * len(NAMED), missed
    assert len(added) <= 0.05 * len(NAMES_NOTHING), added
