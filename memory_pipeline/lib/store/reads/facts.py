"""Reads of a store other packages ask for, typed: counts for status and reports, facts' text by
id, and the facts a repair or the privacy stage works through. Each takes an open connection
(`FactStore.conn`, or a read-only one) and never writes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from memory_pipeline.lib.store.schema.database import (
    DANGLING_LINK_SQL,
    IS_PIPELINE_FACT_SQL,
    LEDGER_TABLE,
    RETIRED_TAG,
    UNSAFE_TAG,
    has_tag_sql,
    table_exists,
)
from memory_pipeline.lib.store.schema.pipeline_tables import ARCHIVE_TABLE
from memory_pipeline.lib.store.vector_codec import VectorState, decodable_sql, false_hrr1_sql, state_sql

_CHUNK = 500  # ids per query: under SQLite's limit on bound parameters


def fact_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM facts").fetchone()[0])


@dataclass(frozen=True)
class StoreCounts:
    """How many facts a store holds, and of what kind (status)."""

    facts: int
    pipeline_facts: int
    retired_in_place: int  # facts tagged retired, still in Hermes' tables (mirror rows, Hermes' own)
    archived: int  # the pipeline's facts taken out of Hermes' tables
    pipeline_retired: int  # of `retired_in_place`, the pipeline's (an older version retired them in place)
    last_write: str | None  # when the ledger was last written


def store_counts(conn: sqlite3.Connection) -> StoreCounts:
    retired_sql = has_tag_sql(RETIRED_TAG)
    facts, pipeline, retired, pipeline_retired = conn.execute(
        f"""SELECT count(*), coalesce(sum({IS_PIPELINE_FACT_SQL}), 0), coalesce(sum({retired_sql}), 0),
               coalesce(sum(({IS_PIPELINE_FACT_SQL}) AND ({retired_sql})), 0) FROM facts"""
    ).fetchone()
    archived = conn.execute(f"SELECT count(*) FROM {ARCHIVE_TABLE}").fetchone()[0] if table_exists(conn, ARCHIVE_TABLE) else 0
    last_write = conn.execute(f"SELECT max(synced_at) FROM {LEDGER_TABLE}").fetchone()[0] if table_exists(conn, LEDGER_TABLE) else None
    return StoreCounts(facts, pipeline, retired, archived, pipeline_retired, last_write)


def existing_fact_ids(conn: sqlite3.Connection, fact_ids: Iterable[int]) -> set[int]:
    """Those of the ids that name a fact in Hermes' tables."""
    return set(fact_contents(conn, fact_ids))


def fact_contents(conn: sqlite3.Connection, fact_ids: Iterable[int]) -> dict[int, str]:
    """The stored text of each of these facts that exists."""
    ids, contents = list(dict.fromkeys(int(i) for i in fact_ids)), dict[int, str]()
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        contents.update(conn.execute(f"SELECT fact_id, content FROM facts WHERE fact_id IN ({', '.join('?' * len(chunk))})", chunk))
    return contents


class FactState(NamedTuple):
    """A fact as the privacy stage judges it: its text as stored (bytes: it may not be UTF-8), tags and trust."""

    fact_id: int
    raw: bytes
    tags: str | None
    trust: float


_STATE_SQL = "SELECT fact_id, CAST(content AS BLOB), tags, trust_score FROM facts"


def fact_states(conn: sqlite3.Connection) -> Iterator[FactState]:
    """Every fact's state, streamed in the store's order."""
    return map(FactState._make, conn.execute(_STATE_SQL))


def fact_state(conn: sqlite3.Connection, fact_id: int) -> FactState | None:
    row = conn.execute(f"{_STATE_SQL} WHERE fact_id = ?", (fact_id,)).fetchone()
    return FactState(*row) if row else None


def entity_id_named(conn: sqlite3.Connection, name: str) -> int | None:
    """The first entity with exactly this name."""
    row = conn.execute("SELECT entity_id FROM entities WHERE name = ? ORDER BY entity_id", (name,)).fetchone()
    return row[0] if row else None


def linked_entities(conn: sqlite3.Connection) -> dict[int, str]:
    """Each linked fact's entity ids, comma-separated as SQLite's group_concat gives them."""
    return dict(conn.execute("SELECT fact_id, group_concat(entity_id) FROM fact_entities GROUP BY fact_id"))


