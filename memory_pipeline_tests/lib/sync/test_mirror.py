"""How each of Holographic's mirror rows is classified against a diff: adopted, the previous
version of a new entry (on the journal's word alone), retired on evidence (the ledger's hashes,
the journal, Hermes' drift backups), or left as the agent's own."""

import pandas as pd

from memory_pipeline.lib.hermes.entries import hashed_frame, parsed_frame
from memory_pipeline.lib.hermes.hashing import entry_id, entry_sha256
from memory_pipeline.lib.hermes.memory_files import read_source
from memory_pipeline.lib.store.reads.mirror_rows import MirrorRow
from memory_pipeline.lib.sync.diff import diff_entries
from memory_pipeline.lib.sync.mirror import EntryEvidence, plan_mirrors


def _diff(tmp_path, entries: list[str]) -> pd.DataFrame:
    path = tmp_path / "MEMORY.md"
    path.write_text("\n§\n".join(entries), encoding="utf-8")
    frame = hashed_frame(parsed_frame("default", [read_source(path, "memory", 2200)]))
    return diff_entries(frame, {})


def test_each_mirror_row_is_adopted_taken_as_a_previous_version_retired_or_left(tmp_path):
    diff = _diff(tmp_path, ["Build server is ci-7", "Standup moved to 10:00 in room Orion", "Deploys on Tue/Thu only"])
    rows = [
        MirrorRow(1, "memory", "Build server is ci-7"),
        MirrorRow(2, "memory", "Standup moved to 9:30 in room Orion"),  # one `replace` call made the 10:00 entry of it
        MirrorRow(3, "memory", "Old VPN host is vpn-legacy"),  # the ledger knew this entry
        MirrorRow(4, "memory", "Temporary door code is 4711"),  # a drift backup held it
        MirrorRow(5, "memory", "Prefers dark roast coffee"),  # no evidence at all: the agent's own
        MirrorRow(6, "user", "Standup moved to 9:45 in room Orion"),  # another file's category: never paired
        MirrorRow(7, "memory", "Guest wifi password rotates monthly"),  # the journal saw it taken away
        # The agent's own paraphrase of an entry (`fact_store add`): alike, but no write made the entry of it.
        MirrorRow(8, "memory", "Production deploys only happen on Tue/Thu (user confirmed 2026-12-01)"),
    ]
    sha = entry_sha256
    evidence = EntryEvidence(
        known_hashes=frozenset({sha("Old VPN host is vpn-legacy")[:16]}),
        backups={"memory": {"Temporary door code is 4711"}},
        taken_away=frozenset({("memory", sha("Guest wifi password rotates monthly"))}),
        edits={("memory", sha("Standup moved to 10:00 in room Orion")): entry_id("memory", sha("Standup moved to 9:30 in room Orion"))},
    )
    planned, plan = plan_mirrors(diff, rows, evidence)
    build = diff.loc[diff["text"] == "Build server is ci-7", "entry_id"].item()
    assert plan.adopted == ((build, 1),) and plan.updated == 1
    assert [(g.source, g.fact_id) for g in plan.retired] == [("memory", 3), ("memory", 4), ("memory", 7)]
    assert plan.unexplained == (5, 6, 8) and plan.found == 8
    edited = planned[planned["text"] == "Standup moved to 10:00 in room Orion"].iloc[0]
    assert (edited["status"], edited["existing_fact_ids"], edited["matched_entry_id"]) == ("changed", [2], None)
    assert planned.loc[planned["text"] == "Deploys on Tue/Thu only", "status"].item() == "new"  # the paraphrase is not its old version
    assert list(diff["status"]) == ["new", "new", "new"]  # the diff handed in is left as it was


def test_without_the_journal_a_similar_row_is_the_agents_own(tmp_path):
    diff = _diff(tmp_path, ["Standup moved to 10:00 in room Orion"])
    planned, plan = plan_mirrors(diff, [MirrorRow(2, "memory", "Standup moved to 9:30 in room Orion")], EntryEvidence())
    assert plan.unexplained == (2,) and plan.updated == 0 and list(planned["status"]) == ["new"]
