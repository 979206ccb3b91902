"""The quarantine table: entries whose extraction failed, kept pending with the raw reply.

It lives in the profile's store and is written in the sync's own transaction, so an entry is
either quarantined or has its facts and ledger rows, never half of each.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from memory_pipeline.lib.store.database import QUARANTINE_TABLE, table_exists


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


def quarantine(conn: sqlite3.Connection, records: Iterable) -> None:
    """Put entries in quarantine, or count one more failed attempt for those already there."""
    conn.executemany(
        f"""INSERT INTO {QUARANTINE_TABLE} (entry_id, source, model, prompt_sha256, reply, error)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(entry_id) DO UPDATE SET
                model = excluded.model, prompt_sha256 = excluded.prompt_sha256, reply = excluded.reply,
                error = excluded.error, attempts = attempts + 1, last_failed_at = CURRENT_TIMESTAMP""",
        [(r.entry_id, r.source, r.model, r.prompt_sha256, r.reply, r.error) for r in records],
    )


def release(conn: sqlite3.Connection, entry_ids: Iterable[str]) -> None:
    """Take entries out of quarantine (their facts were written, or they left the files)."""
    conn.executemany(f"DELETE FROM {QUARANTINE_TABLE} WHERE entry_id = ?", [(i,) for i in entry_ids])
