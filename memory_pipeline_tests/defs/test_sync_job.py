"""The sync through the real job, as the sync service runs it: diff, extraction, upsert, ledger."""

import json

import pytest

from memory_pipeline.cli import main
from memory_pipeline_tests.support.hermes_oracle import hermes_memory
from memory_pipeline_tests.support.store_helpers import (
    consistency_problems,
    query,
    read_entries,
    table_checksums,
    write_entries,
)
from memory_pipeline_tests.support.syncing import sync_outcome, synced_profile


@pytest.fixture
def synced(synced_home):
    return synced_home, synced_home / "memory_store.db"


def test_second_sync_writes_nothing_and_calls_no_extractor(synced):
    home, db = synced
    before_rows, before_bytes = table_checksums(db), db.read_bytes()
    again = synced_profile(home)
    assert (again["added"], again["updated"], again["unchanged"], again["removed"]) == (0, 0, 23, 0)
    assert again["llm_calls"] == 0
    assert table_checksums(db) == before_rows
    assert db.read_bytes() == before_bytes


def test_edit_one_entry_updates_its_fact_in_place(synced):
    home, db = synced
    path = home / "memories" / "MEMORY.md"
    entries = read_entries(path)
    old = entries[0]
    (fact_id,) = query(db, "SELECT fact_id FROM facts WHERE content = ?", (old,))[0]
    entries[0] = old + " 例外：hotfix 分支可以直接 cherry-pick。"
    write_entries(path, entries)
    result = synced_profile(home)
    assert (result["updated"], result["added"], result["facts_total"]) == (1, 0, 23)
    assert query(db, "SELECT content FROM facts WHERE fact_id = ?", (fact_id,)) == [(entries[0],)]
    assert query(db, "SELECT count(*) FROM facts WHERE content = ?", (old,)) == [(0,)]
    assert consistency_problems(db) == []


def test_reorder_changes_nothing(synced):
    home, db = synced
    path = home / "memories" / "MEMORY.md"
    before = table_checksums(db)
    write_entries(path, list(reversed(read_entries(path))))
    result = synced_profile(home)
    assert (result["added"], result["updated"], result["unchanged"]) == (0, 0, 23)
    assert table_checksums(db) == before


def test_insert_one_entry_is_one_add(synced):
    home, db = synced
    path = home / "memories" / "USER.md"
    entries = read_entries(path)
    entries.insert(2, "**饮食**: 不吃香菜，咖啡只喝美式。")
    write_entries(path, entries)
    result = synced_profile(home)
    assert (result["added"], result["updated"], result["unchanged"], result["facts_total"]) == (1, 0, 23, 24)
    assert query(db, "SELECT category, tags FROM facts WHERE content LIKE '**饮食**%'") == [("user_pref", "synced-from-memory,user")]


@pytest.mark.parametrize("policy,facts_left,trust", [("keep", 23, 0.5), ("retire", 22, None), ("delete", 22, None)])
def test_remove_one_entry_per_policy(synced, policy, facts_left, trust):
    home, db = synced
    path = home / "memories" / "MEMORY.md"
    entries = read_entries(path)
    gone = entries.pop(3)
    write_entries(path, entries)
    result = synced_profile(home, removal_policy=policy)
    assert (result["removed"], result["added"], result["updated"], result["facts_total"]) == (1, 0, 0, facts_left)
    rows = query(db, "SELECT trust_score FROM facts WHERE content = ?", (gone,))
    assert (rows[0][0] if rows else None) == pytest.approx(trust) if trust else rows == []
    statuses = query(
        db,
        """SELECT l.status FROM memory_pipeline_ledger l
           JOIN (SELECT fact_id, content FROM facts UNION ALL SELECT fact_id, content FROM memory_pipeline_archive) f USING (fact_id)
           WHERE f.content = ?""",
        (gone,),
    )
    assert statuses == ([] if policy == "delete" else [("retired",)])
    assert consistency_problems(db) == []
    # The entry coming back restores it as an active, fully trusted fact.
    write_entries(path, entries + [gone])
    back = synced_profile(home)
    assert back["added"] == 1 and back["facts_total"] == 23
    assert query(db, "SELECT trust_score FROM facts WHERE content = ?", (gone,)) == [(0.5,)]
    assert consistency_problems(db) == []


def test_swap_entries_between_files_without_duplicates(synced):
    home, db = synced
    memory_path, user_path = home / "memories" / "MEMORY.md", home / "memories" / "USER.md"
    memory, user = read_entries(memory_path), read_entries(user_path)
    to_user, to_memory = memory.pop(1), user.pop(3)
    write_entries(memory_path, memory + [to_memory])
    write_entries(user_path, user + [to_user])
    result = synced_profile(home)
    assert (result["added"], result["updated"], result["removed"], result["facts_total"]) == (0, 2, 0, 23)
    assert query(db, "SELECT category FROM facts WHERE content = ?", (to_user,)) == [("user_pref",)]
    assert query(db, "SELECT tags FROM facts WHERE content = ?", (to_memory,)) == [("synced-from-memory,memory",)]
    assert consistency_problems(db) == []
    again = synced_profile(home)
    assert (again["added"], again["updated"], again["unchanged"]) == (0, 0, 23)


