"""The SHA-256 ledger inside the store: its active entries, its fingerprint, its rows as the
integrity rules read them, and the rows a repair deletes or retires (the diff is `diff`)."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd

from memory_pipeline.lib.files.writing import private_directory
from memory_pipeline.lib.hermes.hashing import SHORT_HASH_CHARS
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES
from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
from memory_pipeline.lib.store.schema.database import LEDGER_TABLE, table_exists, write_transaction
from memory_pipeline.lib.store.schema.ledger_table import profile_sql
from memory_pipeline.lib.store.schema.pipeline_tables import ARCHIVE_TABLE


@dataclass
class LedgerEntry:
    """The active ledger rows of one entry id, with what the facts they point to look like now."""

    entry_id: str
    source: str
    short_hash: str
    fact_ids: list[int]  # facts that still exist
    missing_fact_ids: list[int]  # rows pointing at facts that are gone
    text: str  # the existing facts' contents: the entry's text as far as the store knows it
    owned: bool = True  # False: an unclaimed row of a shared store, taken only by an exact match


def synced_facts(ledger: dict[str, LedgerEntry]) -> dict[tuple[str, str], list[int]]:
    """Each entry's (source, short hash) and its facts, for the entries whose facts all exist."""
    return {(led.source, led.short_hash): led.fact_ids for led in ledger.values() if not led.missing_fact_ids}


def ledger_exists(conn: sqlite3.Connection) -> bool:
    return table_exists(conn, LEDGER_TABLE)


def active_ledger(conn: sqlite3.Connection, owner: LedgerOwner = SOLE_OWNER) -> dict[str, LedgerEntry]:
    if not ledger_exists(conn):
        return {}
    entries: dict[str, LedgerEntry] = {}
    column = profile_sql(conn, "l")
    scope, params = owner.rows_sql(column)
    rows = conn.execute(
        f"""SELECT l.entry_id, l.source, l.entry_sha256, l.fact_id, f.fact_id IS NOT NULL, f.content, {column}
            FROM {LEDGER_TABLE} l LEFT JOIN facts f ON f.fact_id = l.fact_id
            WHERE l.status = 'active' AND {scope} ORDER BY l.entry_id, l.fact_id""",
        params,
    )
    for entry_id, source, sha, fact_id, exists, content, profile in rows:
        entry = entries.setdefault(entry_id, LedgerEntry(entry_id, source, str(sha)[:SHORT_HASH_CHARS], [], [], "", False))
        entry.owned = entry.owned or owner.owns(profile)
        if exists:
            entry.fact_ids.append(fact_id)
            entry.text = f"{entry.text}\n{content}" if entry.text else content
        else:
            entry.missing_fact_ids.append(fact_id)
    return entries


def archived_entries(conn: sqlite3.Connection, entry_ids: set[str], owner: LedgerOwner = SOLE_OWNER) -> dict[str, list[int]]:
    """Of these entries, those whose retired rows name facts now in the archive (a removal moved
    them out), and those facts: what an edit journaled after the sync that removed its old
    version gives back to the new one."""
    if not entry_ids or not ledger_exists(conn) or not table_exists(conn, ARCHIVE_TABLE):
        return {}
    scope, params = owner.rows_sql(profile_sql(conn, "l"))
    found: dict[str, list[int]] = {}
    wanted = sorted(entry_ids)
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        rows = conn.execute(
            f"""SELECT l.entry_id, l.fact_id FROM {LEDGER_TABLE} l JOIN {ARCHIVE_TABLE} a ON a.fact_id = l.fact_id
                WHERE l.status = 'retired' AND l.entry_id IN ({", ".join("?" * len(part))}) AND {scope}
                ORDER BY l.entry_id, l.fact_id""",
            (*part, *params),
        )
        for entry_id, fact_id in rows:
            found.setdefault(entry_id, []).append(int(fact_id))
    return found


EMPTY_LEDGER = hashlib.sha256().hexdigest()


def ledger_fingerprint(conn: sqlite3.Connection) -> str:
    """Digest of every ledger row: the writer refuses a diff made against another ledger."""
    digest = hashlib.sha256()
    if ledger_exists(conn):
        for row in conn.execute(f"SELECT entry_id, source, entry_sha256, fact_id, status FROM {LEDGER_TABLE} ORDER BY entry_id, fact_id"):
            digest.update(repr(row).encode())
    return digest.hexdigest()


LEDGER_ROW_COLUMNS = ["entry_id", "source", "entry_sha256", "fact_id", "fact_id_valid", "status", "synced_at_valid", "profile"]


def ledger_rows(conn: sqlite3.Connection, *, with_rowid: bool = False) -> pd.DataFrame:
    """Every ledger row as the integrity rules and the audits read it (and its rowid, to repair
    it). SQLite itself judges what needs its own types (a fact id that is a positive integer, a
    timestamp julianday() can read), so a leaked value is seen for what it is and never reaches
    Python; `fact_id` is NULL then."""
    columns = [*LEDGER_ROW_COLUMNS, "rowid"] if with_rowid else LEDGER_ROW_COLUMNS
    if not ledger_exists(conn):
        return pd.DataFrame(columns=columns)
    rows = conn.execute(
        f"""SELECT entry_id, source, entry_sha256,
                   CASE WHEN typeof(fact_id) = 'integer' THEN fact_id END,
                   typeof(fact_id) = 'integer' AND fact_id > 0, status, julianday(synced_at) IS NOT NULL,
                   {profile_sql(conn)} {", rowid" if with_rowid else ""}
            FROM {LEDGER_TABLE}"""
    ).fetchall()
    return pd.DataFrame.from_records(rows, columns=columns)


