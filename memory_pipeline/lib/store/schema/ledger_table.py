"""The pipeline's ledger table: one row per (profile, entry, fact). The profile column keeps the
entries of profiles whose settings name one store apart; a ledger made before it had one is
rebuilt once, its rows kept with profile '' (not yet claimed by a sync)."""

from __future__ import annotations

import sqlite3

LEDGER_TABLE = "memory_pipeline_ledger"
LEDGER_INDEX = "idx_memory_pipeline_ledger_fact"
# The key leads with the profile, so a sole owner's lookups by entry (every edit and removal) need their own index.
LEDGER_ENTRY_INDEX = "idx_memory_pipeline_ledger_entry"
# No CHECK constraints: rows written by older tools or imported ledgers may be bad, and the
# ledger_integrity audit must be able to see (and block on) them rather than fail to read them.
LEDGER_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {LEDGER_TABLE} (
    entry_id       TEXT NOT NULL,
    source         TEXT NOT NULL,
    entry_sha256   TEXT NOT NULL,
    fact_id        INTEGER NOT NULL,
    status         TEXT NOT NULL DEFAULT 'active',
    extractor      TEXT,
    model          TEXT,
    prompt_version TEXT,
    synced_at      TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    profile        TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (profile, entry_id, fact_id)
);
CREATE INDEX IF NOT EXISTS {LEDGER_INDEX} ON {LEDGER_TABLE}(fact_id);
CREATE INDEX IF NOT EXISTS {LEDGER_ENTRY_INDEX} ON {LEDGER_TABLE}(entry_id);
"""
_KEPT_COLUMNS = "entry_id, source, entry_sha256, fact_id, status, extractor, model, prompt_version, synced_at"


def has_profile_column(conn: sqlite3.Connection) -> bool:
    return any(row[1] == "profile" for row in conn.execute(f"PRAGMA table_info({LEDGER_TABLE})"))


def profile_sql(conn: sqlite3.Connection, alias: str = "") -> str:
    """What to select as a row's profile: the column, or '' on a ledger not rebuilt yet (read only)."""
    return f"{alias + '.' if alias else ''}profile" if has_profile_column(conn) else "''"


def add_profile_column(conn: sqlite3.Connection) -> None:
    """Rebuild a ledger without the profile column (the key changes, so ALTER cannot): every row
    kept as it was, unclaimed. The caller holds the write transaction."""
    before = f"{LEDGER_TABLE}_before_profiles"
    for index in (LEDGER_INDEX, LEDGER_ENTRY_INDEX):
        conn.execute(f"DROP INDEX IF EXISTS {index}")
    conn.execute(f"ALTER TABLE {LEDGER_TABLE} RENAME TO {before}")
    for statement in LEDGER_SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute(f"INSERT INTO {LEDGER_TABLE} ({_KEPT_COLUMNS}) SELECT {_KEPT_COLUMNS} FROM {before}")
    conn.execute(f"DROP TABLE {before}")
