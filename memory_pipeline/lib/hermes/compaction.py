"""Summary-plus-pointer compaction of a memory file (摘要 + 指针, as `memory-sync.sh` users write them):
the proposal. Entries saying the same thing are merged first; then the longest entries whose full
text is already in the fact store become `**Title (→ fact_store#N)**: summary` until the file fits
its target share of the cap. `memory_writing` writes a proposal, when the user asks.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from memory_pipeline.lib.choices import DEFAULT_CAP_TARGET, compact_target
from memory_pipeline.lib.hermes.duplicates import DuplicateGroup
from memory_pipeline.lib.hermes.hashing import entry_sha256, short_hash
from memory_pipeline.lib.hermes.memory_files import SourceReading, canonical_chars, fact_pointers
from memory_pipeline.lib.hermes.summaries import (
    accepted,
    is_rule,
    left_out,
    lines_left_out,
    one_sentence,
    pointer_entry,
    summaries,
    title_and_body,
)
from memory_pipeline.lib.in_hermes.entry_reader import ENTRY_DELIMITER


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
    duplicates: list[DuplicateGroup] | None = None,
) -> Proposal:
    """Shorten entries whose facts exist until the file fits `target` × its cap. First entries
    saying the same thing (`duplicates`) are merged, which loses nothing; then each entry gets its
    one-sentence summary, the entries that free most for the fewest values left out first; then,
    while still over, summaries are cut back clause by clause, down to each entry's first clause
    (a rule last, kept to its first sentence); last, room left under the target goes back to the
    entries cut furthest, rules first, so the file lands near its target rather than far below.
    `synced` maps an entry's (source, short hash) to its facts, for entries whose facts all exist
    (`sync.ledger.synced_facts`). Entries that already point into the store, or whose facts are
    not all synced, are left as they are. `model`, given (entry, rules' summary), may offer a
    shorter summary; it is taken only when `accepted`."""
    if not reading.readable:
        raise CompactionError(reading.error or f"{reading.path}: unreadable")
    proposal = Proposal(reading.path, reading.limit, target, hashlib.sha256(raw).hexdigest(), list(reading.entries), [])
    work = _Work(dict(enumerate(reading.entries)), proposal.budget)
    for rewrite in _merges(reading, duplicates or []):
        if work.over:
            work.take(rewrite)
    # Rules, prohibitions and workflows last: the agent acts on them.
    for rewrite in sorted(_first_choices(reading, synced, model, work.merged), key=lambda r: (is_rule(r.before), -_worth(r))):
        if not work.over:
            break
        work.take(rewrite)
    options: dict[int, list[str]] = {}  # each rewritten entry's summaries, longest first, found once
    while work.over and (step := _next_cut(work, options)) is not None:
        work.take(step)
    _give_back(work, options)
    proposal.after = [work.current[p] for p in sorted(work.current)]
    proposal.rewrites = [work.chosen[p] for p in sorted(work.chosen)]
    return proposal


@dataclass
class _Work:
    """A proposal being made: each entry's text now (a merged copy gone), the rewrites chosen, and
    the file's length kept as entries change rather than recounted, so a long file stays linear."""

    current: dict[int, str]
    budget: int
    chosen: dict[int, Rewrite] = field(default_factory=dict)
    chars: int = 0

    def __post_init__(self) -> None:
        self.chars = canonical_chars([self.current[p] for p in sorted(self.current)])

    @property
    def over(self) -> bool:
        return self.chars > self.budget

    @property
    def merged(self) -> set[int]:
        return {p for r in self.chosen.values() for p in (r.position, *r.merged) if r.merged}

    def fits(self, rewrite: Rewrite) -> bool:
        """Whether the rewrite leaves the file within its budget and no two entries alike."""
        grown = len(rewrite.after) - len(self.current[rewrite.position])
        return self.chars + grown <= self.budget and rewrite.after not in self.current.values()

    def take(self, rewrite: Rewrite) -> None:
        if rewrite.after in self.current.values():
            return  # Hermes keeps one of two identical entries: never make one
        self.chars += len(rewrite.after) - len(self.current[rewrite.position])
        for position in rewrite.merged:
            self.chars -= len(self.current.pop(position)) + len(ENTRY_DELIMITER)
        self.current[rewrite.position] = rewrite.after
        self.chosen[rewrite.position] = rewrite

    def undo(self, position: int, text: str) -> None:
        self.chars += len(text) - len(self.current[position])
        self.current[position] = text
        del self.chosen[position]


def _first_choices(
    reading: SourceReading,
    synced: dict[tuple[str, str], list[int]],
    model: Callable[[str, str], str | None] | None,
    merged: set[int],
) -> list[Rewrite]:
    """Each shortenable entry with its one-sentence summary (the model's, when accepted)."""
    found = []
    for position, text in enumerate(reading.entries):
        fact_ids = tuple(sorted(synced.get((reading.source, short_hash(entry_sha256(text))), ())))
        if not fact_ids or fact_pointers(text) or position in merged:
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
    """Each group of entries saying the same thing made one (`_merges`), whatever the cap."""
    if not reading.readable:
        raise CompactionError(reading.error or f"{reading.path}: unreadable")
    work = _Work(dict(enumerate(reading.entries)), 0)
    for rewrite in _merges(reading, groups):
        work.take(rewrite)
    proposal = Proposal(reading.path, reading.limit, 1.0, hashlib.sha256(raw).hexdigest(), list(reading.entries), [])
    proposal.after = [work.current[p] for p in sorted(work.current)]
    proposal.rewrites = [work.chosen[p] for p in sorted(work.chosen)]
    return proposal


def _merges(reading: SourceReading, groups: list[DuplicateGroup]) -> list[Rewrite]:
    """Per group, the longest entry keeps its place and its whole text, followed by a pointer at
    every copy's facts (`(→ fact_store#1/7/9)`, its own first); the other copies leave the file,
    their full text kept by the facts the pointer names. The groups freeing most come first."""
    found = []
    for group in groups:
        order = sorted(range(len(group.positions)), key=lambda i: (-len(reading.entries[group.positions[i]]), group.positions[i]))
        keep = group.positions[order[0]]
        fact_ids = tuple(dict.fromkeys(i for k in order for i in group.fact_ids[k]))
        text = f"{reading.entries[keep]} (→ fact_store#{'/'.join(map(str, fact_ids))})"
        copies = tuple(p for p in group.positions if p != keep)
        found.append(Rewrite(keep, reading.entries[keep], text, fact_ids, merged=copies))
    return sorted(found, key=lambda r: -sum(len(reading.entries[p]) for p in r.merged))


def _rewrite(position: int, text: str, title: str, fact_ids: tuple[int, ...], summary: str) -> Rewrite:
    after = pointer_entry(title, fact_ids, summary)
    return Rewrite(position, text, after, fact_ids, lines_left_out(text, summary), left_out(text, title + " " + summary), summary)


def _worth(rewrite: Rewrite) -> float:
    """Characters freed per value left out (and one): the entries that free most for least loss first."""
    return (len(rewrite.before) - len(rewrite.after)) / (1 + len(rewrite.kept_in_store))


def _options(rewrite: Rewrite, options: dict[int, list[str]]) -> list[str]:
    """The entry's summaries, longest first (found once per entry)."""
    if rewrite.position not in options:
        options[rewrite.position] = summaries(title_and_body(rewrite.before)[1])
    return options[rewrite.position]


def _next_cut(work: _Work, options: dict[int, list[str]]) -> Rewrite | None:
    """Of the rewritten entries, the next shorter summary that frees the most; None when every
    entry is down to its label and pointer."""
    best, most = None, 0
    for rewrite in work.chosen.values():
        if rewrite.merged or is_rule(rewrite.before):
            continue  # a rule keeps its first sentence: its instruction
        shorter = next((s for s in _options(rewrite, options) if len(s) < len(rewrite.summary)), None)
        if shorter is None:
            continue
        step = _rewrite(rewrite.position, rewrite.before, title_and_body(rewrite.before)[0], rewrite.fact_ids, shorter)
        freed = len(rewrite.after) - len(step.after)
        if freed > most and step.after not in work.current.values():
            best, most = step, freed
    return best


def _give_back(work: _Work, options: dict[int, list[str]]) -> None:
    """Room left under the budget returned to shortened entries, rules first, then the entries in
    file order: each gets its whole text back if that fits, else its longest summary that fits."""
    for rewrite in sorted(work.chosen.values(), key=lambda r: (not is_rule(r.before), r.position)):
        if rewrite.merged:
            continue
        if work.chars + len(rewrite.before) - len(rewrite.after) <= work.budget:
            work.undo(rewrite.position, rewrite.before)
            continue
        title = title_and_body(rewrite.before)[0]
        for longer in (s for s in _options(rewrite, options) if len(s) > len(rewrite.summary)):
            step = _rewrite(rewrite.position, rewrite.before, title, rewrite.fact_ids, longer)
            if work.fits(step):
                work.take(step)
                break
