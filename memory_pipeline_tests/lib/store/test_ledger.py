import pandas as pd

from memory_pipeline.lib.hermes.entries import hashed_frame, parsed_frame
from memory_pipeline.lib.hermes.hashing import entry_id, entry_sha256, short_hash
from memory_pipeline.lib.hermes.memory_files import SourceReading
from memory_pipeline.lib.store.reads.ledger import LedgerEntry, ledger_problems
from memory_pipeline.lib.store.schema.database import connect
from memory_pipeline.lib.sync.diff import diff_entries


def frame(memory=(), user=()):
    readings = []
    for source, texts in (("memory", memory), ("user", user)):
        reading = SourceReading(source=source, path=None, limit=2200, exists=True)
        reading.entries = list(texts)
        readings.append(reading)
    return hashed_frame(parsed_frame("p", readings))


def ledger_of(pairs, first_fact=1):
    """A ledger as a previous sync of (source, text) would leave it, one fact per entry."""
    result = {}
    for offset, (source, text) in enumerate(pairs):
        eid = entry_id(source, entry_sha256(text))
        result[eid] = LedgerEntry(eid, source, short_hash(entry_sha256(text)), [first_fact + offset], [], text)
    return result


def statuses(diff: pd.DataFrame) -> dict[str, str]:
    # Current entries by their text; vanished ones by their id (their text is the store's).
    return {(row.entry_id if row.status == "removed" else row.text): row.status for row in diff.itertuples()}


def test_first_sync_is_all_new():
    diff = diff_entries(frame(["a rule"], ["a preference"]), {})
    assert statuses(diff) == {"a rule": "new", "a preference": "new"}


def test_reordering_changes_nothing():
    texts = ["first rule about PRs", "second rule about writing", "third rule about tools"]
    diff = diff_entries(frame(list(reversed(texts))), ledger_of([("memory", t) for t in texts]))
    assert set(diff["status"]) == {"unchanged"}


def test_edit_is_changed_with_its_fact_as_candidate():
    old = "**PR 铁律**: 标题不要用 fix 前缀，每个 PR 只做一件事"
    new = "**PR 铁律**: 标题不要用 fix 前缀，每个 PR 只做一件事，描述写动机"
    ledger = ledger_of([("memory", old), ("memory", "unrelated entry about backups")], first_fact=7)
    diff = diff_entries(frame([new, "unrelated entry about backups"]), ledger)
    row = diff[diff["text"] == new].iloc[0]
    assert row.status == "changed" and row.existing_fact_ids == [7] and row.similarity >= 0.5
    assert row.matched_entry_id == entry_id("memory", entry_sha256(old))
    assert "removed" not in set(diff["status"])


def test_dissimilar_replacement_is_new_plus_removed():
    ledger = ledger_of([("memory", "Suno 下载路径走 api")])
    diff = diff_entries(frame(["completely different note on deploy windows"]), ledger)
    assert sorted(diff["status"]) == ["new", "removed"]
    assert diff[diff["status"] == "removed"].iloc[0].existing_fact_ids == [1]


def test_similarity_only_within_the_same_source():
    ledger = ledger_of([("user", "likes tables more than long paragraphs")])
    diff = diff_entries(frame(["likes tables more than long paragraphs!"]), ledger)
    assert sorted(diff["status"]) == ["new", "removed"]


def test_move_between_files_is_changed_not_duplicated():
    a, b = "entry that moves to USER.md", "entry that moves to MEMORY.md"
    ledger = ledger_of([("memory", a), ("user", b)])
    diff = diff_entries(frame([b], [a]), ledger)
    assert set(diff["status"]) == {"changed"} and len(diff) == 2
    assert sorted(i for ids in diff["existing_fact_ids"] for i in ids) == [1, 2]


def test_unreadable_source_is_held_not_removed():
    ledger = ledger_of([("memory", "kept while the file is broken"), ("user", "gone for real")])
    diff = diff_entries(frame([], []), ledger, unreadable_sources=frozenset({"memory"}))
    assert statuses(diff) == {entry_id("user", entry_sha256("gone for real")): "removed"}


