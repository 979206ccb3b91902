"""The pipeline's DuckDB history under its data directory: one row per audit check per run and one
row per LLM call, so a trend (latency, failures, checks) is one query away. Counts, ids and
one-line errors only: never an entry's, a fact's or a keyword's text."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import duckdb

HISTORY_FILE = "history.duckdb"
TABLES = {
    "audit_history": "checked_at TIMESTAMP, run_id VARCHAR, profile VARCHAR, name VARCHAR, passed BOOLEAN, "
    "severity VARCHAR, detail VARCHAR",
    "extraction_calls": "called_at TIMESTAMP, run_id VARCHAR, profile VARCHAR, extractor VARCHAR, model VARCHAR, "
    "batch INTEGER, attempt INTEGER, entries INTEGER, facts INTEGER, latency_s DOUBLE, "
    "outcome VARCHAR, error VARCHAR, prompt_tokens INTEGER, eval_tokens INTEGER",
}
_LOCK_ATTEMPTS = 20


def utc_now() -> str:
    """Now, as the history and the reports write it (UTC, like SQLite's CURRENT_TIMESTAMP)."""
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")


def history_path(data_dir: Path) -> Path:
    return data_dir / HISTORY_FILE


T = TypeVar("T")


def _with_lock_retry(fn: Callable[[], T]) -> T:
    """Another run may hold DuckDB's file lock for a moment: wait for it rather than lose rows."""
    for _ in range(_LOCK_ATTEMPTS - 1):
        try:
            return fn()
        except duckdb.IOException:
            time.sleep(0.25)
    return fn()  # the last attempt: its error is the caller's


def append_rows(data_dir: Path, table: str, rows: list[tuple[Any, ...]]) -> None:
    """Append rows to one history table, creating it on first use."""
    if not rows:
        return
    path = history_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    marks = ", ".join("?" * len(rows[0]))

    def append() -> None:
        with duckdb.connect(str(path)) as db:
            db.execute(f"CREATE TABLE IF NOT EXISTS {table} ({TABLES[table]})")
            db.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)

    _with_lock_retry(append)


def read_rows(data_dir: Path, table: str, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    """Rows of a query on one history table; none when the history or the table does not exist yet."""
    path = history_path(data_dir)
    if not path.exists():
        return []

    def read() -> list[tuple[Any, ...]]:
        with duckdb.connect(str(path), read_only=True) as db:
            if not db.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = ?", [table]).fetchall():
                return []
            return db.execute(sql, params).fetchall()

    return _with_lock_retry(read)
