"""Writing a compaction's proposal into its memory file: the one place the pipeline writes
`MEMORY.md` or `USER.md`, and only when the user asks. It takes Hermes' own lock, keeps a backup,
writes Hermes' canonical form atomically and reads it back before anything else happens."""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file
from memory_pipeline.lib.files.writing import replace_file
from memory_pipeline.lib.hermes.compaction import CompactionError, Proposal
from memory_pipeline.lib.hermes.memory_files import hermes_read_entries
from memory_pipeline.lib.in_hermes.entry_reader import ENTRY_DELIMITER, parse_entries


@contextmanager
def hermes_lock(path: Path, timeout_s: float) -> Iterator[None]:
    """Hermes' own lock for a memory file (`MEMORY.md.lock`, `fcntl.flock`), waited for up to
    `timeout_s` seconds."""
    lock_path = path.with_name(path.name + ".lock")
    with open(lock_path, "a+", encoding="utf-8") as handle:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise CompactionError(
                        f"{lock_path}: still held after {timeout_s:g} s (Hermes is writing the file); nothing written, try again"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _backup_path(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    candidate, n = path.with_name(f"{path.name}.bak-{stamp}"), 1
    while candidate.exists():
        candidate, n = path.with_name(f"{path.name}.bak-{stamp}-{n}"), n + 1
    return candidate


def apply(proposal: Proposal, *, lock_timeout_s: float = 10.0) -> Path:
    """Write the proposal under Hermes' lock; returns the backup's path. Refuses when the file
    changed since the proposal was made; restores the backup if the written file does not read
    back as exactly the proposed entries."""
    path = proposal.path
    with hermes_lock(path, lock_timeout_s):
        try:
            raw = read_regular_file(path) or b""
        except UnreadableFile as exc:
            raise CompactionError(str(exc)) from None
        if hashlib.sha256(raw).hexdigest() != proposal.file_sha256:
            raise CompactionError(
                f"{path}: changed since the proposal was made (the agent wrote meanwhile); nothing written, run compact again"
            )
        backup = _backup_path(path)
        replace_file(backup, raw, durable=True, like=path)
        # Through a link to its target, as Hermes' own writes go (a MEMORY.md kept in a dotfiles
        # repository stays linked, and the repository gets the new text).
        target = Path(os.path.realpath(path)) if path.is_symlink() else path
        replace_file(target, ENTRY_DELIMITER.join(proposal.after).encode("utf-8"), durable=True)
        text = (read_regular_file(path) or b"").decode("utf-8", errors="replace")
        if parse_entries(text) != proposal.after or hermes_read_entries(text) != proposal.after:
            replace_file(target, raw, durable=True)
            raise CompactionError(f"{path}: did not read back as the proposed entries; restored from {backup.name}")
    return backup
