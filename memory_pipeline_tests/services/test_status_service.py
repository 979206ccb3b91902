"""The status service as a service: a profile's files and store, its facts counted by kind (each
once), and which profiles share it. What `memory-pipeline status` prints: cli/test_status_command.py."""

from memory_pipeline.services.status import profile_status
from memory_pipeline_tests.support.store_fixture import context_of
from memory_pipeline_tests.support.syncing import sync_outcome


def test_status_of_a_synced_profile(synced_home):
    status = profile_status(context_of(synced_home))
    assert status["entries"] == {"memory": 18, "user": 5} and status["chars"]["memory"] == [2078, 2200]
    assert status["facts"] == 23 and status["current_facts"] == 23 and status["store_shared_with"] == []
    assert status["switched_off"] == {} and status["last_sync"] and status["failing_checks"] == ["cap_usage (WARN)"]


def test_status_counts_current_retired_and_compacted_facts_apart(synced_home):
    from memory_pipeline_tests.support.store_helpers import read_entries, write_entries

    memory = synced_home / "memories" / "MEMORY.md"
    entries = read_entries(memory)
    write_entries(memory, entries[1:-1] + ["**Summary**: details in fact_store#1"])
    sync_outcome(synced_home, "default")
    status = profile_status(context_of(synced_home))
    # The summary takes over the first entry (its fact #1 stays, at full trust); the last entry is retired.
    assert (status["retired_facts"], status["compacted_facts"]) == (1, 1)
    from memory_pipeline_tests.support.store_helpers import query

    ((tags, trust),) = query(synced_home / "memory_store.db", "SELECT tags, trust_score FROM facts WHERE fact_id = 1")
    assert trust == 0.5 and "retired" not in tags.split(",")  # the full text a pointer names stays in the agent's reach
    # The retired fact waits in the pipeline's archive, out of Hermes' tables.
    assert status["current_facts"] == status["pipeline_facts"] - status["compacted_facts"]
    assert (status["hermes_own_facts"], status["retired_in_place"], status["archived_facts"]) == (0, 0, 1)


def test_status_counts_each_fact_in_the_store_once(synced_home):
    """Hermes' own facts, a mirror row retired in place, compacted, current and archived facts:
    the kinds in Hermes' tables add up to its facts, and the archive is counted apart."""
    from memory_pipeline_tests.support.hermes_oracle import holographic_store
    from memory_pipeline_tests.support.store_helpers import query, read_entries, write_entries

    memory = synced_home / "memories" / "MEMORY.md"
    write_entries(memory, read_entries(memory)[1:-1] + ["**Summary**: details in fact_store#1"])
    store = holographic_store(synced_home / "memory_store.db")
    try:
        store.add_fact("The agent's own note: the staging VM reboots on Sundays", category="general")
        store.add_fact("Another note of the agent's, retired by hand", category="general", tags="retired")
    finally:
        store.close()
    sync_outcome(synced_home, "default")
    s = profile_status(context_of(synced_home))
    (in_tables,) = query(synced_home / "memory_store.db", "SELECT count(*) FROM facts")[0]
    kinds = (s["current_facts"], s["compacted_facts"], s["hermes_own_facts"], s["retired_in_place"])
    assert sum(kinds) == s["facts"] == in_tables and kinds[1:] == (1, 1, 1) and s["archived_facts"] == 1
