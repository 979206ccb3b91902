"""`memory-pipeline mirrors` and the sync's line about Holographic's mirror rows: what a sync did
with them, said once, and the mirror-shaped facts no entry backs, named with the way to settle
them. What the sync does with each mirror row: services/test_mirror_rows.py."""

import json

from memory_pipeline.cli import main
from memory_pipeline_tests.support.hermes_oracle import hermes_memory


def test_a_first_sync_of_a_long_mirrored_store_says_what_it_did(capsys, demo_home):
    with hermes_memory(demo_home) as hermes:
        for text in ("Build server is ci-7", "Deploys freeze on Fridays", "Old VPN host is vpn-legacy"):
            assert hermes.add("memory", text)["success"]
        assert hermes.remove("memory", "vpn-legacy")["success"]
    assert main(["sync", "--hermes-home", str(demo_home), "--profile", "default"]) == 0
    out = capsys.readouterr().out
    assert "  Holographic mirror rows: 3 found; 2 adopted by their entry, 1 left as the agent's own facts" in out
    assert "memory-pipeline mirrors --profile default" in out


def test_the_agents_own_facts_are_named_once(capsys, synced_home):
    """A fact the agent added with `fact_store` (mirror-shaped) is named by the sync that first
    finds it, not by every sync after; a second one is named when it appears."""
    from memory_pipeline.cli.sync_output import mirror_line
    from memory_pipeline_tests.support.hermes_oracle import holographic_store
    from memory_pipeline_tests.support.syncing import sync_outcome

    def add_own(text: str) -> None:
        store = holographic_store(synced_home / "memory_store.db")
        try:
            store.add_fact(text, category="general")
        finally:
            store.close()

    add_own("The agent's own note: the printer on floor 3 jams on A3")
    first = sync_outcome(synced_home, "default", force=True).profiles["default"].summary
    assert "1 left as the agent's own facts" in mirror_line(first)
    again = sync_outcome(synced_home, "default", force=True).profiles["default"].summary
    assert (again.mirrors.unexplained, again.mirrors.named_before, mirror_line(again)) == (1, 1, None)
    add_own("Another note of the agent's: the VPN drops at midnight")
    third = sync_outcome(synced_home, "default", force=True).profiles["default"].summary
    assert "Holographic mirror rows: 1 found; 1 left as the agent's own facts" in mirror_line(third)
    capsys.readouterr()
    assert main(["mirrors", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    out = capsys.readouterr().out
    assert "2 facts shaped like Holographic's mirror of an entry that no entry backs, left as the agent's own" in out
    assert "if they are removed entries' leftovers" in out and "--keep` keeps them as the agent's own" in out


def test_retire_and_keep_are_shown_first_and_written_only_with_apply(capsys, synced_home):
    from memory_pipeline_tests.support.hermes_oracle import holographic_store

    store = holographic_store(synced_home / "memory_store.db")
    try:
        fact_id = store.add_fact("The agent's own note: the lab door sticks in winter", category="general")
    finally:
        store.close()
    home = ["--hermes-home", str(synced_home), "--profile", "default"]
    assert main(["mirrors", *home, "--apply"]) == 2
    assert "--apply writes what --retire or --keep shows: give one of them" in capsys.readouterr().err
    assert main(["mirrors", *home, "--retire", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["action"], shown["applied"], shown["profiles"][0]["unexplained"], shown["profiles"][0]["settled"]) == (
        "retire",
        False,
        [fact_id],
        [],
    )
    assert main(["mirrors", *home, "--retire"]) == 0
    out = capsys.readouterr().out
    assert f'#{fact_id} "' in out and "default: would be retired; add --apply to write it" in out
    assert main(["mirrors", *home, "--keep", "--apply"]) == 0
    assert "default: 1 kept as the agent's own" in capsys.readouterr().out
    assert main(["mirrors", *home]) == 0
    assert "default: no mirror-shaped fact without its entry" in capsys.readouterr().out
