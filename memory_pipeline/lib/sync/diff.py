"""The diff of a profile's current entries against its active ledger: which entries are new,
unchanged, changed (edited, moved to the other file), compacted into a summary, or removed.
Run as named passes over one `_Diff`, each taking what the ones before left unclaimed."""

from __future__ import annotations

from typing import Any

import pandas as pd

from memory_pipeline.lib.hermes.memory_files import fact_pointers, title_entity
from memory_pipeline.lib.hermes.similarity import bigrams, dice
from memory_pipeline.lib.store.reads.ledger import LedgerEntry

DEFAULT_SIMILARITY_THRESHOLD = 0.5
STATUSES = ("new", "changed", "compacted", "unchanged", "removed")
DIFF_COLUMNS = [
    "entry_id",
    "source",
    "position",
    "text",
    "entry_sha256",
    "short_hash",
    "status",
    "matched_entry_id",
    "existing_fact_ids",
    "similarity",
    "absorbed_entry_ids",  # a merged entry's: the other vanished entries it takes over with the first
    "restored_entry_id",  # an unchanged entry's: the removed entry a journal line arriving late names as its old version
]
# Above this many (new entry, vanished entry) pairs the similarity search is skipped: such a
# diff is a bulk rewrite, where pairing by likeness would be guesswork anyway.
_MAX_SIMILARITY_PAIRS = 1_000_000


def diff_entries(
    entries: pd.DataFrame,
    ledger: dict[str, LedgerEntry],
    *,
    unreadable_sources: frozenset[str] = frozenset(),
    threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
    edits: dict[tuple[str, str], str] | None = None,
    archived: dict[str, list[int]] | None = None,
) -> pd.DataFrame:
    """Classify every current entry and every vanished ledger entry.

    Same source and hash as an active ledger entry whose facts exist: `unchanged`, wherever the
    entry stands. The same hash in the other file: `changed` (moved). A new hash similar enough to
    a vanished entry of the same source: `changed`, so its facts are updated in place. A summary
    pointing (`fact_store#N`) at a vanished entry's facts: `compacted`, the facts untouched. Otherwise
    `new`. A vanished entry nothing took over: `removed`, unless its file could not be read.
    `edits` (the journal of the agent's own writes: (source, new hash) -> the entry id it replaced)
    makes a journaled edit `changed` however little of the text it kept. A new entry that keeps
    the label (`**Title**:` / `Title:`) of exactly one vanished entry of its file, and shares it
    with no other new entry, is that entry edited (a patch that rewrote most of the text).
    An unchanged entry the journal names as the edit of an entry a sync removed meanwhile (its
    line arrived after that sync: `archived` holds that entry's facts) gets `restored_entry_id`:
    the writer gives it its old facts' ids back.
    """
    diff = _Diff(ledger, unreadable_sources, edits or {}, archived or {})
    pending = diff.exact(entries[["entry_id", "source", "position", "text", "entry_sha256", "short_hash"]].to_dict("records"))
    pending = diff.moved(pending)
    pending = diff.compacted(pending)
    pending = diff.journaled(pending, edits or {})
    pending = diff.same_label(pending)
    diff.similar_or_new(pending, threshold)
    diff.removed()
    frame = pd.DataFrame(diff.rows, columns=DIFF_COLUMNS)
    return frame.astype({"position": "int64", "similarity": "float64"})