def test_unreadable_file_deletes_nothing(synced):
    home, db = synced
    before = table_checksums(db)
    (home / "memories" / "MEMORY.md").write_bytes(b"\xff\xfe broken")
    outcome = sync_outcome(home, "default", removal_policy="delete")
    assert outcome.run_problems and outcome.profiles["default"].summary.removed == 0
    assert table_checksums(db) == before


def test_corrupt_store_is_a_one_line_failure(demo_home):
    db = demo_home / "memory_store.db"
    db.write_bytes(b"this is not sqlite at all" * 100)
    outcome = sync_outcome(demo_home, "default")
    error = outcome.profiles["default"].summary.error
    assert outcome.run_problems and str(db) in error and "\n" not in error
    assert db.read_bytes() == b"this is not sqlite at all" * 100


def _remove_memory_entry(home, index: int):
    """MEMORY.md without its entry at `index`: (path, the remaining entries, the removed one)."""
    path = home / "memories" / "MEMORY.md"
    entries = read_entries(path)
    gone = entries.pop(index)
    write_entries(path, entries)
    return path, entries, gone


def _tags_and_trust(db, content: str) -> tuple[str, float]:
    ((tags, trust),) = query(db, "SELECT tags, trust_score FROM facts WHERE content = ?", (content,))
    return tags, trust


def test_retire_is_the_default_and_takes_removed_facts_out_of_every_hermes_tool(capsys, synced):
    home, db = synced
    path, entries, gone = _remove_memory_entry(home, 3)
    ((fact_id,),) = query(db, "SELECT fact_id FROM facts WHERE content = ?", (gone,))
    result = synced_profile(home)
    assert result["removed"] == 1
    # Moved out of Hermes' tables, kept in the pipeline's archive: no Hermes tool returns it at any trust.
    assert query(db, "SELECT count(*) FROM facts WHERE content = ?", (gone,)) == [(0,)]
    assert query(db, "SELECT fact_id FROM memory_pipeline_archive WHERE content = ?", (gone,)) == [(fact_id,)]
    word = gone.split("**")[1] if gone.startswith("**") else gone[:6]
    with hermes_memory(home) as hermes:
        listed = hermes.provider.handle_tool_call("fact_store", {"action": "list", "min_trust": 0, "limit": 100})
        searched = hermes.provider.handle_tool_call("fact_store", {"action": "search", "query": word, "min_trust": 0})
    assert gone not in listed and gone not in searched
    assert consistency_problems(db) == []
    # A receipt, content-free: the entry's file (no hash of it), the fact, what went with it, the run.
    assert main(["receipts", "--hermes-home", str(home), "--profile", "default", "--json"]) == 0
    out = capsys.readouterr().out
    ((receipt,),) = [p["receipts"] for p in json.loads(out)["profiles"]]
    assert (receipt["action"], receipt["fact_ids"], receipt["index_rows"]) == ("archived", [fact_id], 2)
    assert receipt["source"] == "memory" and "entry_sha256" not in receipt and receipt["run_id"]
    assert receipt["banks"] and receipt["links"] >= 0 and word not in out
    # Coming back restores it, with its own id, at full trust, without the tag.
    write_entries(path, entries + [gone])
    assert synced_profile(home)["added"] == 1
    assert query(db, "SELECT fact_id FROM facts WHERE content = ?", (gone,)) == [(fact_id,)]
    tags, trust = _tags_and_trust(db, gone)
    assert "retired" not in tags.split(",") and trust == 0.5
    assert query(db, "SELECT count(*) FROM memory_pipeline_archive") == [(0,)]


def test_a_store_synced_under_keep_moves_to_retire_on_its_next_sync(synced):
    home, db = synced
    _, _, gone = _remove_memory_entry(home, 0)
    synced_profile(home, removal_policy="keep")
    assert query(db, "SELECT trust_score FROM facts WHERE content = ?", (gone,)) == [(0.5,)]
    again = synced_profile(home)
    assert (again["added"], again["removed"], again["unchanged"]) == (0, 0, 22)
    assert query(db, "SELECT count(*) FROM facts WHERE content = ?", (gone,)) == [(0,)]  # moved to the archive
    before = table_checksums(db)
    synced_profile(home)
    assert table_checksums(db) == before  # moved once; the next sync writes nothing
