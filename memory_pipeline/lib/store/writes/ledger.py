"""`FactStore`'s writes to the ledger: the rows a sync records, retires and drops, the rows an
import brings in, and the rows a repair deletes or retires. Inside the store's write transaction."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from memory_pipeline.lib.store.schema.database import ARCHIVE_TABLE, LEDGER_TABLE, PIPELINE_TAG, RUNS_TABLE, has_tag_sql
from memory_pipeline.lib.store.writes.part import StorePart

_RETIRE = f"UPDATE {LEDGER_TABLE} SET status = 'retired', synced_at = CURRENT_TIMESTAMP"


class LedgerWrites(StorePart):
    """Part of a transaction (`StoreWrites`). Every row is written as `owner`'s and only rows it may take are
    changed; `provenance` (extractor, model, prompt version) goes on every row recorded and
    `run_id` (the Dagster run writing) is kept per entry version, for `why`."""

    @property
    def _scope(self) -> str:
        return self.owner.rows_sql()[0]

    @property
    def _scope_params(self) -> tuple[str, ...]:
        return self.owner.rows_sql()[1]

    def record_entry(self, entry_id: str, source: str, sha: str, fact_ids: Iterable[int], status: str = "active") -> None:
        """The entry's rows for these facts, written or brought up to date."""
        extractor, model, prompt_version = self.provenance
        self.conn.executemany(
            f"""INSERT INTO {LEDGER_TABLE}
                    (entry_id, source, entry_sha256, fact_id, status, extractor, model, prompt_version, synced_at, profile)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?)
                ON CONFLICT(profile, entry_id, fact_id) DO UPDATE SET
                    source = excluded.source, entry_sha256 = excluded.entry_sha256, status = excluded.status,
                    extractor = excluded.extractor, model = excluded.model,
                    prompt_version = excluded.prompt_version, synced_at = excluded.synced_at""",
            [
                (entry_id, source, sha, fact_id, status, extractor, model, prompt_version, self.owner.profile)
                for fact_id in dict.fromkeys(fact_ids)
            ],
        )
        if self.run_id and status == "active":
            self.conn.execute(
                f"INSERT OR REPLACE INTO {RUNS_TABLE} (entry_id, entry_sha256, run_id) VALUES (?, ?, ?)", (entry_id, sha, self.run_id)
            )

    def import_rows(
        self,
        entry_id: str,
        source: str,
        sha: str,
        fact_ids: list[int],
        synced_at: str | None,
        provenance: tuple[str, str, str] = ("", "", ""),
    ) -> None:
        """An entry's rows from an imported ledger, replacing what the entry had; its extractor,
        model and prompt version as the file gave them (`import` when it gave none)."""
        extractor, model, prompt_version = provenance
        self.drop_entry(entry_id)
        self.conn.executemany(
            f"""INSERT INTO {LEDGER_TABLE}
                    (entry_id, source, entry_sha256, fact_id, status, extractor, model, prompt_version, synced_at, profile)
                VALUES (?, ?, ?, ?, 'active', ?, ?, ?, COALESCE(?, CURRENT_TIMESTAMP), ?)""",
            [(entry_id, source, sha, f, extractor or "import", model, prompt_version, synced_at, self.owner.profile) for f in fact_ids],
        )

    def retire_entry(self, entry_id: str) -> None:
        self.conn.execute(f"{_RETIRE} WHERE entry_id = ? AND status = 'active' AND {self._scope}", (entry_id, *self._scope_params))

    def drop_fact_rows(self, fact_id: int) -> None:
        """The owner's active rows naming a fact (the fact left the pipeline: its entries are synced afresh)."""
        self.conn.execute(
            f"DELETE FROM {LEDGER_TABLE} WHERE fact_id = ? AND status = 'active' AND {self._scope}", (fact_id, *self._scope_params)
        )

    def drop_entry(self, entry_id: str) -> None:
        self.conn.execute(f"DELETE FROM {LEDGER_TABLE} WHERE entry_id = ? AND {self._scope}", (entry_id, *self._scope_params))

    def ledger_identity(self, entry_id: str) -> tuple[str, str] | None:
        """(source, hash) the owner's ledger holds for an entry id."""
        row: tuple[str, str] | None = self.conn.execute(
            f"SELECT source, entry_sha256 FROM {LEDGER_TABLE} WHERE entry_id = ? AND {self._scope} LIMIT 1", (entry_id, *self._scope_params)
        ).fetchone()
        return row

    def claim_entries(self, entry_ids: Iterable[str]) -> None:
        """Mark the entries' rows as the owner's (a row it already has of the same fact wins)."""
        for entry_id in entry_ids:
            params = (self.owner.profile, entry_id, self.owner.profile, *self._scope_params)
            where = f"entry_id = ? AND profile != ? AND {self._scope}"
            self.conn.execute(f"UPDATE OR IGNORE {LEDGER_TABLE} SET profile = ? WHERE {where}", params)
            self.conn.execute(f"DELETE FROM {LEDGER_TABLE} WHERE {where}", params[1:])

    def backed_by_sharer(self, fact_id: int) -> bool:
        """Another profile sharing the store has an active row naming the fact."""
        if self.owner.sole:
            return False
        return (
            self.conn.execute(
                f"SELECT 1 FROM {LEDGER_TABLE} WHERE fact_id = ? AND status = 'active' AND NOT ({self._scope}) LIMIT 1",
                (fact_id, *self._scope_params),
            ).fetchone()
            is not None
        )

    def drop_retired_rows_of(self, fact_id: int) -> None:
        """The retired rows of a fact that is deleted."""
        self.conn.execute(f"DELETE FROM {LEDGER_TABLE} WHERE fact_id = ? AND status = 'retired'", (fact_id,))

    def delete_ledger_rows(self, rowids: Iterable[int]) -> None:
        self.conn.executemany(f"DELETE FROM {LEDGER_TABLE} WHERE rowid = ?", [(r,) for r in rowids])

    def retire_ledger_rows(self, rowids: Iterable[int]) -> None:
        self.conn.executemany(f"{_RETIRE} WHERE rowid = ?", [(r,) for r in rowids])

    def delete_rows_naming_anothers_fact(self) -> int:
        """Active rows naming a fact the pipeline did not write whose text is not the entry's
        (neither its text nor its hash: a ledger carried from another store); their entries are
        synced afresh. How many."""
        rows = self.conn.execute(
            f"""SELECT l.rowid, l.entry_sha256, CAST(f.content AS BLOB) FROM {LEDGER_TABLE} l JOIN facts f ON f.fact_id = l.fact_id
                WHERE l.status = 'active' AND NOT {has_tag_sql(PIPELINE_TAG, "f.tags")}"""
        ).fetchall()
        foreign = [rowid for rowid, sha, content in rows if str(sha)[:16] != hashlib.sha256(bytes(content or b"").strip()).hexdigest()[:16]]
        self.delete_ledger_rows(foreign)
        return len(foreign)

    def delete_rows_naming_no_fact(self) -> int:
        """Rows whose fact is gone (their entries are synced afresh); how many."""
        return self.conn.execute(
            f"""DELETE FROM {LEDGER_TABLE} WHERE fact_id IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.fact_id = {LEDGER_TABLE}.fact_id)
                AND NOT EXISTS (SELECT 1 FROM {ARCHIVE_TABLE} a WHERE a.fact_id = {LEDGER_TABLE}.fact_id)"""
        ).rowcount
