"""What `memory-pipeline audit --repair` may fix mechanically: indexes, vectors, banks and tags.
Nothing here deletes a fact or touches a ledger row; pending entries are re-synced by the caller."""

from __future__ import annotations

import sqlite3

from memory_pipeline.lib.fact_writes import FactWrites
from memory_pipeline.lib.privacy import KeywordList
from memory_pipeline.lib.privacy_tagging import retag_store
from memory_pipeline.lib.search_index import holographic_fts_health, rebuild_holographic_fts, sync_search_index
from memory_pipeline.lib.store import HolographicSettings, write_transaction


def repair_indexes(conn: sqlite3.Connection, settings: HolographicSettings) -> list[str]:
    """facts_fts rebuilt when off; HRR vectors of the wrong length recomputed from each fact's
    content and links; every bank rebuilt in full from its vectors."""
    done = []
    if not holographic_fts_health(conn).healthy:
        rebuild_holographic_fts(conn)
        done.append("rebuilt facts_fts")
    expected = 8 * settings.hrr_dim
    with write_transaction(conn):
        writes = FactWrites(conn, settings)
        bad = conn.execute(
            "SELECT fact_id, content FROM facts WHERE hrr_vector IS NULL OR length(hrr_vector) != ?", (expected,)
        ).fetchall()
        for fact_id, content in bad:
            names = [r[0] for r in conn.execute(
                "SELECT e.name FROM fact_entities fe JOIN entities e USING (entity_id) WHERE fe.fact_id = ?", (fact_id,))]
            writes.relink(fact_id, content, writes.resolve(names))
        categories = [r[0] for r in conn.execute("SELECT DISTINCT category FROM facts")]
        banks = [r[0] for r in conn.execute("SELECT bank_name FROM memory_banks WHERE bank_name LIKE 'cat:%'")]
        writes.rebuild_banks_in_full(set(categories) | {b[4:] for b in banks})
    if bad:
        done.append(f"recomputed {len(bad)} HRR vectors")
    done.append("rebuilt the category banks")
    synced = sync_search_index(conn)
    if synced.changed:
        done.append(f"brought the search index in step ({synced.changed} rows)")
    return done


def repair_tags(conn: sqlite3.Connection, keywords: KeywordList, settings: HolographicSettings, policy: str = "tag") -> list[str]:
    report = retag_store(conn, keywords, settings, policy=policy)
    if not report.wrote:
        return []
    return [f"re-tagged: {report.tagged} tagged, {report.untagged} untagged, {report.normalised} tag variants folded"]
