"""What `memory-pipeline audit --repair` may fix mechanically: indexes, vectors, banks and tags.
Nothing here deletes a fact or touches a ledger row; pending entries are re-synced by the caller."""

from __future__ import annotations

import sqlite3

from memory_pipeline.lib.privacy.matching import KeywordList
from memory_pipeline.lib.privacy.tagging import retag_store
from memory_pipeline.lib.store.database import IS_PIPELINE_FACT_SQL, write_transaction
from memory_pipeline.lib.store.fact_writes import FactWrites, banks_off
from memory_pipeline.lib.store.search_index import holographic_fts_health, rebuild_holographic_fts, sync_search_index
from memory_pipeline.lib.store.settings import HolographicSettings
from memory_pipeline.lib.store.vector_codec import decodable_sql


def repair_indexes(conn: sqlite3.Connection, settings: HolographicSettings) -> list[str]:
    """facts_fts rebuilt when off; the pipeline's own facts whose vector no dialect decodes
    recomputed from content and links, in the store's dialect (a decodable vector, and any fact
    Hermes wrote, is left byte for byte); the banks that are off rebuilt from their vectors."""
    done = []
    if not holographic_fts_health(conn).healthy:
        rebuild_holographic_fts(conn)
        done.append("rebuilt facts_fts")
    with write_transaction(conn):
        writes = FactWrites(conn, settings)
        bad = conn.execute(
            f"SELECT fact_id, content FROM facts WHERE NOT {decodable_sql('hrr_vector', settings.hrr_dim)} AND {IS_PIPELINE_FACT_SQL}"
        ).fetchall()
        for fact_id, content in bad:
            names = [
                r[0]
                for r in conn.execute(
                    "SELECT e.name FROM fact_entities fe JOIN entities e USING (entity_id) WHERE fe.fact_id = ?", (fact_id,)
                )
            ]
            writes.relink(fact_id, content, writes.resolve(names))
        stale = banks_off(conn, settings.hrr_dim)
        writes.rebuild_banks_in_full(stale)
    if bad:
        done.append(f"recomputed {len(bad)} HRR vectors ({writes.vector_format.value})")
    if stale:
        done.append(f"rebuilt {len(stale)} category banks")
    synced = sync_search_index(conn)
    if synced.changed:
        done.append(f"brought the search index in step ({synced.changed} rows)")
    return done


def repair_tags(conn: sqlite3.Connection, keywords: KeywordList, settings: HolographicSettings, policy: str = "tag") -> list[str]:
    report = retag_store(conn, keywords, settings, policy=policy)
    if not report.wrote:
        return []
    return [f"re-tagged: {report.tagged} tagged, {report.untagged} untagged, {report.normalised} tag variants folded"]
