"""Holographic's mirror rows: Hermes 0.19.0's own memory tool adds entries and its Holographic
provider mirrors them as facts. A row is its entry's only when it is the entry's text (or Hermes'
scrubbed copy of it); one removed with evidence that it was an entry is retired; anything else is
the agent's own and never touched, whatever it reads like, unless the user asks (the `mirrors`
service, `memory-pipeline mirrors`) to retire it. (With the plugin's journal, an edit is paired by
its tool call: test_live_sync.py; what the command line says of them: cli/test_mirrors.py.)"""

import json

from memory_pipeline.lib.audit.checks import AuditResult
from memory_pipeline.lib.store.settings import holographic_settings
from memory_pipeline.services.audit import audit_profile
from memory_pipeline.services.mirrors import profile_mirrors
from memory_pipeline_tests.support.hermes_oracle import hermes_memory
from memory_pipeline_tests.support.store_fixture import context_of
from memory_pipeline_tests.support.store_helpers import query
from memory_pipeline_tests.support.syncing import sync_outcome, synced_profile

STANDUP, STANDUP_EDITED = "Standup moved to 9:30 in room Orion", "Standup moved to 10:00 in room Orion"
DOOR_CODE = "Temporary door code is 4711"


def _fact(db, content: str):
    rows = query(db, "SELECT fact_id, tags, trust_score FROM facts WHERE content = ?", (content,))
    return rows[0] if rows else None


def _check(home, name: str) -> AuditResult:
    """The named check of the default profile, as `memory-pipeline audit` runs it now."""
    context = context_of(home)
    (result,) = [r for r in audit_profile(context, context.judge) if r.name == name]
    return result


def test_without_the_journal_an_edited_or_removed_entrys_mirror_is_left_as_the_agents_own(synced_home):
    db = synced_home / "memory_store.db"
    with hermes_memory(synced_home) as hermes:
        assert hermes.add("memory", STANDUP)["success"] and hermes.add("memory", DOOR_CODE)["success"]
        assert hermes.replace("memory", "9:30", STANDUP_EDITED)["success"] and hermes.remove("memory", "door code")["success"]
    mirrored, door = _fact(db, STANDUP), _fact(db, DOOR_CODE)
    assert mirrored[1:] == ("", 0.5) and door[1:] == ("", 0.5)  # the mirror rows Holographic left

    payload = synced_profile(synced_home)
    # Nothing shows either text was an entry: they read like the agent's own facts and stay so, untouched.
    assert _fact(db, STANDUP) == mirrored and _fact(db, DOOR_CODE) == door
    edited = _fact(db, STANDUP_EDITED)
    assert edited[0] != mirrored[0] and "synced-from-memory" in edited[1]
    assert payload["error"] is None and payload["failing_checks"] == ["cap_usage"]
    assert payload["mirrors"] == {"found": 2, "adopted": 0, "updated": 0, "retired": 0, "unexplained": 2, "named_before": 0}

    check = _check(synced_home, "mirrors_adopted")
    assert check.passed and "2 facts the agent wrote itself, kept as they are" in check.detail and DOOR_CODE not in check.detail

    shown = profile_mirrors(context_of(synced_home))
    assert ([r.fact_id for r in shown.unexplained], shown.settled) == ([mirrored[0], door[0]], []) and _fact(db, DOOR_CODE) == door
    assert profile_mirrors(context_of(synced_home), apply=True).settled == [mirrored[0], door[0]]
    fact_id, tags, trust = _fact(db, DOOR_CODE)
    assert "retired" in tags and trust < holographic_settings(synced_home).min_trust
    assert synced_profile(synced_home)["failing_checks"] == ["cap_usage"]


def test_a_removed_entry_in_a_hermes_drift_backup_has_its_mirror_retired_by_the_sync(synced_home):
    db = synced_home / "memory_store.db"
    memory = synced_home / "memories" / "MEMORY.md"
    before = memory.read_text(encoding="utf-8")
    with hermes_memory(synced_home) as hermes:
        assert hermes.add("memory", DOOR_CODE)["success"]
        (memory.parent / "MEMORY.md.bak.20261204-0930").write_text(memory.read_text(encoding="utf-8"), encoding="utf-8")
        assert hermes.remove("memory", "door code")["success"]
    assert memory.read_text(encoding="utf-8") == before
    ghost = _fact(db, DOOR_CODE)[0]
    check = _check(synced_home, "mirrors_adopted")  # a mirror of an entry gone from the files: named until the sync retires it
    assert not check.passed and f"fact ids {ghost}" in check.detail and "the next sync retires them" in check.detail
    assert DOOR_CODE not in check.detail
    payload = synced_profile(synced_home)
    fact_id, tags, trust = _fact(db, DOOR_CODE)
    assert "retired" in tags and trust < holographic_settings(synced_home).min_trust
    assert payload["mirrors"]["retired"] == 1 and "mirrors_adopted" not in payload["failing_checks"]


def test_a_kept_fact_is_the_agents_own_and_never_named_again(synced_home):
    db = synced_home / "memory_store.db"
    with hermes_memory(synced_home) as hermes:
        hermes.provider.handle_tool_call("fact_store", {"action": "add", "content": "Prefers dark roast coffee", "category": "general"})
    fact_id = _fact(db, "Prefers dark roast coffee")[0]
    assert "mirrors_adopted" not in synced_profile(synced_home)["failing_checks"]
    assert profile_mirrors(context_of(synced_home), apply=True, keep=True).settled == [fact_id]
    assert _fact(db, "Prefers dark roast coffee") == (fact_id, "", 0.5)  # the fact itself is untouched
    assert "mirrors_adopted" not in synced_profile(synced_home)["failing_checks"]


