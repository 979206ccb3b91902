"""The journal of the agent's own memory writes, written by the Hermes plugin after each write of
Hermes' `memory` tool that reached the file (`<data-dir>/journal/<profile>.jsonl`, private to its
owner): when, which Hermes session and turn, which operation on which file, and the SHA-256 of
the entries that operation took away and put in. Never the text. Past 1 MB the plugin moves it
aside (`<profile>.jsonl.1`, replacing the one before), so the two files stay small.

The sync reads it for two things: an operation that replaced one entry by one in a single tool
call (`replace`, or `patch` in current Hermes) is an edit, so that entry's facts are updated in
place however much the text changed; and an entry it took away was an entry, so Holographic's
mirror of it is that entry's to retire. Writes of different calls or sessions are never paired.
The files stay the only truth: a line whose hashes the files and the ledger do not bear is ignored.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file
from memory_pipeline.lib.hermes.hashing import entry_id

EDITS = ("replace", "patch")  # the operations that take one entry away and put its new text in
# What is read of each journal file: its newest bytes (the plugin keeps each near 1 MB; a larger
# one was not written by it, or by an older version: its newest part still pairs edits).
READ_BYTES = 4 * 1024 * 1024


def journal_path(data_dir: Path, profile: str) -> Path:
    return data_dir / "journal" / f"{profile}.jsonl"


@dataclass(frozen=True)
class Journal:
    lines: list[dict[str, Any]] = field(default_factory=list)  # every readable line, oldest first
    problems: list[str] = field(default_factory=list)  # one line per file not read whole: the file, why, what was read

    @functools.cached_property
    def edits(self) -> dict[tuple[str, str], str]:
        """(source, SHA-256 of the entry an edit put in) -> entry id of the one it took away; later edits win."""
        edits: dict[tuple[str, str], str] = {}
        for write in self.lines:
            before, after, target = write.get("before"), write.get("after"), write.get("target")
            if write.get("action") in EDITS and target in ("memory", "user") and isinstance(before, list) and isinstance(after, list):
                if len(before) == len(after) == 1:
                    edits[(target, str(after[0]))] = entry_id(target, str(before[0]))
        return edits

    @functools.cached_property
    def taken_away(self) -> set[tuple[str, str]]:
        """(source, SHA-256) of every entry a journaled write took away."""
        found: set[tuple[str, str]] = set()
        for write in self.lines:
            before = write.get("before")
            found.update((str(write.get("target")), h) for h in (before if isinstance(before, list) else []) if isinstance(h, str))
        return found


def read_journal(path: Path, *, edits_only: bool = False) -> Journal:
    """The journal moved aside and the current one, oldest first; nothing when there is none.
    `edits_only`: only the lines of edits are parsed (what a skip check asks, on every sync: the
    hook's lines of every turn are most of a journal)."""
    lines: list[dict[str, Any]] = []
    problems: list[str] = []
    for part in (path.with_name(path.name + ".1"), path):
        raw, problem = _newest_bytes(part)
        if problem:
            problems.append(problem)
        lines += _parsed(raw, whole=problem is None, keep=_EDIT_MARKS if edits_only else ())
    return Journal(lines, problems)


_EDIT_MARKS = tuple(f'"{action}"'.encode() for action in EDITS)  # a line that may be an edit holds one


def _newest_bytes(path: Path) -> tuple[bytes, str | None]:
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    if size <= READ_BYTES:
        try:
            return read_regular_file(path) or b"", None
        except UnreadableFile as exc:
            return b"", f"agent journal {exc}; its writes are synced as additions and removals (remove the file to start afresh)"
    try:
        with open(path, "rb") as handle:
            handle.seek(size - READ_BYTES)
            raw = handle.read(READ_BYTES)
    except OSError as exc:
        return b"", f"agent journal {path}: cannot be read ({exc.strerror}); its writes are synced as additions and removals"
    mb, read = size / (1024 * 1024), READ_BYTES // (1024 * 1024)
    return raw, f"agent journal {path}: {mb:.0f} MB, only its newest {read} MB read (remove the file to start afresh)"


def _parsed(raw: bytes, *, whole: bool, keep: tuple[bytes, ...] = ()) -> list[dict[str, Any]]:
    split = raw.splitlines()
    if not whole and split:
        split = split[1:]  # the first line of a tail is cut
    text = [line.decode("utf-8", errors="replace") for line in split if not keep or any(mark in line for mark in keep)]
    lines = []
    for line in text:
        try:
            write = json.loads(line)
        except ValueError:
            continue  # a torn line
        if isinstance(write, dict):
            lines.append(write)
    return lines
