"""Retiring a fact whose entry left the files (the `retire` removal policy): the pipeline's own
facts move to the archive (`FactWrites.archive`); a fact Hermes wrote is tagged `retired`, its trust
just below Holographic's prefetch threshold, never deleted. And the tag merging every rewrite of a
fact's tags goes through."""

from __future__ import annotations

import sqlite3

from memory_pipeline.lib.store.database import IS_PIPELINE_FACT_SQL, LEDGER_TABLE, RETIRED_TAG
from memory_pipeline.lib.store.settings import HolographicSettings


def merge_tags(*groups) -> str:
    """One comma-separated tag string, first spelling of each tag kept, empty parts dropped."""
    seen: dict[str, None] = {}
    for group in groups:
        parts = group.split(",") if isinstance(group, str) else group
        for tag in parts:
            tag = tag.strip()
            if tag:
                seen.setdefault(tag, None)
    return ",".join(seen)


def retired_trust(settings: HolographicSettings) -> float:
    """Trust just below the prefetch threshold, so a retired fact stops surfacing on its own."""
    return max(0.0, round(settings.min_trust - 0.1, 6))


def retire(conn: sqlite3.Connection, fact_id: int, settings: HolographicSettings) -> int:
    """Tag a fact `retired` and drop its trust below the prefetch threshold (1 when it changed)."""
    row = conn.execute("SELECT tags, trust_score FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
    if row is None:
        return 0
    tags, trust = merge_tags(row[0] or "", [RETIRED_TAG]), min(row[1], retired_trust(settings))
    if (tags, trust) == (row[0], row[1]):
        return 0
    conn.execute("UPDATE facts SET tags = ?, trust_score = ?, updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?", (tags, trust, fact_id))
    return 1


def unbacked_facts_to_retire(conn: sqlite3.Connection, settings: HolographicSettings) -> list[int]:
    """The pipeline's facts no entry backs any more (only retired ledger rows) still in Hermes'
    tables: what a store synced under `keep`, or retired in place by an older version, moves to
    the archive on its next sync."""
    return [
        r[0]
        for r in conn.execute(
            f"""SELECT f.fact_id FROM facts f
            WHERE {IS_PIPELINE_FACT_SQL}
              AND EXISTS (SELECT 1 FROM {LEDGER_TABLE} l WHERE l.fact_id = f.fact_id AND l.status = 'retired')
              AND NOT EXISTS (SELECT 1 FROM {LEDGER_TABLE} l WHERE l.fact_id = f.fact_id AND l.status = 'active')"""
        )
    ]