def test_a_mirror_current_hermes_scrubbed_of_secrets_is_adopted_not_left_unexplained(synced_home):
    """Current Hermes hands Holographic the entry with its secrets masked (its own
    `redact_sensitive_text`): that mirror row is the entry's, adopted by the sync."""
    from agent.redact import redact_sensitive_text

    from memory_pipeline_tests.support.hermes_oracle import holographic_store
    from memory_pipeline_tests.support.store_helpers import read_entries, write_entries

    db = synced_home / "memory_store.db"
    entry = "CI deploys with GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 from the release job"
    memory = synced_home / "memories" / "MEMORY.md"
    write_entries(memory, [*read_entries(memory), entry])
    sync_outcome(synced_home, "default")
    scrubbed = redact_sensitive_text(entry, force=True)
    assert scrubbed != entry and "ghp_abcdefghijklmnop" not in scrubbed
    store = holographic_store(db)
    try:
        mirror = store.add_fact(scrubbed, category="general")  # the mirror, as Holographic writes it
    finally:
        store.close()
    result = synced_profile(synced_home)
    assert result["mirrors"]["adopted"] == 1 and result["mirrors"]["unexplained"] == 0, result
    assert "mirrors_adopted" not in result["failing_checks"]
    assert query(db, "SELECT l.status FROM memory_pipeline_ledger l WHERE l.fact_id = ?", (mirror,)) == [("active",)]


def test_the_agents_paraphrase_of_a_new_entry_stays_its_own_fact(synced_home):
    """The agent's `fact_store add` that restates an entry not yet synced, through Hermes' own
    provider: the sync writes the entry its own fact and leaves the agent's words as they were."""
    from memory_pipeline_tests.support.store_helpers import read_entries, write_entries

    db = synced_home / "memory_store.db"
    entry = "**Deploys**: production deploys only on Tuesday and Thursday, never after 16:00"
    paraphrase = "Production deploys only happen on Tue/Thu, never after 16:00 (user confirmed 2026-12-01)"
    memory = synced_home / "memories" / "MEMORY.md"
    write_entries(memory, [*read_entries(memory), entry])
    with hermes_memory(synced_home) as hermes:
        hermes.provider.handle_tool_call("fact_store", {"action": "add", "content": paraphrase, "category": "general"})
    own = _fact(db, paraphrase)
    summary = sync_outcome(synced_home, "default").profiles["default"].summary
    assert _fact(db, paraphrase) == own  # the agent's words, id, tags and trust as it wrote them
    written = _fact(db, entry)
    assert written is not None and written[0] != own[0] and "synced-from-memory" in written[1]
    assert (summary.added, summary.updated, summary.mirrors.unexplained) == (1, 0, 1)
    result = synced_profile(synced_home)
    assert "mirrors_adopted" not in result["failing_checks"] and result["added"] == 0 and result["updated"] == 0


def test_in_a_cron_only_setup_hermes_session_store_shows_the_mirrors_of_changed_entries(synced_home):
    """No plugin, no journal: Hermes 0.19.0's session store (`state.db`, written by its own
    `SessionDB` as the agent loop does) records the memory tool's calls. The mirror of an entry
    added and then edited, and of one added and then removed, before any sync, are retired by the
    sync; a fact the agent added with `fact_store` stays its own, untouched."""
    from hermes_state import SessionDB

    from memory_pipeline_tests.support.hermes_oracle import holographic_store

    db = synced_home / "memory_store.db"
    with hermes_memory(synced_home) as hermes:
        assert hermes.add("memory", STANDUP)["success"] and hermes.add("memory", DOOR_CODE)["success"]
        assert hermes.replace("memory", "9:30", STANDUP_EDITED)["success"] and hermes.remove("memory", "door code")["success"]
    own = "The agent's own note: the build cache lives on the NAS"
    store = holographic_store(db)
    try:
        store.add_fact(own, category="general")
    finally:
        store.close()
    sessions = SessionDB(db_path=synced_home / "state.db")
    try:
        sessions.create_session("s1", "cli")
        calls = [
            ("memory", {"action": "add", "target": "memory", "content": STANDUP}),
            ("memory", {"action": "add", "target": "memory", "content": DOOR_CODE}),
            ("memory", {"action": "replace", "target": "memory", "old_text": "9:30", "content": STANDUP_EDITED}),
            ("memory", {"action": "remove", "target": "memory", "old_text": "door code"}),
            ("fact_store", {"action": "add", "content": own}),
        ]
        for number, (name, arguments) in enumerate(calls):
            call = {"id": f"call_{number}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
            sessions.append_message("s1", "assistant", tool_calls=[call])
            sessions.append_message("s1", "tool", content='{"success": true}', tool_name=name, tool_call_id=f"call_{number}")
    finally:
        sessions.close()
    before_own = _fact(db, own)

    payload = synced_profile(synced_home)
    assert payload["mirrors"] == {"found": 3, "adopted": 0, "updated": 0, "retired": 2, "unexplained": 1, "named_before": 0}
    for gone in (STANDUP, DOOR_CODE):
        fact = _fact(db, gone)
        assert fact is None or ("retired" in fact[1] and fact[2] < holographic_settings(synced_home).min_trust)
    assert _fact(db, own) == before_own  # the agent's own fact_store add, untouched
    assert _check(synced_home, "mirrors_adopted").passed
