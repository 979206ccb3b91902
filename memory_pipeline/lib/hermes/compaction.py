"""Summary-plus-pointer compaction of a memory file (摘要 + 指针, as `memory-sync.sh` users write them).

The one place the pipeline writes a memory file, and only when the user asks: the longest
entries whose full text is already in the fact store become `**Title (→ fact_store#N)**: summary`
until the file fits its target share of the cap. Applying takes Hermes' own lock, keeps a backup,
writes Hermes' canonical form atomically and reads it back before anything else happens.
"""

from __future__ import annotations

import difflib
import fcntl
import hashlib
import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from memory_pipeline.lib.choices import DEFAULT_CAP_TARGET, compact_target
from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file
from memory_pipeline.lib.files.writing import replace_file
from memory_pipeline.lib.hermes.duplicates import DuplicateGroup
from memory_pipeline.lib.hermes.entry_reader import ENTRY_DELIMITER, parse_entries
from memory_pipeline.lib.hermes.hashing import entry_sha256, short_hash
from memory_pipeline.lib.hermes.memory_files import (
    SourceReading,
    canonical_chars,
    fact_pointers,
    hermes_read_entries,
)
from memory_pipeline.lib.hermes.summaries import (
    is_rule,
    left_out,
    lines_left_out,
    one_sentence,
    pointer_entry,
    summaries,
    title_and_body,
    values,
)


class CompactionError(Exception):
    """Compaction cannot go on; the message names the file and why. Nothing was written."""


@dataclass(frozen=True)
class Rewrite:
    position: int  # 0-based index in the file's entries
    before: str
    after: str
    fact_ids: tuple[int, ...]
    left_out: tuple[int, ...] = ()  # lines of `before` (1-based) only the fact store keeps from now on
    kept_in_store: tuple[str, ...] = ()  # values of `before` only the facts keep from now on
    summary: str = ""  # what follows the pointer: a run of the entry's first words
    merged: tuple[int, ...] = ()  # a merge's: the positions of the copies it replaces (gone from the file)


@dataclass
class Proposal:
    path: Path
    limit: int
    target: float
    file_sha256: str  # of the bytes the proposal was made from
    before: list[str]
    after: list[str]
    rewrites: list[Rewrite] = field(default_factory=list)

    @property
    def chars_before(self) -> int:
        return canonical_chars(self.before)

    @property
    def chars_after(self) -> int:
        return canonical_chars(self.after)

    @property
    def budget(self) -> int:
        return int(self.target * self.limit)

    @property
    def fits(self) -> bool:
        return self.chars_after <= self.budget

    def diff(self) -> str:
        # Every line ends in a newline, the file's last one too: a line never runs into the next.
        old = [line + "\n" for line in ENTRY_DELIMITER.join(self.before).splitlines()]
        new = [line + "\n" for line in ENTRY_DELIMITER.join(self.after).splitlines()]
        return "".join(difflib.unified_diff(old, new, f"{self.path.name} (now)", f"{self.path.name} (compacted)"))


# The shortest entry `propose` can write: a one-character title pointing at a one-digit fact id.
_SHORTEST_POINTER = len(pointer_entry("t", (1,), ""))


def fewest_chars(entries: list[str]) -> int:
    """A floor under what any proposal leaves of these entries (each at best the shortest pointer,
    never longer than it was): when the floor is over the budget, no proposal fits, and the work
    of making one can be spared."""
    return sum(min(len(text), _SHORTEST_POINTER) for text in entries) + len(ENTRY_DELIMITER) * max(len(entries) - 1, 0)


SUMMARY_CHARS = 80  # a one-sentence summary's longest


def propose(
    reading: SourceReading,
    raw: bytes,
    synced: dict[tuple[str, str], list[int]],
    *,
    target: float = compact_target(DEFAULT_CAP_TARGET),
    model: Callable[[str, str], str | None] | None = None,
) -> Proposal:
    """Shorten entries whose facts exist until the file fits `target` × its cap: first each one's
    one-sentence summary, the entries that free most for the fewest values left out first; then,
    while still over, summaries cut back clause by clause, down to each entry's first clause (a rule last, kept to its first sentence).
    `synced` maps an entry's (source, short hash) to its facts, for entries whose facts all exist
    (`sync.ledger.synced_facts`). Entries that already point into the store, or whose facts are
    not all synced, are left as they are. `model`, given (entry, rules' summary), may offer a
    shorter summary; it is taken only when `accepted`."""
    if not reading.readable:
        raise CompactionError(reading.error or f"{reading.path}: unreadable")
    proposal = Proposal(reading.path, reading.limit, target, hashlib.sha256(raw).hexdigest(), list(reading.entries), list(reading.entries))
    chosen: dict[int, Rewrite] = {}
    chars = proposal.chars_after  # kept as entries are rewritten, not recounted: a long file stays linear
    # Rules, prohibitions and workflows last: the agent acts on them.
    for rewrite in sorted(_first_choices(reading, synced, model), key=lambda r: (is_rule(r.before), -_worth(r))):
        if chars <= proposal.budget:
            break
        if rewrite.after not in proposal.after:
            chars -= _take(proposal, chosen, rewrite)
    options: dict[int, list[str]] = {}  # each rewritten entry's summaries, longest first, found once
    while chars > proposal.budget and (step := _next_cut(proposal, chosen, options)) is not None:
        chars -= _take(proposal, chosen, step)
    proposal.rewrites = [chosen[p] for p in sorted(chosen)]
    return proposal


