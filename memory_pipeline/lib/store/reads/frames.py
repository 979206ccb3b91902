"""The store's ledger, facts, banks and archive read into frames in one snapshot, for the audit
to compare with the files: counts, ids and states, with each fact's content as its UTF-8 bytes."""

from __future__ import annotations

import sqlite3
from typing import Any

import pandas as pd

from memory_pipeline.lib.store.reads.ledger import LEDGER_ROW_COLUMNS, ledger_rows
from memory_pipeline.lib.store.reads.watermark import store_watermark
from memory_pipeline.lib.store.schema.database import ARCHIVE_TABLE, IS_PIPELINE_FACT_SQL, read_snapshot, table_exists
from memory_pipeline.lib.store.vector_codec import size_state_sql, state_sql

FACTS_FRAME = "loaded_facts"  # the name the audit's copy of the facts goes by: never the store's `facts`


def _table(conn: sqlite3.Connection, sql: str, columns: list[str], params: dict[str, Any] | tuple[Any, ...] = ()) -> pd.DataFrame:
    # fetchall + from_records is about twice as fast as pandas.read_sql_query on wide scans.
    return pd.DataFrame.from_records(conn.execute(sql, params).fetchall(), columns=columns)


_FACT_COLUMNS = ["fact_id", "content", "category", "person_tags", "person_trust", "vector_state", "pipeline"]
_BANK_COLUMNS = ["bank_name", "dim", "fact_count", "vector_state"]
_EMPTY_STORE = {"ledger": LEDGER_ROW_COLUMNS, FACTS_FRAME: _FACT_COLUMNS, "banks": _BANK_COLUMNS, "archived": ["fact_id"]}


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


def empty_store_frames() -> dict[str, pd.DataFrame]:
    """The frames of a store that does not exist yet."""
    return {name: pd.DataFrame(columns=columns) for name, columns in _EMPTY_STORE.items()}


def store_frames(conn: sqlite3.Connection, hrr_dim: int = 0) -> tuple[dict[str, pd.DataFrame], str]:
    """Ledger, facts and banks, read in one transaction: one snapshot even while Hermes writes;
    and that snapshot's watermark."""
    with read_snapshot(conn):
        watermark = store_watermark(conn)
        ledger = ledger_rows(conn)
        facts = _table(conn, _facts_sql(hrr_dim), _FACT_COLUMNS)
        banks = _table(conn, f"SELECT bank_name, dim, fact_count, {state_sql('vector', hrr_dim)} FROM memory_banks", _BANK_COLUMNS)
        archived = _table(conn, f"SELECT fact_id FROM {ARCHIVE_TABLE}", ["fact_id"]) if table_exists(conn, ARCHIVE_TABLE) else None
    archived = archived if archived is not None else pd.DataFrame(columns=["fact_id"])
    return {"ledger": ledger, FACTS_FRAME: facts, "banks": banks, "archived": archived}, watermark
