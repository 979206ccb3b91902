"""Retiring a fact whose entry left the files (the `retire` removal policy), as `FactStore` does it:
the pipeline's own facts move to the archive; a fact Hermes wrote is tagged `retired`, its trust
just below Holographic's prefetch threshold (`HolographicSettings.withheld_trust`), never deleted. Here: the facts an older
sync left to retire, and the tag merging every rewrite of a fact's tags goes through."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from memory_pipeline.lib.store.database import IS_PIPELINE_FACT_SQL, LEDGER_TABLE


def merge_tags(*groups: str | Iterable[str]) -> str:
    """One comma-separated tag string, first spelling of each tag kept, empty parts dropped."""
    seen: dict[str, None] = {}
    for group in groups:
        parts = group.split(",") if isinstance(group, str) else group
        for tag in parts:
            tag = tag.strip()
            if tag:
                seen.setdefault(tag, None)
    return ",".join(seen)


def unbacked_facts_to_retire(conn: sqlite3.Connection) -> list[int]:
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
