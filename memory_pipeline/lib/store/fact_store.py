"""`FactStore`: one profile's `memory_store.db`, opened once, and the one owner of every write to
it, Hermes' tables and the pipeline's own. Every write is a method of a part (`writes/`), and the
parts are reached only through `transaction()`, which hands out one `StoreWrites` per transaction;
the search index's upkeep (`index`) takes its own transactions. Creating and upgrading the schema
is the opening's (`schema/`). Every read other packages make goes through `reads`, a
`StoreReader` over the same connection (it sees the transaction's writes) built with the ledger
owner the store was opened for."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
from memory_pipeline.lib.store.schema import database
from memory_pipeline.lib.store.settings import HolographicSettings
from memory_pipeline.lib.store.sync_report import SyncReport
from memory_pipeline.lib.store.writes.part import NO_PROVENANCE, OpenStore, StorePart
from memory_pipeline.lib.store.writes.search_index import SearchIndexWrites
from memory_pipeline.lib.store.writes.transaction import StoreWrites


class FactStore(StorePart):
    """An open store: its settings (path, dimension, trust), the connection, whose ledger rows
    are this profile's (`owner`) and its reads. Every write happens inside `transaction()`, except
    the index upkeep, which takes its own."""

    def __init__(self, conn: sqlite3.Connection, settings: HolographicSettings, owner: LedgerOwner = SOLE_OWNER):
        super().__init__(OpenStore(conn, settings, owner))
        self.index = SearchIndexWrites(self._store)

    @property
    def path(self) -> Path:
        return self.settings.db_path

    @classmethod
    @contextmanager
    def opened(cls, settings: HolographicSettings, *, owner: LedgerOwner = SOLE_OWNER, create: bool = True) -> Iterator[FactStore]:
        """The store opened for writing (its schema made or brought up to date), closed when the
        block ends; without `create`, a store that does not exist is a `StoreError`."""
        with database.opened(settings.db_path, create=create) as conn:
            yield cls(conn, settings, owner)

    @classmethod
    @contextmanager
    def opened_if_exists(cls, settings: HolographicSettings, *, owner: LedgerOwner = SOLE_OWNER) -> Iterator[FactStore | None]:
        """`opened` without `create`, or None for a store that does not exist (reading never creates one)."""
        if not settings.db_path.exists():
            yield None
            return
        with cls.opened(settings, owner=owner, create=False) as store:
            yield store

    @contextmanager
    def transaction(
        self, report: SyncReport | None = None, provenance: tuple[str, str, str] = NO_PROVENANCE, run_id: str | None = None
    ) -> Iterator[StoreWrites]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT, rolled back on any error), its parts
        made for it. A sync counts its writes in `report` and stamps its ledger rows with
        `provenance` and `run_id`."""
        self._store.report, self._store.provenance, self._store.run_id = report or SyncReport(), provenance, run_id
        self._store.receipts = []
        writes = StoreWrites(self._store)
        with database.write_transaction(self.conn):
            yield writes
            writes.before_commit()