def test_missing_facts_are_written_again():
    ledger = ledger_of([("memory", "its fact was deleted behind our back")])
    only = next(iter(ledger.values()))
    only.missing_fact_ids, only.fact_ids = only.fact_ids, []
    diff = diff_entries(frame(["its fact was deleted behind our back"]), ledger)
    assert diff.iloc[0].status == "new" and diff.iloc[0].matched_entry_id == only.entry_id


def test_ledger_problems_name_counts_never_content(tmp_path):
    conn = connect(tmp_path / "s.db")
    assert ledger_problems(conn) == []
    leak = "18 条 facts 的内容漏进来"
    conn.execute(
        "INSERT INTO memory_pipeline_ledger (entry_id, source, entry_sha256, fact_id) VALUES ('memory:x', 'memory', ?, ?)",
        ("0" * 64, leak),
    )
    conn.execute(
        "INSERT INTO memory_pipeline_ledger (entry_id, source, entry_sha256, fact_id, synced_at) "
        "VALUES ('y', 'notes', 'zz', 3, 'yesterday')"
    )
    problems = ledger_problems(conn)
    assert len(problems) == 4 and all(leak not in p for p in problems)
    assert problems[0].startswith("1 rows whose fact_id is not a positive integer")


def test_an_entry_patched_past_recognition_keeps_its_fact_by_its_label():
    """Current Hermes' `patch` rewrites part of an entry: most of the text may go, the label stays."""
    old = "**Deploy**: staging 每天 18:00 自动部署；production 只在周二/周四发布"
    new = "**Deploy**: 发布窗口改到周三 20:00，需要两人复核"
    diff = diff_entries(frame([new, "other entry"]), ledger_of([("memory", old), ("memory", "other entry")]))
    (row,) = [r for r in diff.itertuples() if r.text == new]
    assert row.status == "changed" and list(row.existing_fact_ids) == [1] and row.similarity < 0.5
    # A label two new entries share, or one two vanished entries had, decides nothing.
    twice = diff_entries(frame([new, new.replace("两人", "三人")]), ledger_of([("memory", old)]))
    assert sorted(twice["status"]) == ["new", "new", "removed"]
    # The journal names an edit however different the label is.
    renamed = "**Release window**: 周三 20:00"
    edits = {("memory", entry_sha256(renamed)): entry_id("memory", entry_sha256(old))}
    journaled = diff_entries(frame([renamed]), ledger_of([("memory", old)]), edits=edits)
    assert list(journaled["status"]) == ["changed"]


def test_an_entry_s_rows_are_found_through_an_index_whoever_owns_the_store(tmp_path):
    """Every edit and removal looks its entry up: a scan of the whole ledger per entry made an
    incremental sync of 100,000 entries take minutes. The key leads with the profile, so a sole
    owner (who names no profile) and a sharer alike need the entry's own index."""
    from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
    from memory_pipeline.lib.store.schema.ledger_table import LEDGER_ENTRY_INDEX, LEDGER_TABLE

    conn = connect(tmp_path / "memory_store.db")
    for owner in (SOLE_OWNER, LedgerOwner("work", ("default",))):
        scope, params = owner.rows_sql()
        for sql in (
            f"DELETE FROM {LEDGER_TABLE} WHERE entry_id = ? AND {scope}",
            f"SELECT source, entry_sha256 FROM {LEDGER_TABLE} WHERE entry_id = ? AND {scope} LIMIT 1",
        ):
            plan = " ".join(row[-1] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", ("entry", *params)))
            assert f"USING INDEX {LEDGER_ENTRY_INDEX}" in plan, (owner, plan)
    # A store made before the index gets it the next time the pipeline opens it.
    conn.execute(f"DROP INDEX {LEDGER_ENTRY_INDEX}")
    conn.close()
    conn = connect(tmp_path / "memory_store.db")
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (LEDGER_ENTRY_INDEX,)).fetchone()