def _first_choices(
    reading: SourceReading, synced: dict[tuple[str, str], list[int]], model: Callable[[str, str], str | None] | None
) -> list[Rewrite]:
    """Each shortenable entry with its one-sentence summary (the model's, when accepted)."""
    found = []
    for position, text in enumerate(reading.entries):
        fact_ids = tuple(sorted(synced.get((reading.source, short_hash(entry_sha256(text))), ())))
        if not fact_ids or fact_pointers(text):
            continue
        title, body = title_and_body(text)
        summary = one_sentence(body, SUMMARY_CHARS)
        offered = model(text, summary) if model is not None else None
        if offered is not None and accepted(offered, text, summary):
            summary = offered
        # The one-sentence summary, else the longest shorter one that frees anything at all.
        for option in (summary, *(s for s in summaries(body) if len(s) < len(summary))):
            rewrite = _rewrite(position, text, title, fact_ids, option)
            if len(rewrite.after) < len(text):
                found.append(rewrite)
                break
    return found


def merge(reading: SourceReading, raw: bytes, groups: list[DuplicateGroup]) -> Proposal:
    """Each group of entries saying the same thing made one: the longest keeps its place and its
    whole text, followed by a pointer at every copy's facts (`(→ fact_store#1/7/9)`, its own
    first); the other copies leave the file, their full text kept by the facts the pointer names."""
    if not reading.readable:
        raise CompactionError(reading.error or f"{reading.path}: unreadable")
    after: dict[int, str] = dict(enumerate(reading.entries))
    rewrites = []
    for group in groups:
        order = sorted(range(len(group.positions)), key=lambda i: (-len(reading.entries[group.positions[i]]), group.positions[i]))
        keep = group.positions[order[0]]
        fact_ids = tuple(dict.fromkeys(i for k in order for i in group.fact_ids[k]))
        text = f"{reading.entries[keep]} (→ fact_store#{'/'.join(map(str, fact_ids))})"
        copies = tuple(p for p in group.positions if p != keep)
        rewrites.append(Rewrite(keep, reading.entries[keep], text, fact_ids, merged=copies))
        after[keep] = text
        for position in copies:
            del after[position]
    entries = list(reading.entries)
    proposal = Proposal(reading.path, reading.limit, 1.0, hashlib.sha256(raw).hexdigest(), entries, [after[p] for p in sorted(after)])
    proposal.rewrites = sorted(rewrites, key=lambda r: r.position)
    return proposal


def _rewrite(position: int, text: str, title: str, fact_ids: tuple[int, ...], summary: str) -> Rewrite:
    after = pointer_entry(title, fact_ids, summary)
    return Rewrite(position, text, after, fact_ids, lines_left_out(text, summary), left_out(text, title + " " + summary), summary)


def _worth(rewrite: Rewrite) -> float:
    """Characters freed per value left out (and one): the entries that free most for least loss first."""
    return (len(rewrite.before) - len(rewrite.after)) / (1 + len(rewrite.kept_in_store))


def _take(proposal: Proposal, chosen: dict[int, Rewrite], rewrite: Rewrite) -> int:
    """The rewrite in the proposal; the characters it freed."""
    freed = len(proposal.after[rewrite.position]) - len(rewrite.after)
    proposal.after[rewrite.position] = rewrite.after
    chosen[rewrite.position] = rewrite
    return freed


def _next_cut(proposal: Proposal, chosen: dict[int, Rewrite], options: dict[int, list[str]]) -> Rewrite | None:
    """Of the rewritten entries, the next shorter summary that frees the most; None when every
    entry is down to its label and pointer."""
    best, most = None, 0
    for rewrite in chosen.values():
        if is_rule(rewrite.before):
            continue  # a rule keeps its first sentence: its instruction
        title, body = title_and_body(rewrite.before)
        if rewrite.position not in options:
            options[rewrite.position] = summaries(body)
        shorter = next((s for s in options[rewrite.position] if len(s) < len(rewrite.summary)), None)
        if shorter is None:
            continue
        step = _rewrite(rewrite.position, rewrite.before, title, rewrite.fact_ids, shorter)
        freed = len(rewrite.after) - len(step.after)
        if freed > most and step.after not in proposal.after:
            best, most = step, freed
    return best


# What a model's summary may name: numbers, identifiers (a digit, a capital, `_`, `.`, `-` or `/`
# inside a word) and values. Each must stand in the entry as written.
_NAMED = re.compile(r"[A-Za-z0-9][\w.\-/:]*[A-Za-z0-9]|\d")


def accepted(offered: str, entry: str, rules: str) -> bool:
    """A model's one-line summary, taken only when it is shorter than the rules' and names
    nothing the entry does not: every number, identifier and name in it stands in the entry."""
    offered = " ".join(offered.split())
    if not offered or "\n" in offered or len(offered) >= len(rules or entry):
        return False
    words = [m.group(0) for m in _NAMED.finditer(offered)]
    exact = [w for w in words if any(c.isdigit() or c in "_.-/:" for c in w)] + values(offered)
    names = [w for w in words if any(c.isupper() for c in w)]  # a capital: a name, though maybe only a sentence's start
    return all(w in entry for w in exact) and all(w.lower() in entry.lower() for w in names)


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
