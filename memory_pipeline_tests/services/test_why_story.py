"""`why` tells a removed fact's and a compacted fact's story as it is: when the entry was removed
and which run wrote the fact, that a removed fact is out of every surface (not "waiting for a
verdict"), and that a fact a summary points at is compacted, not merely current."""

from memory_pipeline.cli import main
from memory_pipeline_tests.support.store_fixture import context_of, synced_store
from memory_pipeline_tests.support.store_helpers import query, read_entries, write_entries


def test_a_removed_and_a_compacted_fact_say_what_they_are(capsys, synced_home):
    db, memory = synced_home / "memory_store.db", synced_home / "memories" / "MEMORY.md"
    entries = read_entries(memory)
    (removed,) = query(db, "SELECT fact_id FROM facts WHERE content = ?", (entries[1],))[0]
    (pointed,) = query(db, "SELECT fact_id FROM facts WHERE content = ?", (entries[0],))[0]
    write_entries(memory, [f"**Summary**: see fact_store#{pointed}", *entries[2:]])
    synced_store(context_of(synced_home))
    capsys.readouterr()
    assert main(["why", str(removed), "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    out = capsys.readouterr().out
    ((retired_at,),) = query(db, "SELECT synced_at FROM memory_pipeline_ledger WHERE fact_id = ?", (removed,))
    assert "state: removed" in out and "no verdict recorded yet" not in out
    assert "privacy: not judged any more: removed, out of every surface the agent has" in out
    assert f"retired {retired_at}; written by" in out
    assert main(["why", str(pointed), "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    out = capsys.readouterr().out
    assert f"state: compacted: a summary in MEMORY.md points at it (fact_store#{pointed})" in out and "state: current" not in out
