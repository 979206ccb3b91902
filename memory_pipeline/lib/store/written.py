"""The text the pipeline last wrote into each of its facts, kept beside the fact: what tells a fact
the agent changed (`fact_store update`) from the one its entry made, and what `drift --restore`
writes back. A row goes when its fact leaves Hermes' tables (archived or deleted), so no removed
memory stays here.

A store written before this table existed has it filled, on its next write, with its synced facts'
text as they are then (taken to be in step: drift from before that is not seen)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from memory_pipeline.lib.store.ledger_schema import LEDGER_TABLE

WRITTEN_TABLE = "memory_pipeline_written"
SCHEMA = f"""CREATE TABLE IF NOT EXISTS {WRITTEN_TABLE} (
    fact_id INTEGER PRIMARY KEY,
    content TEXT NOT NULL
);
"""
_ACTIVE = f"SELECT DISTINCT fact_id FROM {LEDGER_TABLE} WHERE status = 'active'"


def needs_filling(conn: sqlite3.Connection) -> bool:
    """An empty table on a store with synced facts: made before the table existed."""
    return conn.execute(f"SELECT 1 FROM {WRITTEN_TABLE} LIMIT 1").fetchone() is None and (
        conn.execute(f"SELECT 1 FROM facts WHERE fact_id IN ({_ACTIVE}) LIMIT 1").fetchone() is not None
    )


def fill(conn: sqlite3.Connection) -> None:
    """Inside the caller's write transaction: every synced fact's text as it is now."""
    sql = f"INSERT OR IGNORE INTO {WRITTEN_TABLE} (fact_id, content) SELECT fact_id, content FROM facts WHERE fact_id IN ({_ACTIVE})"
    conn.execute(sql)


@dataclass(frozen=True)
class DriftedFact:
    fact_id: int
    entry_ids: tuple[str, ...]  # the entries whose active ledger rows name it
    source: str
    category: str
    written: str  # what the pipeline wrote (never shown by a check: only `drift` shows it, to the owner)


def drifted_facts(conn: sqlite3.Connection, scope: str = "1", params: tuple = ()) -> list[DriftedFact]:
    """The synced facts (active ledger rows in `scope`) whose text is no longer what the pipeline wrote."""
    rows = conn.execute(
        f"""SELECT w.fact_id, group_concat(DISTINCT l.entry_id), min(l.source), f.category, w.content
            FROM {WRITTEN_TABLE} w JOIN facts f ON f.fact_id = w.fact_id
            JOIN {LEDGER_TABLE} l ON l.fact_id = w.fact_id AND l.status = 'active' AND {scope}
            WHERE f.content IS NOT w.content GROUP BY w.fact_id ORDER BY w.fact_id""",
        params,
    ).fetchall()
    return [DriftedFact(i, tuple(sorted(e.split(","))), s, c or "", w) for i, e, s, c, w in rows]


def written_if_changed(conn: sqlite3.Connection, fact_id: int) -> str | None:
    """The text the pipeline wrote into the fact, when the fact no longer holds it (the agent's
    `fact_store update`); None when it does, or the pipeline keeps no text for it."""
    row = conn.execute(
        f"SELECT w.content FROM {WRITTEN_TABLE} w JOIN facts f ON f.fact_id = w.fact_id WHERE w.fact_id = ? AND f.content IS NOT w.content",
        (fact_id,),
    ).fetchone()
    return row[0] if row else None


class WrittenWrites:
    """Part of `FactStore`: the text each of its facts was written with, inside its transaction."""

    conn: sqlite3.Connection

    def written_if_changed(self, fact_id: int) -> str | None:
        return written_if_changed(self.conn, fact_id)

    def changed_by_agent(self, fact_id: int) -> bool:
        """Whether the fact's text is no longer the one the pipeline wrote (the agent's `fact_store update`)."""
        return self.written_if_changed(fact_id) is not None

    def note_written(self, fact_id: int, content: str) -> None:
        self.conn.execute(f"INSERT OR REPLACE INTO {WRITTEN_TABLE} (fact_id, content) VALUES (?, ?)", (fact_id, content))

    def forget_written(self, fact_id: int) -> None:
        self.conn.execute(f"DELETE FROM {WRITTEN_TABLE} WHERE fact_id = ?", (fact_id,))
