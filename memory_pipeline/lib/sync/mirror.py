"""Holographic's mirror rows: when Hermes' memory tool adds an entry, the Holographic provider
adds the same text as a fact (`add_fact(content, category="general" | "user_pref")`, no tags).
It mirrors additions only, so an entry edited or removed before the next sync leaves its mirror
behind at full trust, where `fact_store` and prefetch keep finding it.

A mirror-shaped fact (untagged, in a file's mirror category, named by no ledger row) is:
- the mirror of an entry still in the files (its exact text, or that text with its secrets
  masked as current Hermes scrubs what it hands a provider; same file): adopted by that entry;
- the previous version of a new entry of its file, when the agent's journal shows one tool call
  (`replace`, `patch`) replaced that text by the entry's: the entry's update candidate, so the
  edit rewrites it in place, id kept;
- the mirror of an entry that is gone, when the ledger, the journal, Hermes' drift backups or its
  session store (the memory tool's `add` calls) show its text was an entry: retired by the
  removal policy, like any removed entry's fact;
- otherwise the agent's own (`fact_store add` looks the same, a paraphrase of an entry
  included): never touched by a sync, and no finding of the `mirrors_adopted` check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from memory_pipeline.lib.hermes.hashing import entry_id, entry_sha256, short_hash
from memory_pipeline.lib.hermes.memory_files import SourceReading, backup_entries
from memory_pipeline.lib.hermes.profiles import Profile, read_profile
from memory_pipeline.lib.hermes.redaction import has_mask, is_scrubbed_copy
from memory_pipeline.lib.hermes.sessions import memory_additions
from memory_pipeline.lib.hermes.similarity import bigrams, dice
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.reads.mirror_rows import MirrorRow
from memory_pipeline.lib.store.writes.transaction import StoreWrites
from memory_pipeline.lib.sync.journal import Journal


@dataclass(frozen=True)
class GoneEntryFact:
    """A mirror row of an entry that left the files (retired under that entry's ledger identity)."""

    source: str
    fact_id: int


@dataclass(frozen=True)
class MirrorPlan:
    adopted: tuple[tuple[str, int], ...] = ()  # (entry_id, fact_id): the mirror of an entry in the files
    updated: int = 0  # taken as the previous version of a new entry (folded into the diff)
    retired: tuple[GoneEntryFact, ...] = ()
    unexplained: tuple[int, ...] = ()  # fact ids: the agent's own, left as they are

    @property
    def found(self) -> int:
        return len(self.adopted) + self.updated + len(self.retired) + len(self.unexplained)


def sharers_entries(sharers: list[Profile]) -> frozenset[tuple[str, str]]:
    """(source, text) of every entry of the profiles sharing a store, read now."""
    return frozenset((r.source, text) for profile in sharers for r in read_profile(profile) for text in r.entries)


def unexplained_mirrors(rows: list[MirrorRow], readings: list[SourceReading]) -> list[int]:
    """The mirror rows no entry of the files has the text of, scrubbed or not (what a sync leaves
    for a person)."""
    current = {r.source: set(r.entries) for r in readings}

    def explained(row: MirrorRow) -> bool:
        entries, content = current.get(row.source, set()), row.content.strip()
        return content in entries or (has_mask(content) and any(is_scrubbed_copy(e, content) for e in entries))

    return [row.fact_id for row in rows if not explained(row)]


@dataclass(frozen=True)
class EntryEvidence:
    """What shows a text was an entry once, and which edits the agent made."""

    known_hashes: frozenset[str] = frozenset()  # every entry hash the ledger recorded (full or short)
    backups: dict[str, set[str]] = field(default_factory=dict)  # source -> texts of Hermes' drift backups
    taken_away: frozenset[tuple[str, str]] = frozenset()  # (source, SHA-256) the journal saw taken away
    edits: dict[tuple[str, str], str] = field(default_factory=dict)  # the journal's edits (`Journal.edits`)
    added: frozenset[tuple[str, str]] = frozenset()  # (source, SHA-256) Hermes' session store shows the agent added

    @classmethod
    def gathered(cls, known_hashes: set[str], memory_files: dict[str, Path], journal: Journal, profile_home: Path | None) -> EntryEvidence:
        """The evidence at hand: the ledger's hashes, the drift backups beside each memory file, the
        journal, and the additions Hermes' session store records in the profile's home."""
        backups = {source: backup_entries(path) for source, path in memory_files.items()}
        added = memory_additions(profile_home) if profile_home is not None else frozenset()
        return cls(frozenset(known_hashes), backups, frozenset(journal.taken_away), journal.edits, added)

    def was_an_entry(self, row: MirrorRow) -> bool:
        sha = entry_sha256(row.content.strip())
        return (
            sha in self.known_hashes
            or short_hash(sha) in self.known_hashes
            or (row.source, sha) in self.taken_away
            or (row.source, sha) in self.added
            or row.content.strip() in self.backups.get(row.source, set())
        )


def vanished_mirrors(rows: list[MirrorRow], readings: list[SourceReading], evidence: EntryEvidence) -> list[int]:
    """The unexplained mirror rows that are mirrors of entries gone from the files (the next sync
    retires them); the rest are the agent's own."""
    by_id = {row.fact_id: row for row in rows}
    return [i for i in unexplained_mirrors(rows, readings) if evidence.was_an_entry(by_id[i])]


def plan_mirrors(
    diff: pd.DataFrame, rows: list[MirrorRow], evidence: EntryEvidence, *, elsewhere: frozenset[tuple[str, str]] = frozenset()
) -> tuple[pd.DataFrame, MirrorPlan]:
    """The diff with each new entry that a journaled edit made of a mirror row's text turned
    `changed` (that row its update candidate), and what happens to every other mirror row.
    `elsewhere`: the (source, text) of the entries of the profiles sharing the store, whose
    mirror rows are theirs to adopt, never this profile's to take or retire."""
    rows = [row for row in rows if (row.source, row.content.strip()) not in elsewhere]
    present = diff[diff["status"] != "removed"]
    by_text = {(row.source, row.text): row.entry_id for row in present.itertuples(index=False)}
    adopted, rest = [], []
    for row in rows:
        owner = by_text.get((row.source, row.content.strip())) or _scrubbed_of(row, present)
        if owner is not None:
            adopted.append((owner, row.fact_id))
        else:
            rest.append(row)
    diff, taken = _previous_versions(diff, rest, evidence.edits)
    retired = [GoneEntryFact(row.source, row.fact_id) for row in rest if row.fact_id not in taken and evidence.was_an_entry(row)]
    gone = {fact.fact_id for fact in retired}
    unexplained = [row.fact_id for row in rest if row.fact_id not in taken and row.fact_id not in gone]
    return diff, MirrorPlan(tuple(adopted), len(taken), tuple(retired), tuple(unexplained))


def _scrubbed_of(row: MirrorRow, present: pd.DataFrame) -> str | None:
    """The entry of the row's file whose secret-scrubbed copy the row is (what current Hermes hands
    Holographic), if one is."""
    content = row.content.strip()
    if not has_mask(content):
        return None
    return next((e.entry_id for e in present.itertuples(index=False) if e.source == row.source and is_scrubbed_copy(e.text, content)), None)


def _previous_versions(diff: pd.DataFrame, rows: list[MirrorRow], edits: dict[tuple[str, str], str]) -> tuple[pd.DataFrame, set[int]]:
    """New entries the journal names as one tool call's edit of a mirror row's text: that row is
    their update candidate (one row per entry; never a row that merely reads alike)."""
    by_entry_id = {entry_id(row.source, entry_sha256(row.content.strip())): row for row in rows}
    diff = diff.copy()
    statuses, candidates, scores = list(diff["status"]), list(diff["existing_fact_ids"]), list(diff["similarity"])
    taken: set[int] = set()
    for position, (status, source, sha) in enumerate(zip(statuses, diff["source"], diff["entry_sha256"], strict=True)):
        row = by_entry_id.get(edits.get((source, sha), ""))
        if status == "new" and row is not None and row.source == source and row.fact_id not in taken:
            taken.add(row.fact_id)
            score = round(dice(bigrams(diff["text"].iat[position]), bigrams(row.content)), 4)
            statuses[position], candidates[position], scores[position] = "changed", [row.fact_id], score
    diff["status"], diff["existing_fact_ids"], diff["similarity"] = statuses, candidates, scores
    return diff, taken


def settle_unexplained(
    store: FactStore, fact_ids: list[int], readings: list[SourceReading], *, keep: bool, retire_one: Callable[[StoreWrites, int], object]
) -> list[int]:
    """Retire (with `retire_one(store, fact_id)`) or keep as the agent's own the unexplained mirror
    rows named, in one transaction; only those still unexplained when the lock is held. Their ids."""
    with store.transaction() as writes:
        still = set(unexplained_mirrors(store.reads.mirror_rows(), readings))
        chosen = [i for i in dict.fromkeys(fact_ids) if i in still]
        for fact_id in chosen:
            if keep:
                writes.records.keep_as_agents_own(fact_id)
            else:
                retire_one(writes, fact_id)
    return chosen