def backed_fact_ids(conn: sqlite3.Connection) -> set[int]:
    """Facts an active ledger row names: an entry in the files backs them."""
    if not table_exists(conn, LEDGER_TABLE):
        return set()
    return {r[0] for r in conn.execute(f"SELECT DISTINCT fact_id FROM {LEDGER_TABLE} WHERE status = 'active'")}


def undecodable_pipeline_facts(conn: sqlite3.Connection, dim: int) -> list[tuple[int, str]]:
    """(id, text) of the pipeline's own facts whose vector no dialect decodes."""
    return conn.execute(
        f"SELECT fact_id, content FROM facts WHERE NOT {decodable_sql('hrr_vector', dim)} AND {IS_PIPELINE_FACT_SQL}"
    ).fetchall()


def linked_entity_names(conn: sqlite3.Connection, fact_id: int) -> list[str]:
    return [
        r[0] for r in conn.execute("SELECT e.name FROM fact_entities fe JOIN entities e USING (entity_id) WHERE fe.fact_id = ?", (fact_id,))
    ]


def unbacked_pipeline_facts(conn: sqlite3.Connection) -> list[int]:
    """The pipeline's facts that no ledger row names (ghosts of entries gone)."""
    return [
        r[0]
        for r in conn.execute(
            f"""SELECT fact_id FROM facts WHERE {IS_PIPELINE_FACT_SQL}
                AND NOT EXISTS (SELECT 1 FROM {LEDGER_TABLE} l WHERE l.fact_id = facts.fact_id)"""
        )
    ]


def unsafe_fact_entries(conn: sqlite3.Connection) -> list[tuple[int, str | None]]:
    """(fact id, the entry it came from, if any) of every fact withheld as unsafe instructions."""
    entry = f"(SELECT min(l.entry_id) FROM {LEDGER_TABLE} l WHERE l.fact_id = f.fact_id AND l.status = 'active')"
    entry = entry if table_exists(conn, LEDGER_TABLE) else "NULL"
    return conn.execute(f"SELECT f.fact_id, {entry} FROM facts f WHERE {has_tag_sql(UNSAFE_TAG, 'f.tags')} ORDER BY f.fact_id").fetchall()


def dangling_link_count(conn: sqlite3.Connection) -> int:
    """Entity links whose fact or entity is gone."""
    return int(conn.execute(f"SELECT count(*) FROM fact_entities WHERE {DANGLING_LINK_SQL}").fetchone()[0])


def false_hrr1_by_category(conn: sqlite3.Connection, dim: int) -> dict[str, int]:
    """Per category, the HRR1-sized vectors that lack the prefix (they decode in no dialect)."""
    sql = f"SELECT category, count(*) FROM facts WHERE {false_hrr1_sql('hrr_vector', dim)} GROUP BY category"
    return dict(conn.execute(sql).fetchall())


# A fact stored with no vector at all: what Holographic writes when NumPy is missing from Hermes'
# environment (it skips the vector and the banks, and keeps everything else).
_NO_VECTOR = "(hrr_vector IS NULL OR (typeof(hrr_vector) = 'blob' AND length(hrr_vector) = 0))"


def facts_without_vector(conn: sqlite3.Connection) -> list[tuple[int, str | None, bytes]]:
    """(fact_id, category, stored content bytes) of every fact without a vector."""
    rows = conn.execute(f"SELECT fact_id, category, CAST(content AS BLOB) FROM facts WHERE {_NO_VECTOR}")
    return [(fact_id, category, bytes(raw or b"")) for fact_id, category, raw in rows]


def banks_off(conn: sqlite3.Connection, dim: int) -> set[str]:
    """Categories whose bank is not the bundle Hermes would keep: missing, left over, counting
    other than its decodable vectors, of another dim, or itself undecodable. Holographic rebuilds a
    bank by reading its vectors and writing the bundle in two transactions, so a write of another
    process between the two leaves the bank behind its facts: a sync settles such banks."""
    decodable = decodable_sql("hrr_vector", dim)
    counts = dict(conn.execute(f"SELECT category, count(*) FROM facts WHERE {decodable} GROUP BY category").fetchall())
    banks = {
        name[4:]: (count, bank_dim, state)
        for name, count, bank_dim, state in conn.execute(
            f"SELECT bank_name, fact_count, dim, {state_sql('vector', dim)} FROM memory_banks WHERE bank_name LIKE 'cat:%'"
        )
    }
    off = {category for category in counts if category not in banks}
    off |= {
        category
        for category, (count, bank_dim, state) in banks.items()
        if count != counts.get(category, 0) or bank_dim != dim or state <= VectorState.MALFORMED
    }
    return off


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
