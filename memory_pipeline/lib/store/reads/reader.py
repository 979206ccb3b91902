"""`StoreReader`: every read another package makes of a store, over the one connection it was
given: the writer's (`FactStore.reads`) or a read-only one (`ProfileStore.read_only`), and built
with the ledger owner whose rows it reads (a store several profiles share keeps each one's apart). Code outside
`lib/store` reads through it and never holds the connection. Each method is the function of the
same name in the module that owns those tables; the modules that bring NumPy, pandas or DuckDB
are imported by the methods that need them, so the agent's read path starts without them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_pipeline.lib.choices import VectorFormat
from memory_pipeline.lib.in_hermes import fact_search, recall
from memory_pipeline.lib.in_hermes import meaning as meaning_reads
from memory_pipeline.lib.in_hermes.recall import Meaning
from memory_pipeline.lib.in_hermes.search_gate import Gate
from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
from memory_pipeline.lib.store.reads import embeddings, mirror_rows, quarantine, receipts, story, verdicts
from memory_pipeline.lib.store.reads.drift import DriftedFact, drifted_facts
from memory_pipeline.lib.store.reads.embeddings import Coverage, ToEmbed
from memory_pipeline.lib.store.reads.ledger_tsv import export_rows
from memory_pipeline.lib.store.reads.mirror_rows import MirrorRow
from memory_pipeline.lib.store.reads.receipts import Receipt
from memory_pipeline.lib.store.reads.story import FactRecord
from memory_pipeline.lib.store.reads.verdicts import Verdict
from memory_pipeline.lib.store.reads.watermark import store_watermark
from memory_pipeline.lib.store.schema import database
from memory_pipeline.lib.store.schema.fingerprint import schema_fingerprint
from memory_pipeline.lib.store.schema.ledger_table import has_profile_column

if TYPE_CHECKING:
    import pandas as pd

    from memory_pipeline.lib.store.reads.facts import FactState, StoreCounts
    from memory_pipeline.lib.store.reads.ledger import LedgerEntry


class StoreReader:
    """Reads of one open store, of `owner`'s ledger rows. Reads inside `snapshot()` all see one state of it."""

    def __init__(self, conn: sqlite3.Connection, owner: LedgerOwner = SOLE_OWNER) -> None:
        self._conn = conn
        self._owner = owner

    @classmethod
    @contextmanager
    def read_only(cls, path: Path, owner: LedgerOwner = SOLE_OWNER) -> Iterator[StoreReader]:
        """The store at `path` opened read-only (`database.read_only`), closed when the block ends."""
        with database.read_only(path) as conn:
            yield cls(conn, owner)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        with database.read_snapshot(self._conn):
            yield

    def watermark(self) -> str:
        return store_watermark(self._conn)

    def schema_fingerprint(self) -> str:
        return schema_fingerprint(self._conn)

    # What the agent and the commands are shown (fact_search, verdicts, story, receipts)
    def search(self, query: str, *, limit: int = 10, include_private: bool = False) -> list[dict[str, Any]]:
        return fact_search.search(self._conn, query, limit=limit, include_private=include_private)

    def hybrid_search(self, query: str, meaning: Meaning | None, *, limit: int = 10, include_private: bool = False) -> list[dict[str, Any]]:
        return recall.hybrid_search(self._conn, query, meaning, limit=limit, include_private=include_private)

    def recalled_facts(self, message: str, meaning: Meaning | None, *, limit: int = 3, max_chars: int = 600) -> list[dict[str, Any]]:
        return recall.recalled_facts(self._conn, message, meaning, limit=limit, max_chars=max_chars)

    def embedding_model(self) -> str | None:
        return meaning_reads.store_model(self._conn)

    def facts_to_embed(self, model: str) -> list[ToEmbed]:
        return embeddings.facts_to_embed(self._conn, model)

    def vectors_not_allowed(self, model: str) -> list[int]:
        return embeddings.vectors_not_allowed(self._conn, model)

    def embedding_coverage(self) -> Coverage:
        return embeddings.coverage(self._conn)

    def shown_vectors(self) -> dict[int, bytes]:
        return embeddings.shown_vectors(self._conn)

    def facts_by_id(self, fact_ids: list[int], *, include_private: bool = False) -> tuple[list[dict[str, Any]], list[int]]:
        return fact_search.facts_by_id(self._conn, fact_ids, include_private=include_private)

    def fact_counts(self) -> tuple[int, int]:
        return fact_search.fact_counts(self._conn)

    def shown_count(self) -> int:
        return fact_search.shown_count(self._conn)

    def gate(self) -> Gate | None:
        return fact_search.gate(self._conn)

    def recorded_list(self, recorded: str | None) -> str | None:
        return fact_search.recorded_list(self._conn, recorded)

    def store_relative(self, path: str | None) -> str | None:
        return fact_search.store_relative(self._conn, path)

    def judge_in_force(self) -> tuple[str | None, str, str, str | None, str | None] | None:
        return verdicts.judge_in_force(self._conn)

    def verdicts(self) -> dict[int, Verdict]:
        return verdicts.verdicts(self._conn)

    def orphan_verdict_count(self) -> int:
        return verdicts.orphan_count(self._conn)

    def fact_record(self, fact_id: int) -> FactRecord | None:
        return story.fact_record(self._conn, fact_id)

    def receipts(self, *, run_id: str | None = None, limit: int = 1000) -> list[Receipt]:
        return receipts.read_receipts(self._conn, run_id=run_id, limit=limit)

    # The ledger and what it backs (ledger, ledger_tsv, mirror_rows, quarantine, retirement, written)
    def ledger_exists(self) -> bool:
        from memory_pipeline.lib.store.reads import ledger

        return ledger.ledger_exists(self._conn)

    def active_ledger(self) -> dict[str, LedgerEntry]:
        from memory_pipeline.lib.store.reads import ledger

        return ledger.active_ledger(self._conn, self._owner)

    def archived_entries(self, entry_ids: set[str]) -> dict[str, list[int]]:
        from memory_pipeline.lib.store.reads import ledger

        return ledger.archived_entries(self._conn, entry_ids, self._owner)

    def unclaimed_entries(self, entry_ids: Iterable[str] | None = None) -> list[str]:
        from memory_pipeline.lib.store.reads import ledger

        return ledger.unclaimed_entries(self._conn, self._owner, entry_ids)

    def save_ledger_rows(self, rowids: list[int], saved_to: Path) -> None:
        from memory_pipeline.lib.store.reads import ledger

        ledger.save_rows(self._conn, rowids, saved_to)

    def ledger_fingerprint(self) -> str:
        from memory_pipeline.lib.store.reads import ledger

        return ledger.ledger_fingerprint(self._conn)

    def ledger_problems(self) -> list[str]:
        from memory_pipeline.lib.store.reads import ledger

        return ledger.ledger_problems(self._conn)

    def malformed_ledger_rows(self) -> list[int]:
        from memory_pipeline.lib.store.reads import ledger

        return ledger.malformed_rows(self._conn)

    def superseded_ledger_rows(self) -> list[int]:
        from memory_pipeline.lib.store.reads import ledger

        return ledger.superseded_rows(self._conn)

    def has_profile_column(self) -> bool:
        return has_profile_column(self._conn)

    def ledger_tsv_rows(self) -> list[str]:
        return export_rows(self._conn, self._owner)

    def mirror_rows(self) -> list[MirrorRow]:
        return mirror_rows.mirror_rows(self._conn)

    def known_entry_hashes(self) -> set[str]:
        return mirror_rows.known_entry_hashes(self._conn, self._owner)

    def quarantined_entries(self) -> set[str]:
        return quarantine.quarantined_entries(self._conn)

    def releasable_entries(self, present: set[str], held: frozenset[str], written: set[str]) -> set[str]:
        return quarantine.releasable_entries(self._conn, present, held, written)

    def unbacked_facts_to_retire(self) -> list[int]:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.unbacked_facts_to_retire(self._conn)

    def drifted_facts(self) -> list[DriftedFact]:
        return drifted_facts(self._conn, self._owner)

    def frames(self, hrr_dim: int) -> tuple[dict[str, pd.DataFrame], str]:
        """Ledger, facts and banks in one snapshot, and its watermark (`store_frames`)."""
        from memory_pipeline.lib.store.reads.frames import store_frames

        return store_frames(self._conn, hrr_dim)

    # Facts, links, vectors and banks (store_reads, vector_codec)
    def fact_count(self) -> int:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.fact_count(self._conn)

    def store_counts(self) -> StoreCounts:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.store_counts(self._conn)

    def existing_fact_ids(self, fact_ids: Iterable[int]) -> set[int]:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.existing_fact_ids(self._conn, fact_ids)

    def fact_contents(self, fact_ids: Iterable[int]) -> dict[int, str]:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.fact_contents(self._conn, fact_ids)

    def fact_states(self) -> Iterator[FactState]:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.fact_states(self._conn)

    def fact_state(self, fact_id: int) -> FactState | None:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.fact_state(self._conn, fact_id)

    def entity_id_named(self, name: str) -> int | None:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.entity_id_named(self._conn, name)

    def linked_entities(self) -> dict[int, str]:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.linked_entities(self._conn)

    def linked_entity_names(self, fact_id: int) -> list[str]:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.linked_entity_names(self._conn, fact_id)

    def backed_fact_ids(self) -> set[int]:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.backed_fact_ids(self._conn)

    def unbacked_pipeline_facts(self) -> list[int]:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.unbacked_pipeline_facts(self._conn)

    def undecodable_pipeline_facts(self, dim: int) -> list[tuple[int, str]]:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.undecodable_pipeline_facts(self._conn, dim)

    def unsafe_fact_entries(self) -> list[tuple[int, str | None]]:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.unsafe_fact_entries(self._conn)

    def dangling_link_count(self) -> int:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.dangling_link_count(self._conn)

    def false_hrr1_by_category(self, dim: int) -> dict[str, int]:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.false_hrr1_by_category(self._conn, dim)

    def facts_without_vector(self) -> list[tuple[int, str | None, bytes]]:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.facts_without_vector(self._conn)

    def vector_counts(self, dim: int) -> dict[str, int]:
        from memory_pipeline.lib.store import vector_codec

        return vector_codec.vector_counts(self._conn, dim)

    def vector_format(self, dim: int) -> VectorFormat:
        from memory_pipeline.lib.store import vector_codec

        return vector_codec.store_format(self._conn, dim)

    def banks_off(self, dim: int) -> set[str]:
        from memory_pipeline.lib.store.reads import facts as store_reads

        return store_reads.banks_off(self._conn, dim)
