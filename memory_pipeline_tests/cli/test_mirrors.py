"""Holographic's mirror rows leave no ghost: Hermes 0.19.0's own memory tool adds entries and its
Holographic provider mirrors them as facts; an entry edited before the next sync has its mirror
updated in place (id kept), one removed with evidence that it was an entry is retired, and one
with no evidence is named by the `mirrors_adopted` check until `memory-pipeline mirrors` retires
or keeps it."""

import json

from memory_pipeline.cli import main
from memory_pipeline.lib.store.settings import holographic_settings
from memory_pipeline_tests.support.hermes_oracle import hermes_memory
from memory_pipeline_tests.support.store_helpers import profile_result, query, sync_json

STANDUP, STANDUP_EDITED = "Standup moved to 9:30 in room Orion", "Standup moved to 10:00 in room Orion"
DOOR_CODE = "Temporary door code is 4711"


def _fact(db, content: str):
    rows = query(db, "SELECT fact_id, tags, trust_score FROM facts WHERE content = ?", (content,))
    return rows[0] if rows else None


def _mirrors(capsys, home, *args) -> dict:
    assert main(["mirrors", "--hermes-home", str(home), "--profile", "default", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)["profiles"][0]


def test_an_edited_entry_updates_its_mirror_in_place_and_a_removed_one_is_named_then_retired(capsys, synced_home):
    db = synced_home / "memory_store.db"
    with hermes_memory(synced_home) as hermes:
        assert hermes.add("memory", STANDUP)["success"] and hermes.add("memory", DOOR_CODE)["success"]
        assert hermes.replace("memory", "9:30", STANDUP_EDITED)["success"] and hermes.remove("memory", "door code")["success"]
    mirrored, door = _fact(db, STANDUP), _fact(db, DOOR_CODE)
    assert mirrored[1:] == ("", 0.5) and door[1:] == ("", 0.5)  # the mirror rows Holographic left

    payload = sync_json(capsys, synced_home, "--profile", "default")
    assert _fact(db, STANDUP) is None
    edited = _fact(db, STANDUP_EDITED)
    assert edited[0] == mirrored[0] and "synced-from-memory" in edited[1] and edited[2] == 0.5  # id kept
    assert _fact(db, DOOR_CODE) == door  # no evidence it was an entry: never touched silently
    assert payload["ok"] is True and profile_result(payload)["failing_checks"] == ["cap_usage", "mirrors_adopted"]
    assert profile_result(payload)["mirrors"] == {"found": 2, "adopted": 0, "updated": 1, "retired": 0, "unexplained": 1}

    main(["audit", "--hermes-home", str(synced_home), "--profile", "default"])
    out = capsys.readouterr().out
    assert f"fact ids {door[0]}" in out and DOOR_CODE not in out and "memory-pipeline mirrors --profile default" in out

    shown = _mirrors(capsys, synced_home, "--retire")
    assert (shown["unexplained"], shown["settled"]) == ([door[0]], []) and _fact(db, DOOR_CODE) == door  # dry run
    assert _mirrors(capsys, synced_home, "--retire", "--apply")["settled"] == [door[0]]
    fact_id, tags, trust = _fact(db, DOOR_CODE)
    assert "retired" in tags and trust < holographic_settings(synced_home).min_trust
    assert profile_result(sync_json(capsys, synced_home, "--profile", "default"))["failing_checks"] == ["cap_usage"]


def test_a_removed_entry_in_a_hermes_drift_backup_has_its_mirror_retired_by_the_sync(capsys, synced_home):
    db = synced_home / "memory_store.db"
    memory = synced_home / "memories" / "MEMORY.md"
    before = memory.read_text(encoding="utf-8")
    with hermes_memory(synced_home) as hermes:
        assert hermes.add("memory", DOOR_CODE)["success"]
        (memory.parent / "MEMORY.md.bak.20261204-0930").write_text(memory.read_text(encoding="utf-8"), encoding="utf-8")
        assert hermes.remove("memory", "door code")["success"]
    assert memory.read_text(encoding="utf-8") == before
    payload = sync_json(capsys, synced_home, "--profile", "default")
    fact_id, tags, trust = _fact(db, DOOR_CODE)
    assert "retired" in tags and trust < holographic_settings(synced_home).min_trust
    assert profile_result(payload)["mirrors"]["retired"] == 1 and "mirrors_adopted" not in profile_result(payload)["failing_checks"]


def test_a_kept_fact_is_the_agents_own_and_never_named_again(capsys, synced_home):
    db = synced_home / "memory_store.db"
    with hermes_memory(synced_home) as hermes:
        hermes.provider.handle_tool_call("fact_store", {"action": "add", "content": "Prefers dark roast coffee", "category": "general"})
    fact_id = _fact(db, "Prefers dark roast coffee")[0]
    assert "mirrors_adopted" in profile_result(sync_json(capsys, synced_home, "--profile", "default"))["failing_checks"]
    assert _mirrors(capsys, synced_home, "--keep", "--apply")["settled"] == [fact_id]
    assert _fact(db, "Prefers dark roast coffee") == (fact_id, "", 0.5)  # the fact itself is untouched
    assert "mirrors_adopted" not in profile_result(sync_json(capsys, synced_home, "--profile", "default"))["failing_checks"]


def test_a_first_sync_of_a_long_mirrored_store_says_what_it_did(capsys, demo_home):
    with hermes_memory(demo_home) as hermes:
        for text in ("Build server is ci-7", "Deploys freeze on Fridays", "Old VPN host is vpn-legacy"):
            assert hermes.add("memory", text)["success"]
        assert hermes.remove("memory", "vpn-legacy")["success"]
    assert main(["sync", "--hermes-home", str(demo_home), "--profile", "default"]) == 0
    out = capsys.readouterr().out
    assert "  Holographic mirror rows: 3 found; 2 adopted by their entry, 1 unexplained" in out
    assert "memory-pipeline mirrors --profile default" in out


def test_a_mirror_current_hermes_scrubbed_of_secrets_is_adopted_not_left_unexplained(capsys, synced_home):
    """Current Hermes hands Holographic the entry with its secrets masked (its own
    `redact_sensitive_text`): that mirror row is the entry's, adopted by the sync."""
    from agent.redact import redact_sensitive_text

    from memory_pipeline_tests.support.hermes_oracle import holographic_store
    from memory_pipeline_tests.support.store_helpers import read_entries, write_entries

    db = synced_home / "memory_store.db"
    entry = "CI deploys with GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 from the release job"
    memory = synced_home / "memories" / "MEMORY.md"
    write_entries(memory, [*read_entries(memory), entry])
    sync_json(capsys, synced_home, "--profile", "default")
    scrubbed = redact_sensitive_text(entry, force=True)
    assert scrubbed != entry and "ghp_abcdefghijklmnop" not in scrubbed
    store = holographic_store(db)
    try:
        mirror = store.add_fact(scrubbed, category="general")  # the mirror, as Holographic writes it
    finally:
        store.close()
    result = profile_result(sync_json(capsys, synced_home, "--profile", "default"))
    assert result["mirrors"]["adopted"] == 1 and result["mirrors"]["unexplained"] == 0, result
    assert "mirrors_adopted" not in result["failing_checks"]
    assert query(db, "SELECT l.status FROM memory_pipeline_ledger l WHERE l.fact_id = ?", (mirror,)) == [("active",)]
