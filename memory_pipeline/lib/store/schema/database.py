"""Hermes' `memory_store.db`: opening it safely beside a running Hermes, and its schema.

The Holographic tables are created only when absent (never dropped, never vacuumed); extra
columns and tables that other Hermes versions add are tolerated. The pipeline's own tables carry
the `memory_pipeline_` prefix.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memory_pipeline.lib.files.writing import out_of_space
from memory_pipeline.lib.in_hermes.fact_search import JUDGE_TABLE, VERDICTS_TABLE
from memory_pipeline.lib.in_hermes.fact_search import PRIVATE_TAG as PRIVATE_TAG  # the store's tags, named here with its own
from memory_pipeline.lib.in_hermes.fact_search import RETIRED_TAG as RETIRED_TAG
from memory_pipeline.lib.in_hermes.fact_search import has_tag_sql as has_tag_sql
from memory_pipeline.lib.in_hermes.meaning import EMBEDDER_TABLE, VECTORS_TABLE
from memory_pipeline.lib.in_hermes.meaning import SCHEMA as MEANING_SCHEMA
from memory_pipeline.lib.store.schema.fingerprint import refuse_unwritable_columns
from memory_pipeline.lib.store.schema.ledger_table import LEDGER_ENTRY_INDEX, LEDGER_INDEX, LEDGER_SCHEMA
from memory_pipeline.lib.store.schema.ledger_table import LEDGER_TABLE as LEDGER_TABLE
from memory_pipeline.lib.store.schema.pipeline_tables import (
    ARCHIVE_SCHEMA,
    RECEIPTS_SCHEMA,
    RECEIPTS_TABLE,
    RUNS_SCHEMA,
    VERDICT_SCHEMA,
    WRITTEN_SCHEMA,
    WRITTEN_TABLE,
)
from memory_pipeline.lib.store.schema.pipeline_tables import ARCHIVE_TABLE as ARCHIVE_TABLE
from memory_pipeline.lib.store.schema.pipeline_tables import RUNS_TABLE as RUNS_TABLE
from memory_pipeline.lib.store.schema.store_file import StoreError as StoreError
from memory_pipeline.lib.store.schema.store_file import refuse_foreign_file, store_error
from memory_pipeline.lib.store.schema.upgrades import needs_upgrade, upgrade

BUSY_TIMEOUT_S = 30.0
PIPELINE_TAG = "synced-from-memory"
# A fact whose text tries to steer the agent, send data away or reach credentials: kept from every surface.
UNSAFE_TAG = "unsafe-instructions"
# RETIRED_TAG: a fact Hermes wrote whose entry was removed, below the prefetch threshold;
# PRIVATE_TAG: personal data found in it. Defined with the index's reader (the plugin runs it alone).

IS_PIPELINE_FACT_SQL = has_tag_sql(PIPELINE_TAG)
# A row of fact_entities whose fact or entity is gone (a lookup per link on the two primary keys).
DANGLING_LINK_SQL = """(NOT EXISTS (SELECT 1 FROM facts f WHERE f.fact_id = fact_entities.fact_id)
    OR NOT EXISTS (SELECT 1 FROM entities e WHERE e.entity_id = fact_entities.entity_id))"""
# The categories the agent's fact_store tool knows.
CATEGORIES = ("user_pref", "project", "tool", "general")
SOURCE_CATEGORY = {"user": "user_pref", "memory": "general"}

HOLOGRAPHIC_SCHEMA = """
CREATE TABLE IF NOT EXISTS facts (
    fact_id         INTEGER PRIMARY KEY AUTOINCREMENT,
    content         TEXT NOT NULL UNIQUE,
    category        TEXT DEFAULT 'general',
    tags            TEXT DEFAULT '',
    trust_score     REAL DEFAULT 0.5,
    retrieval_count INTEGER DEFAULT 0,
    helpful_count   INTEGER DEFAULT 0,
    created_at      TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at      TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    hrr_vector      BLOB
);
CREATE TABLE IF NOT EXISTS entities (
    entity_id   INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL,
    entity_type TEXT DEFAULT 'unknown',
    aliases     TEXT DEFAULT '',
    created_at  TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS fact_entities (
    fact_id   INTEGER REFERENCES facts(fact_id),
    entity_id INTEGER REFERENCES entities(entity_id),
    PRIMARY KEY (fact_id, entity_id)
);
CREATE INDEX IF NOT EXISTS idx_facts_trust    ON facts(trust_score DESC);
CREATE INDEX IF NOT EXISTS idx_facts_category ON facts(category);
CREATE INDEX IF NOT EXISTS idx_entities_name  ON entities(name);
CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts
    USING fts5(content, tags, content=facts, content_rowid=fact_id);
CREATE TRIGGER IF NOT EXISTS facts_ai AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags);
END;
CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content, tags) VALUES ('delete', old.fact_id, old.content, old.tags);
END;
CREATE TRIGGER IF NOT EXISTS facts_au AFTER UPDATE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content, tags) VALUES ('delete', old.fact_id, old.content, old.tags);
    INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags);
