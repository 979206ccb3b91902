"""What a store written by an earlier version gains when it is next opened to write: the columns
added since (the HRR vector, the judge's detector switches, a receipt's file, the judge's key), the receipts'
entry hashes dropped (`receipts.py` says why) and the text of its synced facts noted
(`written.py`). A store already current is not written."""

from __future__ import annotations

import sqlite3

from memory_pipeline.lib.in_hermes.fact_search import JUDGE_TABLE
from memory_pipeline.lib.store.schema.ledger_table import LEDGER_TABLE, add_profile_column, has_profile_column
from memory_pipeline.lib.store.schema.pipeline_tables import RECEIPTS_TABLE, WRITTEN_TABLE

_ADDED_COLUMNS = (
    ("facts", "hrr_vector", "BLOB"),
    (JUDGE_TABLE, "settings_sha256", "TEXT"),
    (RECEIPTS_TABLE, "source", "TEXT"),
    (JUDGE_TABLE, "key_path", "TEXT"),
)
_SCRUB_RECEIPT_HASHES = f"""UPDATE {RECEIPTS_TABLE}
    SET source = coalesce(source, nullif(substr(entry_id, 1, instr(entry_id, ':') - 1), '')), entry_id = NULL, entry_sha256 = NULL
    WHERE entry_id IS NOT NULL OR entry_sha256 IS NOT NULL"""
_RECEIPT_HASHES = f"SELECT 1 FROM {RECEIPTS_TABLE} WHERE entry_id IS NOT NULL OR entry_sha256 IS NOT NULL LIMIT 1"


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def needs_upgrade(conn: sqlite3.Connection) -> bool:
    """Whether a store holding every table lacks a column added since, or a receipt keeps a hash."""
    if not has_profile_column(conn) or any(column not in _columns(conn, table) for table, column, _ in _ADDED_COLUMNS):
        return True
    return conn.execute(_RECEIPT_HASHES).fetchone() is not None or needs_filling(conn)


def upgrade(conn: sqlite3.Connection) -> None:
    """Inside the caller's write transaction, once every table exists."""
    for table, column, kind in _ADDED_COLUMNS:
        if column not in _columns(conn, table):
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    if not has_profile_column(conn):
        add_profile_column(conn)
    conn.execute(_SCRUB_RECEIPT_HASHES)
    if needs_filling(conn):
        fill(conn)


# The synced facts: those an active ledger row names.
_ACTIVE = f"SELECT DISTINCT fact_id FROM {LEDGER_TABLE} WHERE status = 'active'"


def needs_filling(conn: sqlite3.Connection) -> bool:
    """An empty `memory_pipeline_written` on a store with synced facts: made before the table
    existed. It is filled with their text as it is then (taken to be in step: drift from before
    that is not seen)."""
    return conn.execute(f"SELECT 1 FROM {WRITTEN_TABLE} LIMIT 1").fetchone() is None and (
        conn.execute(f"SELECT 1 FROM facts WHERE fact_id IN ({_ACTIVE}) LIMIT 1").fetchone() is not None
    )


def fill(conn: sqlite3.Connection) -> None:
    """Inside the caller's write transaction: every synced fact's text as it is now."""
    sql = f"INSERT OR IGNORE INTO {WRITTEN_TABLE} (fact_id, content) SELECT fact_id, content FROM facts WHERE fact_id IN ({_ACTIVE})"
    conn.execute(sql)
