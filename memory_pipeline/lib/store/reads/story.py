"""What the store knows of one fact's story: the fact (in Hermes' table, or in the pipeline's
archive once its entry was removed), the ledger rows that tie it to entries (which version of
which entry, when, by which extractor and model), and its privacy verdict. `services/why.py`
adds the files, the journal and the surfaces."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from memory_pipeline.lib.store.reads.drift import written_if_changed
from memory_pipeline.lib.store.reads.verdicts import Verdict, verdict_of
from memory_pipeline.lib.store.schema.database import ARCHIVE_TABLE, LEDGER_TABLE, RUNS_TABLE, table_exists
from memory_pipeline.lib.store.schema.pipeline_tables import WRITTEN_TABLE


@dataclass(frozen=True)
class LedgerLine:
    entry_id: str
    source: str
    entry_sha256: str
    status: str  # active, retired
    extractor: str | None
    model: str | None
    prompt_version: str | None
    synced_at: str | None
    run_id: str | None  # the Dagster run that wrote this version (None: written before runs were kept)


@dataclass
class FactRecord:
    fact_id: int
    content: str | None
    category: str | None = None
    tags: str = ""
    trust: float | None = None
    archived: bool = False  # its entry was removed: moved out of Hermes' tables
    ledger: list[LedgerLine] = field(default_factory=list)
    verdict: Verdict | None = None
    changed_outside: bool = False  # its text is no longer what the sync wrote (the agent's fact_store update)

    @property
    def pipeline(self) -> bool:
        return bool(self.ledger) or "synced-from-memory" in self.tags.split(",")


def fact_record(conn: sqlite3.Connection, fact_id: int) -> FactRecord | None:
    """The fact's record, from Hermes' table or the archive; None when neither has it."""
    columns = "CAST(content AS BLOB), category, tags, trust_score"
    row = conn.execute(f"SELECT {columns} FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
    archived = False
    if row is None and table_exists(conn, ARCHIVE_TABLE):
        row, archived = conn.execute(f"SELECT {columns} FROM {ARCHIVE_TABLE} WHERE fact_id = ?", (fact_id,)).fetchone(), True
    if row is None:
        return None
    raw, category, tags, trust = row
    record = FactRecord(fact_id, raw.decode("utf-8", errors="replace"), category, tags or "", trust, archived)
    if table_exists(conn, LEDGER_TABLE):
        record.ledger = [
            LedgerLine(*r)
            for r in conn.execute(
                f"""SELECT l.entry_id, l.source, l.entry_sha256, l.status, l.extractor, l.model, l.prompt_version, l.synced_at,
                        (SELECT r.run_id FROM {RUNS_TABLE} r WHERE r.entry_id = l.entry_id AND r.entry_sha256 = l.entry_sha256)
                    FROM {LEDGER_TABLE} l WHERE l.fact_id = ? ORDER BY l.synced_at, l.entry_id""",
                (fact_id,),
            )
        ]
    record.verdict = verdict_of(conn, fact_id)
    if not archived and table_exists(conn, WRITTEN_TABLE):
        record.changed_outside = written_if_changed(conn, fact_id) is not None
    return record
