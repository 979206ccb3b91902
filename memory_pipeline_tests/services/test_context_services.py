"""The services that take a profile's context, called as services on the store fixture (a store
made as a sync makes it, without a Dagster run): drift, receipts, status's store counts and a
fact's story. The command line's words for them are tested in `cli/`."""

import json

from memory_pipeline.services.drift import profile_drift
from memory_pipeline.services.receipts import profile_receipts
from memory_pipeline.services.status import profile_status
from memory_pipeline.services.why import fact_story
from memory_pipeline_tests.support.hermes_oracle import hermes_memory
from memory_pipeline_tests.support.store_fixture import synced_store
from memory_pipeline_tests.support.store_helpers import query, read_entries, write_entries

AGENTS_WORDS = "Deploys moved to Wednesdays (the agent heard it in a meeting)"


def _deploy(db) -> tuple[int, str]:
    return query(db, "SELECT fact_id, content FROM facts WHERE content LIKE '**Deploy**%' AND tags LIKE '%synced-from-memory%'")[0]


def _agent_updates(context, fact_id: int) -> None:
    with hermes_memory(context.home.path) as hermes:
        answer = json.loads(
            hermes.provider.handle_tool_call("fact_store", {"action": "update", "fact_id": fact_id, "content": AGENTS_WORDS})
        )
    assert answer["updated"]


def test_drift_names_the_agents_update_and_restores_or_keeps_it_on_request(synced_context):
    db = synced_context.store.path
    fact_id, written = _deploy(db)
    assert profile_drift(synced_context).drifted == []
    _agent_updates(synced_context, fact_id)

    found = profile_drift(synced_context)
    assert [(d.fact_id, d.written) for d in found.drifted] == [(fact_id, written)] and found.settled == []
    assert query(db, "SELECT content FROM facts WHERE fact_id = ?", (fact_id,)) == [(AGENTS_WORDS,)]  # shown, not decided

    assert profile_drift(synced_context, apply=True, restore=True).settled == [fact_id]
    assert query(db, "SELECT content FROM facts WHERE fact_id = ?", (fact_id,)) == [(written,)]
    _agent_updates(synced_context, fact_id)
    assert profile_drift(synced_context, apply=True).settled == [fact_id]
    # Kept as the agent's own: its words untouched, no ledger row names it, nothing left drifted.
    assert query(db, "SELECT content, tags FROM facts WHERE fact_id = ?", (fact_id,)) == [(AGENTS_WORDS, "")]
    assert query(db, "SELECT count(*) FROM memory_pipeline_ledger WHERE fact_id = ?", (fact_id,)) == [(0,)]
    assert profile_drift(synced_context).drifted == []


def test_a_removal_leaves_one_content_free_receipt_and_the_counts_follow(synced_context):
    db = synced_context.store.path
    assert profile_receipts(synced_context) == []
    before = profile_status(synced_context)
    assert (before["facts"], before["current_facts"], before["retired_facts"]) == (23, 23, 0)
    fact_id, written = _deploy(db)
    memory = synced_context.profile.memory_file("memory")
    write_entries(memory, [e for e in read_entries(memory) if not e.startswith("**Deploy**")])
    synced_store(synced_context)

    (receipt,) = profile_receipts(synced_context)
    assert (receipt.action, receipt.fact_ids, receipt.source) == ("archived", (fact_id,), "memory")
    assert written not in json.dumps(receipt.as_json())  # what was removed is never in its receipt
    after = profile_status(synced_context)
    assert (after["facts"], after["current_facts"], after["archived_facts"]) == (22, 22, 1)
    story = fact_story(synced_context, fact_id, owner=True)
    assert story.found and story.state.startswith("removed") and not any(story.surfaces.values())
