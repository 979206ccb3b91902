"""`StoreWrites`: one write transaction's parts, made when `FactStore.transaction()` begins and
the only way to reach them, so no write can be made outside a transaction. Each part writes one
group of tables and is given the parts it calls by name:

| part         | class              | writes                                                          | calls          |
|--------------|--------------------|-----------------------------------------------------------------|----------------|
| `written`    | `WrittenWrites`    | the text each synced fact was written with                      | —              |
| `records`    | `RecordWrites`     | tags and trust, verdicts and the judge, quarantine, receipts    | —              |
| `ledger`     | `LedgerWrites`     | the ledger's rows and the run that wrote each entry version      | —              |
| `facts`      | `FactWrites`       | entity links, HRR vectors, category banks, archive and restore  | written        |
| `entries`    | `EntryWrites`      | an entry's facts added, updated, adopted, released by the policy | all four above |
| `embeddings` | `EmbeddingWrites`  | the facts' vectors for recall by meaning, the model in force     | —              |"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from memory_pipeline.lib.store.writes.embeddings import EmbeddingWrites
from memory_pipeline.lib.store.writes.ledger import LedgerWrites
from memory_pipeline.lib.store.writes.part import OpenStore, StorePart
from memory_pipeline.lib.store.writes.records import RecordWrites
from memory_pipeline.lib.store.writes.written import WrittenWrites

if TYPE_CHECKING:
    from memory_pipeline.lib.store.writes.entries import EntryWrites
    from memory_pipeline.lib.store.writes.facts import FactWrites


class StoreWrites(StorePart):
    """The parts of one transaction, over the store it is open on (its reads see the transaction's writes)."""

    @classmethod
    def parts(cls) -> tuple[type[StorePart], ...]:
        """Every part's class (the vectors' parts imported here, as on their first use)."""
        from memory_pipeline.lib.store.writes.entries import EntryWrites
        from memory_pipeline.lib.store.writes.facts import FactWrites

        return (WrittenWrites, RecordWrites, LedgerWrites, FactWrites, EntryWrites, EmbeddingWrites)

    def __init__(self, store: OpenStore) -> None:
        super().__init__(store)
        self.written = WrittenWrites(store)
        self.records = RecordWrites(store)
        self.ledger = LedgerWrites(store)
        self.embeddings = EmbeddingWrites(store)

    # The parts that hold HRR vectors (NumPy) are made on first use: a transaction that only
    # records verdicts or vectors for recall never imports NumPy.
    @cached_property
    def facts(self) -> FactWrites:
        from memory_pipeline.lib.store.writes.facts import FactWrites

        return FactWrites(self._store, written=self.written)

    @cached_property
    def entries(self) -> EntryWrites:
        from memory_pipeline.lib.store.writes.entries import EntryWrites

        return EntryWrites(self._store, facts=self.facts, ledger=self.ledger, records=self.records, written=self.written)

    def before_commit(self) -> None:
        """What the transaction's writes left to tidy (entities a relink left with no fact)."""
        if "facts" in self.__dict__:
            self.facts.drop_unlinked_entities()
