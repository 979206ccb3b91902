"""The three layers an audit compares, read into frames: the entries of the files (hashed), and
the store's ledger, facts and banks, read in one snapshot. Plus the small SQL helpers every rule
shares. Counts and ids only ever leave here; contents cross as bytes, never logged."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import duckdb
import pandas as pd

from memory_pipeline.lib.choices import DEFAULT_CAP_TARGET
from memory_pipeline.lib.hermes.hashing import entry_identities
from memory_pipeline.lib.hermes.memory_files import SourceReading
from memory_pipeline.lib.privacy.choice import PrivacyJudge
from memory_pipeline.lib.store.database import ARCHIVE_TABLE, IS_PIPELINE_FACT_SQL, opened, read_snapshot, table_exists
from memory_pipeline.lib.store.ledger import LEDGER_ROW_COLUMNS, ledger_rows
from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
from memory_pipeline.lib.store.settings import HolographicSettings
from memory_pipeline.lib.store.vector_codec import size_state_sql, state_sql
from memory_pipeline.lib.store.watermark import store_watermark

T = TypeVar("T")


@dataclass
class AuditInputs:
    readings: list[SourceReading]
    conn: sqlite3.Connection | None  # None: the store does not exist yet
    settings: HolographicSettings
    judge: PrivacyJudge | None  # the keyword list, detectors and policy; None: no check that needs it is run
    data_dir: Path | None = None  # the pipeline's data directory: its history feeds the extraction checks
    profile: str = ""
    cap_target: float = DEFAULT_CAP_TARGET  # the share of each cap `cap_usage` warns above
    owner: LedgerOwner = SOLE_OWNER  # whose ledger rows are the profile's (a store several profiles share)


def _table(conn: sqlite3.Connection, sql: str, columns: list[str], params: dict | tuple = ()) -> pd.DataFrame:
    # fetchall + from_records is about twice as fast as pandas.read_sql_query on wide scans.
    return pd.DataFrame.from_records(conn.execute(sql, params).fetchall(), columns=columns)


_FACT_COLUMNS = ["fact_id", "content", "category", "person_tags", "person_trust", "vector_state", "pipeline"]
_BANK_COLUMNS = ["bank_name", "dim", "fact_count", "vector_state"]
_EMPTY_STORE = {"ledger": LEDGER_ROW_COLUMNS, "facts": _FACT_COLUMNS, "banks": _BANK_COLUMNS, "archived": ["fact_id"]}


def _facts_sql(dim: int) -> str:
    """What SQLite decides per fact while the GIL is free, so Python builds fewer objects: tags
    and trust only where the tags mention `person` (the only facts privacy_coverage reads them
    for), `vector_state` (a `VectorState`: which dialect, if any, decodes it), `pipeline` whether
    it is a fact the pipeline synced. The vector state is by size alone (reading no blob); the
    HRR1-sized blobs without the prefix are counted store-side (see `rules.index`). Content
    crosses as its UTF-8 bytes, which DuckDB decodes: no Python string is decoded only to be
    encoded back, and bytes that are not UTF-8 (which Hermes itself cannot read) become NULL, a
    finding of `fact_links`."""
    return f"""SELECT fact_id, CAST(content AS BLOB), category,
        CASE WHEN tags LIKE '%person%' THEN tags END, CASE WHEN tags LIKE '%person%' THEN trust_score END,
        {size_state_sql("hrr_vector", dim)}, {IS_PIPELINE_FACT_SQL} FROM facts"""


def entries_frame(readings: list[SourceReading]) -> pd.DataFrame:
    sources = [r.source for r in readings for _ in r.entries]
    _, shorts, _ = entry_identities(sources, [text for r in readings for text in r.entries])
    return pd.DataFrame({"source": pd.Series(sources, dtype=object), "short_hash": pd.Series(shorts, dtype=object)})


def store_frames(conn: sqlite3.Connection | None, hrr_dim: int = 0) -> tuple[dict[str, pd.DataFrame], str | None]:
    """Ledger, facts and banks, read in one transaction: one snapshot even while Hermes writes;
    and that snapshot's watermark (None without a store)."""
    if conn is None:
        return {name: pd.DataFrame(columns=columns) for name, columns in _EMPTY_STORE.items()}, None
    with read_snapshot(conn):
        watermark = store_watermark(conn)
        ledger = ledger_rows(conn)
        facts = _table(conn, _facts_sql(hrr_dim), _FACT_COLUMNS)
        banks = _table(conn, f"SELECT bank_name, dim, fact_count, {state_sql('vector', hrr_dim)} FROM memory_banks", _BANK_COLUMNS)
        archived = _table(conn, f"SELECT fact_id FROM {ARCHIVE_TABLE}", ["fact_id"]) if table_exists(conn, ARCHIVE_TABLE) else None
    archived = archived if archived is not None else pd.DataFrame(columns=["fact_id"])
    return {"ledger": ledger, "facts": facts, "banks": banks, "archived": archived}, watermark


def copy_frame(db: duckdb.DuckDBPyConnection, table: str, frame: pd.DataFrame, derived: str = "") -> None:
    db.register(f"{table}_frame", frame)
    try:
        db.execute(f"CREATE TABLE {table} AS SELECT *{derived} FROM {table}_frame")
    finally:
        db.unregister(f"{table}_frame")


def count(db: duckdb.DuckDBPyConnection, sql: str) -> int:
    return int(db.execute(sql).fetchall()[0][0])


def on_own_connection(path: Path, fn: Callable[[sqlite3.Connection], T]) -> T:
    """`fn` on a connection of its own (a thread's: sqlite3 connections belong to one thread); a
    table missing or damaged fails with one line naming the file (`opened`)."""
    with opened(path, create=False) as conn:
        return fn(conn)
