"""`FactStore`: one profile's `memory_store.db`, opened once, and the one owner of every write to
it, Hermes' tables and the pipeline's own. Its writes are grouped by what they touch, one part per
module, each part an attribute of the store, given the parts it calls by name:

| part       | class               | writes                                                          | calls          |
|------------|---------------------|-----------------------------------------------------------------|----------------|
| `written`  | `WrittenWrites`     | the text each synced fact was written with                      | —              |
| `records`  | `RecordWrites`      | tags and trust, verdicts and the judge, quarantine, receipts    | —              |
| `ledger`   | `LedgerWrites`      | the ledger's rows and the run that wrote each entry version      | —              |
| `facts`    | `FactWrites`        | entity links, HRR vectors, category banks, archive and restore  | written        |
| `index`    | `SearchIndexWrites` | `facts_fts` rebuilt, the pipeline's trigram index kept in step   | —              |
| `entries`  | `EntryWrites`       | an entry's facts added, updated, adopted, released by the policy | all four above |
| `embeddings` | `EmbeddingWrites` | the facts' vectors for recall by meaning, the model in force     | —              |

Creating and upgrading the schema is the opening's (`database`). Every read other packages make
goes through `store.reads`, a `StoreReader` over the same connection (it sees the transaction's
writes)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from memory_pipeline.lib.store import database
from memory_pipeline.lib.store.embedding_writes import EmbeddingWrites
from memory_pipeline.lib.store.ledger_writes import LedgerWrites
from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
from memory_pipeline.lib.store.record_writes import RecordWrites
from memory_pipeline.lib.store.search_index import SearchIndexWrites
from memory_pipeline.lib.store.settings import HolographicSettings
from memory_pipeline.lib.store.store_part import NO_PROVENANCE, OpenStore, StorePart
from memory_pipeline.lib.store.sync_report import SyncReport
from memory_pipeline.lib.store.written_writes import WrittenWrites

if TYPE_CHECKING:
    from memory_pipeline.lib.store.entry_writes import EntryWrites
    from memory_pipeline.lib.store.fact_writes import FactWrites


class FactStore(StorePart):
    """An open store: its settings (path, dimension, trust), the connection, whose ledger rows
    are this profile's (`owner`), the transaction's report and receipts (as every part sees
    them), and its parts. Every write happens inside `transaction()`, except the index upkeep,
    which takes its own."""

    @classmethod
    def parts(cls) -> tuple[type[StorePart], ...]:
        """Every part's class (the vectors' parts imported here, as on their first use)."""
        from memory_pipeline.lib.store.entry_writes import EntryWrites
        from memory_pipeline.lib.store.fact_writes import FactWrites

        return (WrittenWrites, RecordWrites, LedgerWrites, FactWrites, SearchIndexWrites, EntryWrites, EmbeddingWrites)

    def __init__(self, conn: sqlite3.Connection, settings: HolographicSettings, owner: LedgerOwner = SOLE_OWNER):
        super().__init__(OpenStore(conn, settings, owner))
        self.written = WrittenWrites(self._store)
        self.records = RecordWrites(self._store)
        self.ledger = LedgerWrites(self._store)
        self.index = SearchIndexWrites(self._store)
        self.embeddings = EmbeddingWrites(self._store)

    # The parts that hold HRR vectors (NumPy) are made on first use: a command that only refreshes
    # the search index, as `search` does, never imports NumPy.
    @cached_property
    def facts(self) -> FactWrites:
        from memory_pipeline.lib.store.fact_writes import FactWrites

        return FactWrites(self._store, written=self.written)

    @cached_property
    def entries(self) -> EntryWrites:
        from memory_pipeline.lib.store.entry_writes import EntryWrites

        return EntryWrites(self._store, facts=self.facts, ledger=self.ledger, records=self.records, written=self.written)

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
    ) -> Iterator[FactStore]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT, rolled back on any error). A sync
        counts its writes in `report` and stamps its ledger rows with `provenance` and `run_id`."""
        self._store.report, self._store.provenance, self._store.run_id = report or SyncReport(), provenance, run_id
        self._store.receipts = []
        self.facts.begin()
        with database.write_transaction(self.conn):
            yield self
            self.facts.drop_unlinked_entities()
