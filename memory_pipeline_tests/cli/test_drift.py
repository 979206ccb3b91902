"""A synced fact the agent changes with Hermes' own `fact_store update` is seen, never decided
silently: the `facts_match_entries` check names it with its entry, `why` says it was changed
outside the files, and `memory-pipeline drift` keeps the agent's text as its own fact or writes the
entry's back. A sync never overwrites or removes the agent's words."""

import json

from memory_pipeline.cli import main
from memory_pipeline_tests.support.hermes_oracle import hermes_memory
from memory_pipeline_tests.support.store_helpers import query, read_entries, write_entries
from memory_pipeline_tests.support.syncing import synced_profile


def _fact_of(db, prefix: str) -> tuple[int, str]:
    return query(db, "SELECT fact_id, content FROM facts WHERE content LIKE ? AND tags LIKE '%synced-from-memory%'", (prefix + "%",))[0]


def _agent_updates(home, fact_id: int, content: str) -> None:
    with hermes_memory(home) as hermes:
        answer = json.loads(hermes.provider.handle_tool_call("fact_store", {"action": "update", "fact_id": fact_id, "content": content}))
    assert answer["updated"]


def _drift(capsys, home, *args) -> dict:
    assert main(["drift", "--hermes-home", str(home), "--profile", "default", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)["profiles"][0]


def test_the_agents_update_is_named_and_kept_or_restored_on_request(capsys, synced_home):
    db = synced_home / "memory_store.db"
    deploy_id, deploy = _fact_of(db, "**Deploy**")
    docs_id, docs = _fact_of(db, "**Docs site**")
    _agent_updates(synced_home, deploy_id, "Deploys moved to Wednesdays (the agent heard it in a meeting)")
    _agent_updates(synced_home, docs_id, "Docs site moved, ask Ana")

    result = synced_profile(synced_home)
    assert "facts_match_entries" in result["failing_checks"]
    main(["audit", "--hermes-home", str(synced_home), "--profile", "default"])
    out = capsys.readouterr().out
    assert f"fact {deploy_id} of MEMORY.md entry " in out and f"fact {docs_id} of MEMORY.md entry " in out and "Wednesdays" not in out
    assert "memory:" not in out.split("facts_match_entries")[1].split("\n")[0]  # an entry by its place, never its hash
    assert "memory-pipeline drift --profile default" in out
    assert main(["why", str(deploy_id), "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    assert "changed outside the memory files" in capsys.readouterr().out

    shown = _drift(capsys, synced_home, "--keep")
    assert [c["fact_id"] for c in shown["changed"]] == sorted([deploy_id, docs_id]) and shown["settled"] == []  # shown first
    main(["drift", "--hermes-home", str(synced_home), "--profile", "default", "--restore", "--apply"])
    capsys.readouterr()
    assert query(db, "SELECT content FROM facts WHERE fact_id IN (?, ?) ORDER BY fact_id", (deploy_id, docs_id)) == sorted(
        [(deploy,), (docs,)], key=lambda r: {deploy: deploy_id, docs: docs_id}[r[0]]
    )
    _agent_updates(synced_home, deploy_id, "Deploys moved to Wednesdays (the agent heard it in a meeting)")
    assert _drift(capsys, synced_home, "--keep", "--apply")["settled"] == [deploy_id]
    result = synced_profile(synced_home)
    # The agent's text stays its own fact, untouched; the entry has a fresh fact of its own.
    assert query(db, "SELECT content, tags FROM facts WHERE fact_id = ?", (deploy_id,)) == [
        ("Deploys moved to Wednesdays (the agent heard it in a meeting)", "")
    ]
    assert query(db, "SELECT count(*) FROM facts WHERE content = ? AND fact_id != ?", (deploy, deploy_id)) == [(1,)]
    assert result["added"] == 1 and "facts_match_entries" not in result["failing_checks"]
    assert "mirrors_adopted" not in result["failing_checks"]


def test_a_sync_never_overwrites_or_removes_what_the_agent_changed(capsys, synced_home):
    db = synced_home / "memory_store.db"
    deploy_id, deploy = _fact_of(db, "**Deploy**")
    docs_id, docs = _fact_of(db, "**Docs site**")
    _agent_updates(synced_home, deploy_id, "Deploys: the agent's own note, Wednesdays now")
    _agent_updates(synced_home, docs_id, "Docs site: the agent's own note")
    memory = synced_home / "memories" / "MEMORY.md"
    entries = read_entries(memory)
    edited = [e.replace("**Deploy**", "**Deploy**: (edited)", 1) if e.startswith("**Deploy**") else e for e in entries]
    write_entries(memory, [e for e in edited if not e.startswith("**Docs site**")])
    result = synced_profile(synced_home, removal_policy="delete")
    # The entry's edit and the removal both reached facts the agent had changed: its words stay, as its own.
    assert query(db, "SELECT content FROM facts WHERE fact_id = ?", (deploy_id,)) == [("Deploys: the agent's own note, Wednesdays now",)]
    assert query(db, "SELECT content FROM facts WHERE fact_id = ?", (docs_id,)) == [("Docs site: the agent's own note",)]
    assert query(db, "SELECT count(*) FROM facts WHERE content LIKE '**Deploy**: (edited)%'") == [(1,)]
    assert "facts_match_entries" not in result["failing_checks"] and "mirrors_adopted" not in result["failing_checks"]
    assert query(db, "SELECT count(*) FROM memory_pipeline_kept_facts WHERE fact_id IN (?, ?)", (deploy_id, docs_id)) == [(2,)]
