"""The text the pipeline last wrote into each of its facts, kept beside the fact: what tells a fact
the agent changed (`fact_store update`) from the one its entry made, and what `drift --restore`
writes back. A row goes when its fact leaves Hermes' tables (archived or deleted), so no removed
memory stays here.

A store written before this table existed has it filled by the schema's upgrade (`schema.upgrades`)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
from memory_pipeline.lib.store.schema.ledger_table import LEDGER_TABLE
from memory_pipeline.lib.store.schema.pipeline_tables import WRITTEN_TABLE


@dataclass(frozen=True)
class DriftedFact:
    fact_id: int
    entry_ids: tuple[str, ...]  # the entries whose active ledger rows name it
    source: str
    category: str
    written: str  # what the pipeline wrote (never shown by a check: only `drift` shows it, to the owner)


def drifted_facts(conn: sqlite3.Connection, owner: LedgerOwner = SOLE_OWNER) -> list[DriftedFact]:
    """The synced facts (`owner`'s active ledger rows) whose text is no longer what the pipeline wrote."""
    scope, params = owner.rows_sql("l.profile")
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
