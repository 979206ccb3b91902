"""What writing one profile's sync did (the `fact_store` asset's metadata), and why it refused to write."""

from __future__ import annotations

from dataclasses import dataclass

from memory_pipeline.lib.store.database import StoreError


class LedgerCorrupt(StoreError):
    """The ledger breaks its invariants: nothing is written until it is repaired."""


class StaleDiff(StoreError):
    """The ledger changed between the diff and the write (another sync ran meanwhile)."""


@dataclass
class SyncReport:
    added: int = 0  # facts written for `add` decisions (new rows, or collapsed onto an identical one)
    updated: int = 0  # facts rewritten in place for `update` decisions
    unchanged: int = 0  # entries
    removed: int = 0  # entries that vanished from the files
    compacted: int = 0  # entries shortened to a pointer summary: ledger re-keyed, facts untouched
    retired_facts: int = 0
    deleted_facts: int = 0
    quarantined: int = 0  # entries left pending for the next run
    tagged_private: int = 0  # written facts tagged private in the same transaction
    mirrors_adopted: int = 0  # Holographic mirror rows taken into their entry's facts
    mirrors_retired: int = 0  # mirror rows of entries that left the files, under the removal policy
    facts_total: int = 0
    wrote: bool = False