_SOURCES_SQL = ", ".join(f"'{s}'" for s in SOURCE_FILES)
# (rule over one row, what a row breaking it is), checked in one vectorised pass.
_ROW_RULES = [
    ("NOT fact_id_valid", "rows whose fact_id is not a positive integer (content leaked into the fact_id column)"),
    ("status IS NULL OR status NOT IN ('active', 'retired')", "rows with an unknown status"),
    (f"source IS NULL OR source NOT IN ({_SOURCES_SQL})", "rows with an unknown source"),
    (
        "entry_sha256 IS NULL OR length(entry_sha256) NOT IN (16, 64) OR regexp_matches(entry_sha256, '[^0-9a-f]')",
        "rows whose entry hash is not 16 or 64 hex characters",
    ),
    ("NOT synced_at_valid", "rows whose timestamp does not parse"),
]


def copied_ledger_problems(db: duckdb.DuckDBPyConnection) -> list[str]:
    """`ledger_problems` of the audit's DuckDB copy of the store, which holds the ledger as `ledger`."""
    return ledger_problems(db)


def ledger_problems(source: sqlite3.Connection | duckdb.DuckDBPyConnection) -> list[str]:
    """What makes the ledger unsafe to write on (the `ledger_integrity` audit): from the store, or
    from a DuckDB connection holding its `ledger_rows` as `ledger`. Counts only: a problem never
    quotes a row's content."""
    if isinstance(source, duckdb.DuckDBPyConnection):
        return _problems_in(source)
    rows = ledger_rows(source)
    if rows.empty:
        return []
    with duckdb.connect() as db:
        db.register("ledger", rows)
        return _problems_in(db)


def _problems_in(db: duckdb.DuckDBPyConnection) -> list[str]:
    # fetchall, not fetchone: a result left unfinished blocks the next register() on this connection.
    (counts,) = db.execute("SELECT " + ", ".join(f"count(*) FILTER (WHERE {rule})" for rule, _ in _ROW_RULES) + " FROM ledger").fetchall()
    # Active rows of one entry that disagree on its hash or source: the append-only drift.
    split = db.execute(
        """SELECT count(*) FROM (SELECT entry_id FROM ledger WHERE status = 'active' GROUP BY entry_id
           HAVING min(entry_sha256) != max(entry_sha256) OR min(source) != max(source))"""
    ).fetchall()[0][0]
    problems = [f"{count} {what}" for count, (_, what) in zip(counts, _ROW_RULES, strict=True) if count]
    if split:
        problems.append(f"{split} entry ids with more than one active version (append-only drift)")
    return problems


def malformed_rows(conn: sqlite3.Connection) -> list[int]:
    """The rowids of the rows `ledger_problems` counts as breaking a row rule."""
    rows = ledger_rows(conn, with_rowid=True)
    if rows.empty:
        return []
    with duckdb.connect() as db:
        db.register("ledger", rows)
        return [r[0] for r in db.execute(f"SELECT rowid FROM ledger WHERE {' OR '.join(f'({rule})' for rule, _ in _ROW_RULES)}").fetchall()]


def superseded_rows(conn: sqlite3.Connection) -> list[int]:
    """The active rows of an entry with more than one active version that are not of its newest
    version (the last synced; the last written on a tie)."""
    if not ledger_exists(conn):
        return []
    return [
        r[0]
        for r in conn.execute(
            f"""SELECT rowid FROM {LEDGER_TABLE} l WHERE status = 'active'
                  AND entry_id IN (SELECT entry_id FROM {LEDGER_TABLE} WHERE status = 'active' GROUP BY entry_id
                                   HAVING min(entry_sha256) != max(entry_sha256) OR min(source) != max(source))
                  AND (entry_sha256, source) IS NOT (SELECT entry_sha256, source FROM {LEDGER_TABLE} m
                       WHERE m.entry_id = l.entry_id AND m.status = 'active'
                       ORDER BY julianday(m.synced_at) DESC NULLS LAST, m.rowid DESC LIMIT 1)"""
        )
    ]


def unclaimed_entries(conn: sqlite3.Connection, owner: LedgerOwner, entry_ids: Iterable[str] | None = None) -> list[str]:
    """The entries (of those named; every entry when none are) with rows `owner` may take that
    are not yet marked as its own."""
    scope, params = owner.rows_sql()
    rows = conn.execute(f"SELECT DISTINCT entry_id FROM {LEDGER_TABLE} WHERE profile != ? AND {scope}", (owner.profile, *params))
    found = [r[0] for r in rows]
    return found if entry_ids is None else [e for e in found if e in set(entry_ids)]


def save_rows(conn: sqlite3.Connection, rowids: list[int], saved_to: Path) -> None:
    """The ledger rows, copied as they are into a new private SQLite file (table `ledger_rows`),
    committed before a repair changes them: a leaked value may be entry text. The store itself is
    only read; call it outside a transaction."""
    private_directory(saved_to.parent)
    saved_to.touch(mode=0o600, exist_ok=False)
    conn.execute("ATTACH DATABASE ? AS saved", (str(saved_to),))
    try:
        with write_transaction(conn):
            marked = ", ".join(str(int(r)) for r in rowids)
            conn.execute(f"CREATE TABLE saved.ledger_rows AS SELECT rowid AS ledger_rowid, * FROM {LEDGER_TABLE} WHERE rowid IN ({marked})")
    finally:
        conn.execute("DETACH DATABASE saved")
