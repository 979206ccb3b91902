"""The quarantine table: entries whose extraction failed, kept pending with the raw reply.

It lives in the profile's store and `FactStore` writes it in the sync's own transaction, so an entry is
either quarantined or has its facts and ledger rows, never half of each.
"""

from __future__ import annotations

import sqlite3

from memory_pipeline.lib.store.schema.database import QUARANTINE_TABLE, table_exists


def releasable_entries(conn: sqlite3.Connection, present: set[str], held: frozenset[str], written: set[str]) -> set[str]:
    """Quarantined entries that are done: written now, or gone from a file that could be read."""
    waiting = waiting_entries(conn)
    return {i for i, source in waiting.items() if i in written or (i not in present and source not in held)}


def waiting_entries(conn: sqlite3.Connection | None) -> dict[str, str]:
    """Quarantined entry ids and the file (source) each comes from."""
    if conn is None or not table_exists(conn, QUARANTINE_TABLE):
        return {}
    return dict(conn.execute(f"SELECT entry_id, source FROM {QUARANTINE_TABLE}"))


def quarantined_entries(conn: sqlite3.Connection | None) -> set[str]:
    return set(waiting_entries(conn))
