"""Every write to the ledger, in one class (as Holographic's `MemoryStore` owns every write to its
facts): the rows a sync records, retires and drops, the rows an import brings in, and the rows a
repair deletes or retires. The caller holds the transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from memory_pipeline.lib.store.database import ARCHIVE_TABLE, LEDGER_TABLE, RUNS_TABLE

_RETIRE = f"UPDATE {LEDGER_TABLE} SET status = 'retired', synced_at = CURRENT_TIMESTAMP"


class LedgerWrites:
    def __init__(self, conn: sqlite3.Connection, provenance: tuple[str, str, str] = ("", "", ""), run_id: str | None = None):
        self.conn = conn
        self.provenance = provenance  # extractor, model, prompt_version: on every row recorded
        self.run_id = run_id  # the Dagster run writing: kept per entry version, for `why`

    def record(self, entry_id: str, source: str, sha: str, fact_ids: Iterable[int], status: str = "active") -> None:
        """The entry's rows for these facts, written or brought up to date."""
        extractor, model, prompt_version = self.provenance
        self.conn.executemany(
            f"""INSERT INTO {LEDGER_TABLE}
                    (entry_id, source, entry_sha256, fact_id, status, extractor, model, prompt_version, synced_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP)
                ON CONFLICT(entry_id, fact_id) DO UPDATE SET
                    source = excluded.source, entry_sha256 = excluded.entry_sha256, status = excluded.status,
                    extractor = excluded.extractor, model = excluded.model,
                    prompt_version = excluded.prompt_version, synced_at = excluded.synced_at""",
            [(entry_id, source, sha, fact_id, status, extractor, model, prompt_version) for fact_id in dict.fromkeys(fact_ids)],
        )
        if self.run_id and status == "active":
            self.conn.execute(
                f"INSERT OR REPLACE INTO {RUNS_TABLE} (entry_id, entry_sha256, run_id) VALUES (?, ?, ?)", (entry_id, sha, self.run_id)
            )

    def imported(
        self, entry_id: str, source: str, sha: str, fact_id: int, synced_at: str | None, provenance: tuple[str, str, str] = ("", "", "")
    ) -> None:
        """An entry's one row from an imported ledger, replacing what the entry had; its extractor,
        model and prompt version as the file gave them (`import` when it gave none)."""
        extractor, model, prompt_version = provenance
        self.drop_entry(entry_id)
        self.conn.execute(
            f"""INSERT INTO {LEDGER_TABLE}
                    (entry_id, source, entry_sha256, fact_id, status, extractor, model, prompt_version, synced_at)
                VALUES (?, ?, ?, ?, 'active', ?, ?, ?, COALESCE(?, CURRENT_TIMESTAMP))""",
            (entry_id, source, sha, fact_id, extractor or "import", model, prompt_version, synced_at),
        )

    def retire_entry(self, entry_id: str) -> None:
        self.conn.execute(f"{_RETIRE} WHERE entry_id = ? AND status = 'active'", (entry_id,))

    def drop_entry(self, entry_id: str) -> None:
        self.conn.execute(f"DELETE FROM {LEDGER_TABLE} WHERE entry_id = ?", (entry_id,))

    def drop_retired_of(self, fact_id: int) -> None:
        """The retired rows of a fact that is deleted."""
        self.conn.execute(f"DELETE FROM {LEDGER_TABLE} WHERE fact_id = ? AND status = 'retired'", (fact_id,))

    def delete_rows(self, rowids: Iterable[int]) -> None:
        self.conn.executemany(f"DELETE FROM {LEDGER_TABLE} WHERE rowid = ?", [(r,) for r in rowids])

    def retire_rows(self, rowids: Iterable[int]) -> None:
        self.conn.executemany(f"{_RETIRE} WHERE rowid = ?", [(r,) for r in rowids])

    def delete_naming_no_fact(self) -> int:
        """Rows whose fact is gone (their entries are synced afresh); how many."""
        return self.conn.execute(
            f"""DELETE FROM {LEDGER_TABLE} WHERE fact_id IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.fact_id = {LEDGER_TABLE}.fact_id)
                AND NOT EXISTS (SELECT 1 FROM {ARCHIVE_TABLE} a WHERE a.fact_id = {LEDGER_TABLE}.fact_id)"""
        ).rowcount