END;
CREATE TABLE IF NOT EXISTS memory_banks (
    bank_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    bank_name  TEXT NOT NULL UNIQUE,
    vector     BLOB NOT NULL,
    dim        INTEGER NOT NULL,
    fact_count INTEGER DEFAULT 0,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
"""

# Entries whose extraction failed, kept pending with the raw reply (lib/store/reads/quarantine.py).
QUARANTINE_TABLE = "memory_pipeline_quarantine"
QUARANTINE_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {QUARANTINE_TABLE} (
    entry_id        TEXT PRIMARY KEY,
    source          TEXT NOT NULL,
    model           TEXT,
    prompt_sha256   TEXT,
    reply           TEXT,
    error           TEXT,
    attempts        INTEGER NOT NULL DEFAULT 1,
    first_failed_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    last_failed_at  TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
"""

# Mirror-shaped facts the user said are the agent's own (`memory-pipeline mirrors --keep`): never flagged again.
KEPT_TABLE = "memory_pipeline_kept_facts"

PIPELINE_SCHEMA = (
    LEDGER_SCHEMA
    + f"""CREATE TABLE IF NOT EXISTS {KEPT_TABLE} (
    fact_id INTEGER PRIMARY KEY,
    kept_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS memory_pipeline_bank_sums (
    bank_name   TEXT PRIMARY KEY,
    fact_count  INTEGER NOT NULL,
    sum_re      BLOB NOT NULL,
    sum_im      BLOB NOT NULL,
    bank_sha256 TEXT NOT NULL
);
"""
    + QUARANTINE_SCHEMA
    + ARCHIVE_SCHEMA
    + RECEIPTS_SCHEMA
    + RUNS_SCHEMA
    + WRITTEN_SCHEMA
    + ";\n".join(VERDICT_SCHEMA + MEANING_SCHEMA)
    + ";\n"
)

_REQUIRED_OBJECTS = {
    *("facts", "entities", "fact_entities", "idx_facts_trust", "idx_facts_category", "idx_entities_name"),
    *("facts_fts", "facts_ai", "facts_ad", "facts_au", "memory_banks", "memory_pipeline_bank_sums"),
    *(LEDGER_TABLE, LEDGER_INDEX, LEDGER_ENTRY_INDEX, QUARANTINE_TABLE, KEPT_TABLE, ARCHIVE_TABLE, RECEIPTS_TABLE, RUNS_TABLE),
    *(VERDICTS_TABLE, JUDGE_TABLE, WRITTEN_TABLE, VECTORS_TABLE, EMBEDDER_TABLE),
}


def table_exists(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None


def connect(path: Path, *, create: bool = True) -> sqlite3.Connection:
    """Open the store beside a possibly running Hermes: WAL (DELETE where WAL is refused), a long
    busy timeout, autocommit so every write transaction is explicit and short."""
    if not create and not path.exists():
        raise StoreError(f"{path}: fact store does not exist (run `memory-pipeline sync` first)")
    if path.exists() and not path.is_file():
        raise StoreError(f"{path}: is not a regular file")
    refuse_foreign_file(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if mode.lower() != "wal":
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                conn.execute("PRAGMA journal_mode = DELETE")
        if create:
            _writable_schema(conn, path)
    except sqlite3.DatabaseError as exc:
        if out_of_space(str(exc)):
            raise store_error(path, exc) from None
        raise StoreError(f"{path}: not a usable SQLite fact store ({exc})") from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot open ({exc.strerror})") from None
    return conn


def _writable_schema(conn: sqlite3.Connection, path: Path) -> None:
    """The schema ready for the pipeline's writes, or the store refused (closed) with one line."""
    try:
        refuse_unwritable_columns(conn, path)
    except StoreError:
        conn.close()
        raise
    _ensure_schema(conn)


def _ensure_schema(conn: sqlite3.Connection) -> None:
    present = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    if _REQUIRED_OBJECTS <= present and not needs_upgrade(conn):
        return  # a no-change run must not write a single byte
    with write_transaction(conn):
        for statement in _statements(HOLOGRAPHIC_SCHEMA + PIPELINE_SCHEMA):
            conn.execute(statement)
        upgrade(conn)


def _statements(script: str) -> list[str]:
    """Split a schema script into complete statements (triggers contain inner semicolons)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return [s for s in statements if s]


@contextmanager
def opened(path: Path, *, create: bool = True) -> Iterator[sqlite3.Connection]:
    """`connect`, and the connection closed when the block ends, however it ends. A SQLite error
    inside the block (a table missing, a damaged page) leaves it as a `StoreError`: one line
    naming the file."""
    with _closed_after(path, connect(path, create=create)) as conn:
        yield conn


@contextmanager
def _closed_after(path: Path, conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """The connection, closed when the block ends; a SQLite error in it is a `StoreError` naming `path`."""
    try:
        yield conn
    except sqlite3.DatabaseError as exc:
        raise store_error(path, exc) from None
    finally:
        conn.close()


@contextmanager
def read_only(path: Path) -> Iterator[sqlite3.Connection]:
    """The store opened for reading only (`mode=ro`): no schema, no journal-mode change, no write
    lock ever taken, answering beside a sync or Hermes writing. A missing or damaged store is a
    `StoreError` naming the file."""
    if not path.is_file():
        raise StoreError(f"{path}: fact store does not exist (run `memory-pipeline sync` first)")
    refuse_foreign_file(path)
    try:
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as exc:
        raise store_error(path, exc) from None
    with _closed_after(path, conn):
        yield conn


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE … COMMIT: takes the write lock up front (waiting up to the busy timeout),
    rolls back on any error, so a crash or failure leaves the store as it was."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        _rollback(conn)
        raise
    conn.execute("COMMIT")


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back what is still open. SQLite rolls a transaction back by itself on some errors (a
    full disk among them): a ROLLBACK then fails with "no transaction is active", which must not
    hide the error that caused it."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the error being raised says what went wrong; SQLite has given up the transaction


@contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN … COMMIT around reads: every query in the block sees one state of the store, even
    while Hermes writes (WAL readers are never blocked)."""
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        _rollback(conn)
