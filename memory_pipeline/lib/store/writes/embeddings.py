"""`FactStore`'s writes of recall by meaning: the facts' vectors and the model they were made by,
inside the store's write transaction. The privacy side (a vector deleted when its fact is
withheld or removed) is written where that happens: `RecordWrites.record_verdicts` and
`FactWrites.delete`, in their own transactions."""

from __future__ import annotations

from collections.abc import Iterable

from memory_pipeline.lib.in_hermes.meaning import EMBEDDER_TABLE, VECTORS_TABLE
from memory_pipeline.lib.store.writes.part import StorePart


class EmbeddingWrites(StorePart):
    """Part of a transaction (`StoreWrites`): the vectors of recall by meaning; it calls no other part."""

    def save(self, model: str, rows: Iterable[tuple[int, str, bytes]]) -> int:
        """These facts' vectors (fact id, the SHA-256 of the text embedded, int8 bytes), replacing
        what they had; how many."""
        return self.conn.executemany(
            f"INSERT OR REPLACE INTO {VECTORS_TABLE} (fact_id, model, content_sha256, vector) VALUES (?, ?, ?, ?)",
            [(fact_id, model, sha, blob) for fact_id, sha, blob in rows],
        ).rowcount

    def drop(self, fact_ids: Iterable[int]) -> int:
        """These facts' vectors deleted; how many."""
        return self.conn.executemany(f"DELETE FROM {VECTORS_TABLE} WHERE fact_id = ?", [(int(i),) for i in fact_ids]).rowcount

    def set_model(self, model: str) -> None:
        """The model the vectors in force are made by (a change of model takes effect here)."""
        self.conn.execute(
            f"INSERT INTO {EMBEDDER_TABLE} (id, model) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET model = excluded.model", (model,)
        )
