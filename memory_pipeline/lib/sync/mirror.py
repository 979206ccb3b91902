"""Holographic's mirror rows: when Hermes' memory tool adds an entry, the Holographic provider
adds the same text as a fact (`add_fact(content, category="general" | "user_pref")`, no tags).
It mirrors additions only, so an entry edited or removed before the next sync leaves its mirror
behind at full trust, where `fact_store` and prefetch keep finding it.

A mirror-shaped fact (untagged, in a file's mirror category, named by no ledger row) is:
- the mirror of an entry still in the files (same text, or that text with its secrets masked as
  current Hermes scrubs what it hands a provider; same file): adopted by that entry;
- the previous version of a new entry of its file (similar by the rule that makes an entry
  `changed`): that entry's update candidate, so the edit rewrites it in place, id kept;
- the mirror of an entry that is gone, when the ledger or Hermes' drift backups show its text
  was an entry: retired by the removal policy, like any removed entry's fact;
- otherwise unexplained (the agent's own `fact_store add` looks the same): never touched by a
  sync; the `mirrors_adopted` check names it, and `memory-pipeline mirrors` retires or keeps it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from memory_pipeline.lib.hermes.hashing import entry_sha256
from memory_pipeline.lib.hermes.memory_files import SourceReading
from memory_pipeline.lib.hermes.profiles import Profile, read_profile
from memory_pipeline.lib.hermes.redaction import has_mask, is_scrubbed_copy
from memory_pipeline.lib.hermes.similarity import bigrams, dice
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.mirror_rows import MirrorRow, mirror_rows


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
    unexplained: tuple[int, ...] = ()  # fact ids

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


def plan_mirrors(
    diff: pd.DataFrame,
    rows: list[MirrorRow],
    *,
    known_hashes: set[str],
    backups: dict[str, set[str]],
    threshold: float,
    elsewhere: frozenset[tuple[str, str]] = frozenset(),
) -> tuple[pd.DataFrame, MirrorPlan]:
    """The diff with each new entry that takes a mirror row as its previous version turned
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
    diff, taken = _previous_versions(diff, rest, threshold)
    retired, unexplained = [], []
    for row in rest:
        if row.fact_id in taken:
            continue
        sha = entry_sha256(row.content.strip())
        if sha in known_hashes or sha[:16] in known_hashes or row.content.strip() in backups.get(row.source, set()):
            retired.append(GoneEntryFact(row.source, row.fact_id))
        else:
            unexplained.append(row.fact_id)
    return diff, MirrorPlan(tuple(adopted), len(taken), tuple(retired), tuple(unexplained))


def _scrubbed_of(row: MirrorRow, present: pd.DataFrame) -> str | None:
    """The entry of the row's file whose secret-scrubbed copy the row is (what current Hermes hands
    Holographic), if one is."""
    content = row.content.strip()
    if not has_mask(content):
        return None
    return next((e.entry_id for e in present.itertuples(index=False) if e.source == row.source and is_scrubbed_copy(e.text, content)), None)


def _previous_versions(diff: pd.DataFrame, rows: list[MirrorRow], threshold: float) -> tuple[pd.DataFrame, set[int]]:
    """Pair new entries with similar mirror rows of their file, most alike first, one to one."""
    new = diff.index[diff["status"] == "new"]
    if not rows or new.empty:
        return diff, set()
    grams = {row.fact_id: bigrams(row.content) for row in rows}
    pairs = []
    for index in new:
        entry_grams = bigrams(diff.at[index, "text"])
        for row in rows:
            if row.source == diff.at[index, "source"]:
                score = dice(entry_grams, grams[row.fact_id])
                if score >= threshold:
                    pairs.append((score, index, row.fact_id))
    diff = diff.copy()
    statuses, candidates, scores = list(diff["status"]), list(diff["existing_fact_ids"]), list(diff["similarity"])
    taken: set[int] = set()
    paired: set = set()
    for score, index, fact_id in sorted(pairs, key=lambda p: (-p[0], p[1], p[2])):
        if index in paired or fact_id in taken:
            continue
        paired.add(index)
        taken.add(fact_id)
        position = diff.index.get_loc(index)
        statuses[position], candidates[position], scores[position] = "changed", [fact_id], round(score, 4)
    diff["status"], diff["existing_fact_ids"], diff["similarity"] = statuses, candidates, scores
    return diff, taken


def settle_unexplained(store: FactStore, fact_ids: list[int], readings: list[SourceReading], *, keep: bool, retire_one) -> list[int]:
    """Retire (with `retire_one(store, fact_id)`) or keep as the agent's own the unexplained mirror
    rows named, in one transaction; only those still unexplained when the lock is held. Their ids."""
    with store.transaction() as writes:
        still = set(unexplained_mirrors(mirror_rows(store.conn), readings))
        chosen = [i for i in dict.fromkeys(fact_ids) if i in still]
        for fact_id in chosen:
            if keep:
                writes.keep_as_agents_own(fact_id)
            else:
                retire_one(writes, fact_id)
    return chosen
