"""`FactStore`'s writes of the text each synced fact was written with (`memory_pipeline_written`), inside
its transaction: what tells a fact the agent changed from the one its entry made."""

from __future__ import annotations

from memory_pipeline.lib.store.reads.drift import written_if_changed
from memory_pipeline.lib.store.schema.pipeline_tables import WRITTEN_TABLE
from memory_pipeline.lib.store.writes.part import StorePart


class WrittenWrites(StorePart):
    """Part of a transaction (`StoreWrites`): the text each of its facts was written with, inside its transaction."""

    def written_if_changed(self, fact_id: int) -> str | None:
        return written_if_changed(self.conn, fact_id)

    def changed_by_agent(self, fact_id: int) -> bool:
        """Whether the fact's text is no longer the one the pipeline wrote (the agent's `fact_store update`)."""
        return self.written_if_changed(fact_id) is not None

    def note_written(self, fact_id: int, content: str) -> None:
        self.conn.execute(f"INSERT OR REPLACE INTO {WRITTEN_TABLE} (fact_id, content) VALUES (?, ?)", (fact_id, content))

    def forget_written(self, fact_id: int) -> None:
        self.conn.execute(f"DELETE FROM {WRITTEN_TABLE} WHERE fact_id = ?", (fact_id,))
