"""How each of Holographic's mirror rows is classified against a diff: adopted, the previous
version of a new entry, retired on evidence (the ledger's hashes, Hermes' drift backups), or left
unexplained."""

import pandas as pd

from memory_pipeline.lib.hermes.entries import hashed_frame, parsed_frame
from memory_pipeline.lib.hermes.hashing import entry_sha256
from memory_pipeline.lib.hermes.memory_files import read_source
from memory_pipeline.lib.store.mirror_rows import MirrorRow
from memory_pipeline.lib.sync.diff import diff_entries
from memory_pipeline.lib.sync.mirror import plan_mirrors


def _diff(tmp_path, entries: list[str]) -> pd.DataFrame:
    path = tmp_path / "MEMORY.md"
    path.write_text("\n§\n".join(entries), encoding="utf-8")
    frame = hashed_frame(parsed_frame("default", [read_source(path, "memory", 2200)]))
    return diff_entries(frame, {})


def test_each_mirror_row_is_adopted_taken_as_a_previous_version_retired_or_left(tmp_path):
    diff = _diff(tmp_path, ["Build server is ci-7", "Standup moved to 10:00 in room Orion"])
    rows = [
        MirrorRow(1, "memory", "Build server is ci-7"),
        MirrorRow(2, "memory", "Standup moved to 9:30 in room Orion"),
        MirrorRow(3, "memory", "Old VPN host is vpn-legacy"),  # the ledger knew this entry
        MirrorRow(4, "memory", "Temporary door code is 4711"),  # a drift backup held it
        MirrorRow(5, "memory", "Prefers dark roast coffee"),  # no evidence at all
        MirrorRow(6, "user", "Standup moved to 9:45 in room Orion"),  # another file's category: never paired
    ]
    known = {entry_sha256("Old VPN host is vpn-legacy")[:16]}
    planned, plan = plan_mirrors(diff, rows, known_hashes=known, backups={"memory": {"Temporary door code is 4711"}}, threshold=0.5)
    build = diff.loc[diff["text"] == "Build server is ci-7", "entry_id"].item()
    assert plan.adopted == ((build, 1),) and plan.updated == 1
    assert [(g.source, g.fact_id) for g in plan.retired] == [("memory", 3), ("memory", 4)]
    assert plan.unexplained == (5, 6) and plan.found == 6
    edited = planned[planned["text"] == "Standup moved to 10:00 in room Orion"].iloc[0]
    assert (edited["status"], edited["existing_fact_ids"], edited["matched_entry_id"]) == ("changed", [2], None)
    assert list(diff["status"]) == ["new", "new"]  # the diff handed in is left as it was
