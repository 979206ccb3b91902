"""Which Dagster run wrote each version of an entry (the entry's id and hash): what `why` names
as the run that wrote a fact. Written by the ledger's own writes, in the sync's transaction."""

from __future__ import annotations

RUNS_TABLE = "memory_pipeline_entry_runs"
RUNS_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {RUNS_TABLE} (
    entry_id     TEXT NOT NULL,
    entry_sha256 TEXT NOT NULL,
    run_id       TEXT NOT NULL,
    written_at   TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (entry_id, entry_sha256)
);
"""
