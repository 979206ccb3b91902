"""What each part of a `FactStore` transaction is given: the open store (its connection, its reads, settings and
whose ledger rows are this profile's) and the state of the write transaction in progress (its report,
provenance, run id and receipts), one object all the parts share."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
from memory_pipeline.lib.store.reads.reader import StoreReader
from memory_pipeline.lib.store.reads.receipts import Receipt
from memory_pipeline.lib.store.schema.store_file import StoreError
from memory_pipeline.lib.store.settings import HolographicSettings
from memory_pipeline.lib.store.sync_report import SyncReport

NO_PROVENANCE = ("", "", "")


@dataclass
class OpenStore:
    """The store one `FactStore` opened, and its transaction's state (fresh per transaction)."""

    conn: sqlite3.Connection
    settings: HolographicSettings
    owner: LedgerOwner = SOLE_OWNER
    report: SyncReport = field(default_factory=SyncReport)
    provenance: tuple[str, str, str] = NO_PROVENANCE  # extractor, model, prompt version
    run_id: str | None = None
    receipts: list[Receipt] = field(default_factory=list)
    reads: StoreReader = field(init=False)  # over `conn`: it sees the transaction's writes

    def __post_init__(self) -> None:
        self.reads = StoreReader(self.conn, self.owner)


class StorePart:
    """A part of a transaction (`StoreWrites`): it writes through the open store it shares with the others; the
    parts it calls are given to its constructor by name."""

    def __init__(self, store: OpenStore) -> None:
        self._store = store

    @property
    def conn(self) -> sqlite3.Connection:
        return self._store.conn

    @property
    def reads(self) -> StoreReader:
        return self._store.reads

    @property
    def settings(self) -> HolographicSettings:
        return self._store.settings

    @property
    def owner(self) -> LedgerOwner:
        return self._store.owner

    @property
    def report(self) -> SyncReport:
        return self._store.report

    @property
    def provenance(self) -> tuple[str, str, str]:
        return self._store.provenance

    @property
    def run_id(self) -> str | None:
        return self._store.run_id

    @property
    def receipts(self) -> list[Receipt]:
        return self._store.receipts


def inserted_id(cursor: sqlite3.Cursor) -> int:
    """The rowid of the row the cursor's INSERT just wrote."""
    if cursor.lastrowid is None:  # SQLite sets it for every row an INSERT writes
        raise StoreError("an insert reported no row id")
    return cursor.lastrowid
