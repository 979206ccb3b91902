"""The journal of the agent's own memory writes, written by the Hermes plugin after each write of
Hermes' `memory` tool that reached the file (`<data-dir>/journal/<profile>.jsonl`, private to its
owner): when, which Hermes session and turn, which action on which file, and the SHA-256 of the
entries the write took away and put in. Never the text.

The sync reads it for one thing: a write that took exactly one entry away and put exactly one in
its file is an edit, so that entry's facts are updated in place however much the text changed.
The files stay the only truth: a line whose hashes the files and the ledger do not bear is ignored.
"""

from __future__ import annotations

import json
from pathlib import Path

from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file
from memory_pipeline.lib.hermes.hashing import entry_id

# What the sync reads of a journal: its newest lines (a journal of a long-lived profile grows).
_LINES_READ = 2_000


def journal_path(data_dir: Path, profile: str) -> Path:
    return data_dir / "journal" / f"{profile}.jsonl"


def journaled_edits(path: Path) -> dict[tuple[str, str], str]:
    """(source, SHA-256 of the entry a write put in) -> entry id of the one it took away, for the
    writes that replaced one entry by one, among the journal's newest lines; later writes win.
    Nothing when there is no journal."""
    edits: dict[tuple[str, str], str] = {}
    for write in journal_lines(path)[-_LINES_READ:]:
        before, after = write.get("before"), write.get("after")
        if write.get("target") in ("memory", "user") and isinstance(before, list) and isinstance(after, list):
            if len(before) == len(after) == 1:
                edits[(write["target"], str(after[0]))] = entry_id(write["target"], str(before[0]))
    return edits


def journal_lines(path: Path) -> list[dict]:
    """Every readable line of a journal, oldest first (a torn line is skipped)."""
    try:
        raw = read_regular_file(path)
    except UnreadableFile:
        return []
    lines = []
    for line in (raw or b"").decode("utf-8", errors="replace").splitlines():
        try:
            write = json.loads(line)
        except ValueError:
            continue
        if isinstance(write, dict):
            lines.append(write)
    return lines
