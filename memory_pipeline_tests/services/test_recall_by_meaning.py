"""Recall by meaning on real syncs: the bundled multilingual encoder (no stand-in) puts every fact
the agent may see into one space with the questions asked of it, across Chinese and English; a
withheld or removed fact has no vector and is never reached this way; a change of model re-embeds
through Ollama's real protocol; `embedding_coverage` holds the store to it."""

from __future__ import annotations

import shutil

import pytest

from memory_pipeline.context.home import Home
from memory_pipeline.lib.extraction.embedders import EmbedderChoice, EmbedderUnavailable
from memory_pipeline.lib.in_hermes import meaning, recall
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.schema.database import connect
from memory_pipeline.lib.store.settings import holographic_settings
from memory_pipeline.services.audit import audit_profile
from memory_pipeline.services.reading import QueryEncoders, search_profiles
from memory_pipeline.services.sync import SyncHooks
from memory_pipeline_tests.support.fake_ollama import FakeOllama
from memory_pipeline_tests.support.repository import DEMO_KEYWORDS
from memory_pipeline_tests.support.store_fixture import context_of
from memory_pipeline_tests.support.store_helpers import query, write_entries
from memory_pipeline_tests.support.syncing import sync_outcome

THEMES = "User prefers dark themes in every editor, terminal and IDE."
REVIEW = "每周五下午四点复盘本周的工作，复盘记录放在周报里。"
PORT = "**Grafana**: dashboards on port 3000 of the monitoring box; admin login through SSO only."
PRIVATE = "张伟 always reviews the dark mode designs before release."
ENTRIES = [THEMES, REVIEW, PORT, PRIVATE, "**Backups**: restic to the NAS every night, kept for 30 days."]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("meaning") / "hermes_home"
    (home / "memories").mkdir(parents=True)
    (home / "memory-pipeline").mkdir()
    shutil.copyfile(DEMO_KEYWORDS, home / "memory-pipeline" / "privacy_keywords.txt")  # 张伟 is on it
    write_entries(home / "memories" / "MEMORY.md", ENTRIES)
    (home / "config.yaml").write_text("memory:\n  memory_char_limit: 100000\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
        outcome = sync_outcome(home, extractor="rules")
    assert outcome.profiles["default"].run.success
    return home


def _db(home):
    return home / "memory_store.db"


def _fact_id(home, content):
    return query(_db(home), "SELECT fact_id FROM facts WHERE content = ?", (content,))[0][0]


def _search(home, text, limit=3):
    found = search_profiles(
        Home(home).contexts(), text, limit=limit, include_private=False, refresh_index=False, encoders=QueryEncoders(wait=True)
    )
    return found.facts


def test_a_question_in_one_language_finds_the_fact_written_in_the_other(home):
    first = _search(home, "我编辑器一般用什么主题？")[0]
    assert (first["content"], first["matched"]) == (THEMES, ["meaning"])
    assert _search(home, "When is the weekly review?")[0]["content"] == REVIEW
    conn = connect(_db(home), create=False)
    meaning.load_bundled()
    recalled, quiet = (
        recall.recalled_facts(conn, message, recall.bundled_meaning(conn, _db(home), message))
        for message in ("备份保留多久？", "Tell me a joke about cats.")
    )
    conn.close()
    assert [f["content"] for f in recalled] == [ENTRIES[4]] and quiet == []  # the hook: by meaning, only when sure


def test_letters_keep_an_exact_port_first_and_say_how_each_fact_was_found(home):
    results = _search(home, "3000", limit=5)
    assert results[0]["content"] == PORT and "letters" in results[0]["matched"]


def test_a_private_fact_has_no_vector_and_is_never_found_by_meaning(home):
    private = _fact_id(home, PRIVATE)
    assert query(_db(home), f"SELECT count(*) FROM {meaning.VECTORS_TABLE} WHERE fact_id = ?", (private,)) == [(0,)]
    vectors = query(_db(home), f"SELECT count(*), min(model) FROM {meaning.VECTORS_TABLE}")[0]
    assert vectors == (len(ENTRIES) - 1, meaning.BUNDLED_MODEL)
    for question in ("Who reviews the dark mode designs?", "谁审核深色模式的设计？", "dark mode designs review"):
        assert PRIVATE not in [r["content"] for r in _search(home, question, limit=10)]


def test_a_verdict_turning_private_and_a_removal_take_the_vector_with_them(home, tmp_path):
    copy = tmp_path / "hermes_home"
    shutil.copytree(home, copy)
    keywords = copy / "memory-pipeline" / "privacy_keywords.txt"
    keywords.write_text(keywords.read_text(encoding="utf-8") + "\nrestic\n", encoding="utf-8")
    backups = _fact_id(copy, ENTRIES[4])
    sync_outcome(copy, extractor="rules")
    assert query(_db(copy), f"SELECT count(*) FROM {meaning.VECTORS_TABLE} WHERE fact_id = ?", (backups,)) == [(0,)]
    themes = _fact_id(copy, THEMES)
    write_entries(copy / "memories" / "MEMORY.md", [e for e in ENTRIES if e != THEMES])
    sync_outcome(copy, extractor="rules")
    assert query(_db(copy), f"SELECT count(*) FROM {meaning.VECTORS_TABLE} WHERE fact_id = ?", (themes,)) == [(0,)]
    assert THEMES not in [r["content"] for r in _search(copy, "我编辑器一般用什么主题？", limit=10)]
    context = context_of(copy)
    results = {r.name: r for r in audit_profile(context, context.judge)}
    assert results["embedding_coverage"].passed, results["embedding_coverage"].detail


def test_a_change_of_model_re_embeds_every_fact_through_ollamas_protocol_and_stays(home, tmp_path, monkeypatch):
    copy = tmp_path / "hermes_home"
    shutil.copytree(home, copy)
    progress: list[tuple[int, int]] = []
    with FakeOllama(models=("qwen3.6-nothink:latest", "embed-fake:latest")) as ollama:
        monkeypatch.setenv("OLLAMA_HOST", ollama.url)
        changed = sync_outcome(
            copy, extractor="rules", embedder="ollama:embed-fake", force=True, hooks=SyncHooks(embedding=lambda *p: progress.append(p))
        )
        embeds = [body for path, body in ollama.requests if path == "/api/embed"]
    assert changed.profiles["default"].run.success
    summary = changed.profiles["default"].summary
    assert (summary.embedder, summary.embedded) == ("ollama:embed-fake", len(ENTRIES) - 1)
    assert progress[-1] == (len(ENTRIES) - 1, len(ENTRIES) - 1)  # the terminal's bar saw the re-embedding end
    models = query(_db(copy), f"SELECT model, count(*) FROM {meaning.VECTORS_TABLE} GROUP BY model")
    assert models == [("ollama:embed-fake", len(ENTRIES) - 1)] and embeds and embeds[0]["model"] == "embed-fake"
    assert query(_db(copy), f"SELECT model FROM {meaning.EMBEDDER_TABLE}") == [("ollama:embed-fake",)]
    # The model chosen stays for later syncs; while its Ollama is down, its vectors stay and the sync holds.
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    later = sync_outcome(copy, extractor="rules", force=True).profiles["default"]
    assert later.run.success and (later.summary.embedder, later.summary.embedded) == ("ollama:embed-fake", 0)
    assert query(_db(copy), f"SELECT count(*) FROM {meaning.VECTORS_TABLE} WHERE model = 'ollama:embed-fake'") == [(len(ENTRIES) - 1,)]
    # Named again, the bundled encoder takes over; a model asked for that cannot run fails the sync, saying why.
    assert sync_outcome(copy, extractor="rules", embedder="bundled", force=True).profiles["default"].run.success
    assert query(_db(copy), f"SELECT model, count(*) FROM {meaning.VECTORS_TABLE} GROUP BY model") == [
        (meaning.BUNDLED_MODEL, len(ENTRIES) - 1)
    ]
    refused = sync_outcome(copy, extractor="rules", embedder="ollama:embed-fake", force=True).profiles["default"].run
    assert not refused.success and "ollama pull embed-fake" in refused.error


def test_an_ollama_embedder_off_this_machine_is_refused_and_a_broken_one_says_what_to_do():
    with pytest.raises(EmbedderUnavailable, match="not on this machine"):
        EmbedderChoice.parse("ollama:bge-m3", "http://203.0.113.9:11434").encoder()
    with pytest.raises(EmbedderUnavailable, match="needs a model"):
        EmbedderChoice.parse("ollama", "")
    with FakeOllama(models=("other:latest",)) as ollama, pytest.raises(EmbedderUnavailable, match="ollama pull bge-m3"):
        EmbedderChoice.parse("ollama:bge-m3", ollama.url).encoder().encode(["text"])


def test_a_vector_no_fact_may_have_fails_embedding_coverage_as_an_error(home, tmp_path):
    copy = tmp_path / "hermes_home"
    shutil.copytree(home, copy)
    settings = holographic_settings(copy)
    with FactStore.opened(settings) as store, store.transaction() as writes:
        writes.embeddings.save(meaning.BUNDLED_MODEL, [(_fact_id(copy, PRIVATE), "0" * 64, bytes(512))])
    with FactStore.opened(settings) as store:
        coverage = store.reads.embedding_coverage()
    assert (coverage.not_allowed, coverage.missing) == (1, 0)
    context = context_of(copy)
    result = next(r for r in audit_profile(context, context.judge) if r.name == "embedding_coverage")
    assert (result.passed, result.severity) == (False, "ERROR") and "1 vectors of facts withheld" in result.detail
