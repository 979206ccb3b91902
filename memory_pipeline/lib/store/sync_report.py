"""What writing one profile's sync did (the `fact_store` asset's metadata), and why it refused to write
(a diff made on another ledger)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from memory_pipeline.lib.store.schema.database import StoreError


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
    handed_to_agent: int = 0  # synced facts the agent had changed, left as its own instead of rewritten or removed
    vectors_added: int = 0  # HRR vectors given to facts Hermes stored without one (no NumPy in its environment)
    receipts: int = 0  # what removals took away, one receipt per entry and action (`memory-pipeline receipts`)
    facts_total: int = 0
    wrote: bool = False

    def metrics(self) -> dict[str, float | bool]:
        """The report as the `fact_store` asset's metadata: counts as floats (the UI plots them)."""
        return {f.name: getattr(self, f.name) if f.type == "bool" else float(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_metrics(cls, metadata: dict[str, Any]) -> SyncReport:
        """The report back from that metadata (a run that did not write the store: all zero).
        The keys are the fields, so a renamed field is renamed on both sides."""
        values: dict[str, Any] = {f.name: (bool if f.type == "bool" else int)(metadata[f.name]) for f in fields(cls) if f.name in metadata}
        return cls(**values)
