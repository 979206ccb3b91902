"""Full-text search over the facts that finds Chinese inside a sentence.

Holographic's `facts_fts` (unicode61) treats a run of CJK characters as one token, so `张伟` is not
found inside `联系人张伟负责评审`. The pipeline keeps its own FTS5 table, `memory_pipeline_fts`, with
the trigram tokenizer: a query of three or more characters is a trigram phrase, which is exactly
a substring match. Two-character queries (most Chinese words) have no trigram, so a second column
holds the lower-cased text with a separator after every character, where the pair `ab` becomes
the trigram `a␟b`. Rows are keyed by fact_id and brought in step with `facts` by comparing content.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from memory_pipeline.lib.in_hermes.fact_search import INDEX_TABLE, indexed_text
from memory_pipeline.lib.in_hermes.search_query import pair_text
from memory_pipeline.lib.store.reads.watermark import WatermarkChain
from memory_pipeline.lib.store.schema.database import read_snapshot, table_exists, write_transaction
from memory_pipeline.lib.store.writes.part import StorePart

_SCHEMA = f"CREATE VIRTUAL TABLE IF NOT EXISTS {INDEX_TABLE} USING fts5(content, pairs, tokenize = 'trigram')"
# A sample of facts is probed through Holographic's index with one token each.
_SAMPLE = 20
_TOKEN = re.compile(r"[^\W_]{3,}")


@dataclass
class HolographicFtsHealth:
    integrity_ok: bool | None  # None: not run this time, another writer held the store
    indexed: int
    facts: int
    probes: int
    probe_misses: int

    @property
    def healthy(self) -> bool:
        return self.integrity_ok is not False and self.indexed == self.facts and self.probe_misses == 0

    @property
    def integrity(self) -> str:
        return {True: "ok", False: "FAILED integrity-check", None: "integrity-check skipped (store busy)"}[self.integrity_ok]


@dataclass
class IndexSync:
    added: int = 0
    updated: int = 0
    removed: int = 0

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.removed


class SearchIndexWrites(StorePart):
    """`FactStore.index`, outside the transactions (each upkeep takes its own): Holographic's
    `facts_fts` checked and rebuilt, and the pipeline's own index brought in step with `facts`."""

    def holographic_fts_health(self) -> HolographicFtsHealth:
        """`facts_fts` checked three ways: FTS5's own integrity-check against `facts`, one indexed
        row per fact, and a MATCH per sampled fact that must find it."""
        conn = self.conn
        # FTS5's integrity-check is an INSERT: it needs the write lock. It never waits for one: while
        # Hermes (or another sync) writes, it is skipped and the row count and probes still judge.
        timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            conn.execute("INSERT INTO facts_fts(facts_fts, rank) VALUES ('integrity-check', 1)")
            integrity: bool | None = True
        except sqlite3.OperationalError as exc:
            integrity = None if "locked" in str(exc) or "busy" in str(exc) else False
        except sqlite3.DatabaseError:
            integrity = False
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")
        indexed = conn.execute("SELECT count(*) FROM facts_fts_docsize").fetchone()[0]
        facts, low, high = conn.execute("SELECT count(*), min(fact_id), max(fact_id) FROM facts").fetchone()
        probes = misses = 0
        # Facts spread evenly over the id range, each found by one index seek (no scan of the table).
        size = min(_SAMPLE, facts)
        sample = {}
        for i in range(size):
            # As bytes: a content that is not UTF-8 (fact_links reports it) must not stop this check.
            row = conn.execute(
                "SELECT fact_id, CAST(content AS BLOB) FROM facts WHERE fact_id >= ? ORDER BY fact_id LIMIT 1",
                (low + (high - low) * i // size,),
            ).fetchone()
            if row is not None:  # Hermes may delete facts meanwhile: no transaction holds them here
                sample[row[0]] = row[1].decode("utf-8", errors="replace")
        for fact_id, content in sample.items():
            tokens = _TOKEN.findall(content)
            if not tokens:
                continue
            probes += 1
            token = tokens[0].replace('"', '""')
            found = conn.execute("SELECT 1 FROM facts_fts WHERE facts_fts MATCH ? AND rowid = ?", (f'"{token}"', fact_id)).fetchone()
            misses += found is None
        return HolographicFtsHealth(integrity, indexed, facts, probes, misses)

    def rebuild_holographic_fts(self) -> None:
        conn = self.conn
        with write_transaction(conn):
            conn.execute("INSERT INTO facts_fts(facts_fts) VALUES ('rebuild')")

    def sync_search_index(self, watermarks: WatermarkChain | None = None) -> IndexSync:
        """Bring `memory_pipeline_fts` in step with `facts`; writes only what differs. `watermarks`
        hears how the store was found (the index itself is not part of a watermark)."""
        conn = self.conn
        watermarks = watermarks if watermarks is not None else WatermarkChain(watching=False)
        present = table_exists(conn, INDEX_TABLE)
        result = IndexSync()
        stale: list[tuple[int, str, bool]] = []
        gone: list[int] = []
        if present:
            with read_snapshot(conn):
                watermarks.observe(self.reads)
                stale, gone = _out_of_step(conn)
            if not stale and not gone:
                return result
        with write_transaction(conn):
            watermarks.observe(self.reads)
            if not present:
                conn.execute(_SCHEMA)
                stale = [(i, c, False) for i, c in conn.execute("SELECT fact_id, content FROM facts")]
            conn.executemany(f"DELETE FROM {INDEX_TABLE} WHERE rowid = ?", [(i,) for i, _, known in stale if known] + [(i,) for i in gone])
            conn.executemany(
                f"INSERT INTO {INDEX_TABLE} (rowid, content, pairs) VALUES (?, ?, ?)",
                [(i, indexed_text(c), pair_text(indexed_text(c))) for i, c, _ in stale],
            )
        result.updated = sum(known for _, _, known in stale)
        result.added = len(stale) - result.updated
        result.removed = len(gone)
        return result


def _out_of_step(conn: sqlite3.Connection) -> tuple[list[tuple[int, str, bool]], list[int]]:
    """(fact id, content, already indexed) for facts the index has wrong or not at all; rows of facts that are gone."""
    stale = [
        (i, c, m is not None)
        for i, c, m, indexed in conn.execute(
            f"""SELECT f.fact_id, f.content, m.rowid, m.content FROM facts f LEFT JOIN {INDEX_TABLE} m ON m.rowid = f.fact_id
            WHERE m.rowid IS NULL OR m.content IS NOT f.content"""
        )
        if m is None or indexed != indexed_text(c)
    ]
    gone = [r[0] for r in conn.execute(f"SELECT rowid FROM {INDEX_TABLE} WHERE rowid NOT IN (SELECT fact_id FROM facts)")]
    return stale, gone