class _Diff:
    """The rows found so far and the ledger entries they claimed."""

    def __init__(
        self,
        ledger: dict[str, LedgerEntry],
        unreadable_sources: frozenset[str],
        edits: dict[tuple[str, str], str],
        archived: dict[str, list[int]],
    ):
        self.ledger = ledger
        self.unreadable_sources = unreadable_sources
        self.edits, self.archived = edits, archived
        self.rows: list[dict[str, Any]] = []
        self.claimed: set[str] = set()

    def vanished(self, entry_id: str) -> bool:
        """A ledger entry of this profile's that no current entry has claimed, in a file that could be read."""
        led = self.ledger[entry_id]
        return entry_id not in self.claimed and led.owned and led.source not in self.unreadable_sources

    def emit(
        self,
        entry: dict[str, Any],
        status: str,
        led: LedgerEntry | None,
        score: float,
        absorbed: tuple[str, ...] = (),
        restored: str | None = None,
    ) -> None:
        if led is not None:
            self.claimed.add(led.entry_id)
        self.claimed.update(absorbed)
        facts = [*(led.fact_ids if led is not None else []), *(i for a in absorbed for i in self.ledger[a].fact_ids)]
        self.rows.append(
            {
                **entry,
                "status": status,
                "matched_entry_id": led.entry_id if led is not None else None,
                "existing_fact_ids": list(dict.fromkeys(facts)),
                "similarity": score,
                "absorbed_entry_ids": list(absorbed),
                "restored_entry_id": restored,
            }
        )

    def exact(self, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Same source and hash: unchanged (or written again when its facts were deleted)."""
        by_key: dict[tuple[str, str], str] = {}
        for entry_id, known in self.ledger.items():
            by_key.setdefault((known.source, known.short_hash), entry_id)
        pending = []
        for entry in entries:
            led_id = by_key.get((entry["source"], entry["short_hash"]))
            led = self.ledger.get(led_id) if led_id else None
            if led is None or led_id in self.claimed:
                pending.append(entry)
            elif led.missing_fact_ids:
                # Facts deleted behind the pipeline's back: write them again.
                self.emit(entry, "changed" if led.fact_ids else "new", led, 1.0)
            else:
                self.emit(entry, "unchanged", led, 1.0, restored=self.restorable(entry, led))
        return pending

    def restorable(self, entry: dict[str, Any], led: LedgerEntry) -> str | None:
        """The removed entry the journal says this one's edit replaced, when its facts wait in the archive."""
        old = self.edits.get((entry["source"], entry["entry_sha256"]))
        if old is None or old == led.entry_id or old in self.ledger or not self.archived.get(old):
            return None
        return old

    def moved(self, pending: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The same hash, vanished from the other file: changed (moved)."""
        by_hash: dict[str, list[str]] = {}
        for entry_id, led in self.ledger.items():
            by_hash.setdefault(led.short_hash, []).append(entry_id)
        left = []
        for entry in pending:
            moved = next((i for i in by_hash.get(entry["short_hash"], []) if self.vanished(i)), None)
            if moved is not None:
                self.emit(entry, "changed", self.ledger[moved], 1.0)
            else:
                left.append(entry)
        return left

    def compacted(self, pending: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """An entry shortened to a summary with `fact_store#N` pointers (the compaction command)
        takes over the vanished entries of its file whose facts it points at (several, when it
        merges entries that said the same thing); those facts keep the full text."""
        by_fact: dict[int, str] = {}
        for entry_id, led in self.ledger.items():
            for fact_id in led.fact_ids:
                by_fact.setdefault(fact_id, entry_id)
        left = []
        for entry in pending:
            owners = dict.fromkeys(by_fact[n] for n in fact_pointers(entry["text"]) if n in by_fact)
            taken = [o for o in owners if self.vanished(o) and self.ledger[o].source == entry["source"]]
            if taken:
                self.emit(entry, "compacted", self.ledger[taken[0]], 0.0, tuple(taken[1:]))
            else:
                left.append(entry)
        return left

    def journaled(self, pending: list[dict[str, Any]], edits: dict[tuple[str, str], str]) -> list[dict[str, Any]]:
        """A new hash the journal names as the edit of a vanished entry of its file takes it over."""
        left = []
        for entry in pending:
            replaced = edits.get((entry["source"], entry["entry_sha256"]))
            led = self.ledger.get(replaced) if replaced else None
            if replaced and led is not None and led.source == entry["source"] and self.vanished(replaced):
                self.emit(entry, "changed", led, round(dice(bigrams(entry["text"]), bigrams(led.text)), 4))
            else:
                left.append(entry)
        return left

    def same_label(self, pending: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A new entry with the label of exactly one vanished entry of its file (and the only new
        entry with that label) takes it over."""
        vanished: dict[tuple[str, str], list[str]] = {}
        for led_id in (i for i in self.ledger if self.vanished(i)):
            label = title_entity(self.ledger[led_id].text)
            if label:
                vanished.setdefault((self.ledger[led_id].source, label), []).append(led_id)
        labels = [(str(entry["source"]), title_entity(entry["text"]) or "") for entry in pending]
        left = []
        for entry, key in zip(pending, labels, strict=True):
            candidates = vanished.get(key, []) if key[1] else []
            if len(candidates) == 1 and labels.count(key) == 1 and self.vanished(candidates[0]):
                led = self.ledger[candidates[0]]
                self.emit(entry, "changed", led, round(dice(bigrams(entry["text"]), bigrams(led.text)), 4))
            else:
                left.append(entry)
        return left

    def similar_or_new(self, pending: list[dict[str, Any]], threshold: float) -> None:
        """A new hash similar enough to a vanished entry of the same source takes it over
        (changed, best pairs first); the rest are new."""
        candidates = [i for i in self.ledger if self.vanished(i)]
        pairs: list[tuple[float, int, str]] = []
        if pending and candidates and len(pending) * len(candidates) <= _MAX_SIMILARITY_PAIRS:
            grams = {i: bigrams(self.ledger[i].text) for i in candidates}
            for index, entry in enumerate(pending):
                entry_grams = bigrams(entry["text"])
                for led_id in candidates:
                    if self.ledger[led_id].source == entry["source"]:
                        score = dice(entry_grams, grams[led_id])
                        if score >= threshold:
                            pairs.append((score, index, led_id))
        taken: set[int] = set()
        for score, index, led_id in sorted(pairs, key=lambda p: (-p[0], p[1], p[2])):
            if index not in taken and self.vanished(led_id):
                taken.add(index)
                self.emit(pending[index], "changed", self.ledger[led_id], round(score, 4))
        for index, entry in enumerate(pending):
            if index not in taken:
                self.emit(entry, "new", None, 0.0)

    def removed(self) -> None:
        """A vanished entry nothing took over: removed, shown by the text its facts hold."""
        for led_id in [i for i in self.ledger if self.vanished(i)]:
            led = self.ledger[led_id]
            self.rows.append(
                {
                    "entry_id": led.entry_id,
                    "source": led.source,
                    "position": 0,
                    "text": led.text or None,
                    "entry_sha256": None,
                    "short_hash": led.short_hash,
                    "status": "removed",
                    "matched_entry_id": led.entry_id,
                    "existing_fact_ids": list(led.fact_ids),
                    "similarity": 0.0,
                    "absorbed_entry_ids": [],
                }
            )
            self.claimed.add(led_id)
