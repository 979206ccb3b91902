"""What `memory-pipeline audit --repair` may fix mechanically: the ledger's malformed and
superseded rows (saved first), links and facts no entry backs, indexes, vectors, banks and tags.
A fact an entry backs is never deleted; pending entries are re-synced by the caller."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memory_pipeline.lib.hermes.safe_files import private_directory
from memory_pipeline.lib.privacy.choice import PrivacyJudge
from memory_pipeline.lib.privacy.tagging import retag_store
from memory_pipeline.lib.store.database import DANGLING_LINK_SQL, IS_PIPELINE_FACT_SQL, LEDGER_TABLE, write_transaction
from memory_pipeline.lib.store.fact_writes import FactWrites, banks_off
from memory_pipeline.lib.store.search_index import holographic_fts_health, rebuild_holographic_fts, sync_search_index
from memory_pipeline.lib.store.settings import HolographicSettings
from memory_pipeline.lib.store.vector_codec import decodable_sql
from memory_pipeline.lib.sync.ledger import malformed_rows, superseded_rows
from memory_pipeline.lib.sync.ledger_writes import LedgerWrites


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


def repair_tags(conn: sqlite3.Connection, judge: PrivacyJudge, settings: HolographicSettings) -> list[str]:
    report = retag_store(conn, judge, settings)
    if not report.wrote:
        return []
    return [f"re-tagged: {report.tagged} tagged, {report.untagged} untagged, {report.normalised} tag variants folded"]


def repair_ledger(conn: sqlite3.Connection, saved_to: Path) -> list[str]:
    """Rows breaking a row rule deleted, and the active rows of an entry's older versions retired,
    once every such row is saved as it was (table `ledger_rows` of the SQLite file `saved_to`,
    private: a leaked value may be entry text). The entries they stood for are synced afresh."""
    found_malformed = set(malformed_rows(conn))
    found_superseded = set(superseded_rows(conn)) - found_malformed
    if not (found_malformed or found_superseded):
        return []
    _save_rows(conn, sorted(found_malformed | found_superseded), saved_to)
    with write_transaction(conn):
        # Only rows saved and still as found: a writer may have come between.
        malformed = [r for r in malformed_rows(conn) if r in found_malformed]
        superseded = [r for r in superseded_rows(conn) if r in found_superseded]
        ledger = LedgerWrites(conn)
        ledger.delete_rows(malformed)
        ledger.retire_rows(superseded)
    done = [f"deleted {len(malformed)} malformed ledger rows"] if malformed else []
    done += [f"retired {len(superseded)} ledger rows of an entry's older versions"] if superseded else []
    return [*done, f"saved the rows as they were to {saved_to}"]


def _save_rows(conn: sqlite3.Connection, rowids: list[int], saved_to: Path) -> None:
    """The rows, copied as they are into a new private SQLite file, committed before any change."""
    private_directory(saved_to.parent)
    saved_to.touch(mode=0o600, exist_ok=False)
    conn.execute("ATTACH DATABASE ? AS saved", (str(saved_to),))
    try:
        with write_transaction(conn):
            marked = ", ".join(str(int(r)) for r in rowids)
            conn.execute(f"CREATE TABLE saved.ledger_rows AS SELECT rowid AS ledger_rowid, * FROM {LEDGER_TABLE} WHERE rowid IN ({marked})")
    finally:
        conn.execute("DETACH DATABASE saved")


def repair_links(conn: sqlite3.Connection, settings: HolographicSettings) -> list[str]:
    """Entity links whose fact or entity is gone deleted; ledger rows pointing at no fact deleted
    (their entries are synced afresh); the pipeline's facts that no ledger row names (ghosts of
    entries gone) deleted, and the banks they were in rebuilt."""
    with write_transaction(conn):
        links = conn.execute(f"DELETE FROM fact_entities WHERE {DANGLING_LINK_SQL}").rowcount
        orphans = LedgerWrites(conn).delete_naming_no_fact()
        foreign = LedgerWrites(conn).delete_naming_anothers_fact()
        ghosts = [
            r[0]
            for r in conn.execute(
                f"""SELECT fact_id FROM facts WHERE {IS_PIPELINE_FACT_SQL}
                    AND NOT EXISTS (SELECT 1 FROM {LEDGER_TABLE} l WHERE l.fact_id = facts.fact_id)"""
            )
        ]
        writes = FactWrites(conn, settings)
        for ghost in ghosts:
            writes.delete(ghost)
        writes.rebuild_banks()
    done = [f"deleted {links} dangling entity links"] if links else []
    done += [f"deleted {orphans} ledger rows pointing at no fact"] if orphans else []
    done += [f"deleted {foreign} ledger rows naming a fact that is not their entry's (those entries sync afresh)"] if foreign else []
    done += [f"deleted {len(ghosts)} pipeline facts no entry backs (#{', #'.join(map(str, ghosts[:20]))})"] if ghosts else []
    return done
