"""Which Holographic made a store, told by its schema: the columns and tables beyond those of
hermes-agent 0.19.0's provider (the catalog plugin's schema is additive). The pipeline writes by
column name, so an added column takes its default; one that is required and has no default
cannot be written without guessing its value, and the store is refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memory_pipeline.lib.store.schema.store_file import StoreError

# Holographic's tables and columns as hermes-agent 0.19.0 creates them.
KNOWN_COLUMNS = {
    "facts": {
        "fact_id",
        "content",
        "category",
        "tags",
        "trust_score",
        "retrieval_count",
        "helpful_count",
        "created_at",
        "updated_at",
        "hrr_vector",
    },
    "entities": {"entity_id", "name", "entity_type", "aliases", "created_at"},
    "fact_entities": {"fact_id", "entity_id"},
    "memory_banks": {"bank_id", "bank_name", "vector", "dim", "fact_count", "updated_at"},
}
_KNOWN_TABLE_PREFIXES = ("facts_fts", "memory_pipeline_", "sqlite_")
BASELINE = "hermes-agent 0.19.0"


def extra_schema(conn: sqlite3.Connection) -> tuple[list[str], list[str]]:
    """(`table.column` beyond 0.19.0's in Holographic's tables, tables beyond its own and the pipeline's)."""
    columns = [
        f"{table}.{row[1]}"
        for table, known in KNOWN_COLUMNS.items()
        for row in conn.execute(f"PRAGMA table_info({table})")
        if row[1] not in known
    ]
    tables = [
        name
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        if name not in KNOWN_COLUMNS and not name.startswith(_KNOWN_TABLE_PREFIXES)
    ]
    return columns, tables


def schema_fingerprint(conn: sqlite3.Connection) -> str:
    """One line for a run's metadata: 0.19.0's schema, or what this store has beyond it."""
    columns, tables = extra_schema(conn)
    if not (columns or tables):
        return f"{BASELINE} schema"
    parts = [f"columns {', '.join(columns)}" if columns else "", f"tables {', '.join(tables)}" if tables else ""]
    return f"{BASELINE} schema and {'; '.join(p for p in parts if p)} (a newer or catalog Holographic)"


def refuse_unwritable_columns(conn: sqlite3.Connection, path: Path) -> None:
    """A column the pipeline does not know that every insert must fill (NOT NULL, no default)."""
    for table, known in KNOWN_COLUMNS.items():
        for _, name, _, notnull, default, primary in conn.execute(f"PRAGMA table_info({table})"):
            if name not in known and notnull and default is None and not primary:
                raise StoreError(
                    f"{path}: column {table}.{name} must be filled on every write and has no default (a Holographic newer than "
                    "this memory-pipeline knows); nothing was written; upgrade memory-pipeline (pip install -U memory-pipeline)"
                )
