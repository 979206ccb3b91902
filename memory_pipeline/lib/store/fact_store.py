"""`FactStore`: one profile's `memory_store.db`, opened once, and the one owner of every write to
it, Hermes' tables and the pipeline's own. Its writes are grouped by what they touch, one part per
module, all of them methods of this one class:

| part                 | writes                                                                 |
|----------------------|------------------------------------------------------------------------|
| `FactWrites`         | facts' entity links, HRR vectors, category banks, archive and restore  |
| `EntryWrites`        | an entry's facts added, updated, adopted and released by the policy    |
| `LedgerWrites`       | the ledger's rows and the run that wrote each entry version            |
| `RecordWrites`       | tags and trust, verdicts and the judge, quarantine, receipts, kept rows |
| `SearchIndexWrites`  | `facts_fts` rebuilt, the pipeline's trigram index kept in step          |

Creating and upgrading the schema is the opening's (`database`); reads are the plain functions
of the other `lib/store` modules, each given `store.conn`."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from memory_pipeline.lib.store import database
from memory_pipeline.lib.store.entry_writes import EntryWrites
from memory_pipeline.lib.store.fact_writes import FactWrites
from memory_pipeline.lib.store.ledger_writes import LedgerWrites
from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
from memory_pipeline.lib.store.receipts import Receipt
from memory_pipeline.lib.store.record_writes import RecordWrites
from memory_pipeline.lib.store.search_index import SearchIndexWrites
from memory_pipeline.lib.store.settings import HolographicSettings
from memory_pipeline.lib.store.sync_report import SyncReport
from memory_pipeline.lib.store.written import WrittenWrites

NO_PROVENANCE = ("", "", "")


class FactStore(EntryWrites, FactWrites, LedgerWrites, RecordWrites, SearchIndexWrites, WrittenWrites):
    """An open store: its settings (path, dimension, trust), the connection, and whose ledger
    rows are this profile's (`owner`). Every write happens inside `transaction()`, except the
    index upkeep, which takes its own."""

    def __init__(self, conn: sqlite3.Connection, settings: HolographicSettings, owner: LedgerOwner = SOLE_OWNER):
        self.conn = conn
        self.settings = settings
        self.owner = owner
        self._start(SyncReport(), NO_PROVENANCE, None)

    @property
    def path(self):
        return self.settings.db_path

    @classmethod
    @contextmanager
    def opened(
        cls, settings: HolographicSettings, *, owner: LedgerOwner = SOLE_OWNER, create: bool = True, missing_ok: bool = False
    ) -> Iterator[FactStore | None]:
        """The store opened for writing (its schema made or brought up to date), closed when the
        block ends; with `missing_ok`, None for a store that does not exist and is not created."""
        with database.opened(settings.db_path, create=create, missing_ok=missing_ok) as conn:
            yield None if conn is None else cls(conn, settings, owner)

    @contextmanager
    def transaction(
        self, report: SyncReport | None = None, provenance: tuple[str, str, str] = NO_PROVENANCE, run_id: str | None = None
    ) -> Iterator[FactStore]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT, rolled back on any error). A sync
        counts its writes in `report` and stamps its ledger rows with `provenance` and `run_id`."""
        self._start(report or SyncReport(), provenance, run_id)
        with database.write_transaction(self.conn):
            yield self
            self.drop_unlinked_entities()

    def _start(self, report: SyncReport, provenance: tuple[str, str, str], run_id: str | None) -> None:
        self.report = report
        self.provenance = provenance
        self.run_id = run_id
        self.receipts: list[Receipt] = []
        self._start_fact_writes()
