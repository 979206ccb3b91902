import json

from memory_pipeline.cli import main
from memory_pipeline_tests.support.syncing import sync_outcome


def test_status_before_any_sync(capsys, demo_home):
    assert main(["status", "--hermes-home", str(demo_home), "--profile", "work"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "work: entries memory 5 (24% of cap), user 3 (16% of cap); no store yet",
        "  last sync never; last write never; checks not passing: none",
    ]
    assert not (demo_home / "profiles" / "work" / "memory_store.db").exists()  # status creates nothing


def test_status_after_a_sync(capsys, synced_home):
    assert main(["status", "--hermes-home", str(synced_home), "--json"]) == 0
    profiles = {p["profile"]: p for p in json.loads(capsys.readouterr().out)["profiles"]}
    default = profiles["default"]
    assert default["entries"] == {"memory": 18, "user": 5} and default["cap_usage_pct"]["memory"] == 94.5
    assert (default["facts"], default["pipeline_facts"], default["quarantined"]) == (23, 23, 0)
    assert default["last_sync"] and default["last_write"] and default["failing_checks"] == ["cap_usage (WARN)"]
    assert profiles["work"]["failing_checks"] == [] and profiles["work"]["store_error"] is None


def test_status_counts_current_retired_and_compacted_facts_apart(capsys, synced_home):
    from memory_pipeline_tests.support.store_helpers import read_entries, write_entries

    memory = synced_home / "memories" / "MEMORY.md"
    entries = read_entries(memory)
    write_entries(memory, entries[1:-1] + ["**Summary**: details in fact_store#1"])
    sync_outcome(synced_home, "default")
    assert main(["status", "--hermes-home", str(synced_home), "--profile", "default", "--json"]) == 0
    (status,) = json.loads(capsys.readouterr().out)["profiles"]
    # The summary takes over the first entry (its fact #1 stays, at full trust); the last entry is retired.
    assert (status["retired_facts"], status["compacted_facts"]) == (1, 1)
    from memory_pipeline_tests.support.store_helpers import query

    ((tags, trust),) = query(synced_home / "memory_store.db", "SELECT tags, trust_score FROM facts WHERE fact_id = 1")
    assert trust == 0.5 and "retired" not in tags.split(",")  # the full text a pointer names stays in the agent's reach
    # The retired fact waits in the pipeline's archive, out of Hermes' tables.
    assert status["current_facts"] == status["pipeline_facts"] - status["compacted_facts"]
    assert main(["status", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    assert "1 compacted, 0 Hermes' own, 0 retired in place); 1 retired to the archive" in capsys.readouterr().out


def test_status_counts_each_fact_in_the_store_once(capsys, synced_home):
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
    assert main(["status", "--hermes-home", str(synced_home), "--profile", "default", "--json"]) == 0
    (s,) = json.loads(capsys.readouterr().out)["profiles"]
    (in_tables,) = query(synced_home / "memory_store.db", "SELECT count(*) FROM facts")[0]
    kinds = (s["current_facts"], s["compacted_facts"], s["hermes_own_facts"], s["retired_in_place"])
    assert sum(kinds) == s["facts"] == in_tables and kinds[1:] == (1, 1, 1) and s["archived_facts"] == 1


def test_status_rounds_cap_use_as_every_other_command(capsys, synced_home):
    """2078 of 2132 characters is 97.47%: 97% in status as in the audit (never 98% by rounding twice)."""
    (synced_home / "config.yaml").write_text("memory:\n  memory_char_limit: 2132\n", encoding="utf-8")
    assert main(["status", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    assert "memory 18 (97% of cap)" in capsys.readouterr().out
    main(["audit", "--hermes-home", str(synced_home), "--profile", "default", "--verbose"])
    assert "MEMORY.md 2078/2132 chars (97%)" in capsys.readouterr().out
