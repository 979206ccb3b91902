"""The SHA-256 ledger inside the store and the diff of entries against it."""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass

import duckdb
import pandas as pd

from memory_pipeline.lib.hermes.hashing import SHORT_HASH_CHARS
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES, fact_pointers
from memory_pipeline.lib.hermes.similarity import bigrams, dice
from memory_pipeline.lib.store.database import LEDGER_TABLE, table_exists

DEFAULT_SIMILARITY_THRESHOLD = 0.5
STATUSES = ("new", "changed", "compacted", "unchanged", "removed")
DIFF_COLUMNS = [
    "entry_id",
    "source",
    "position",
    "text",
    "entry_sha256",
    "short_hash",
    "status",
    "matched_entry_id",
    "existing_fact_ids",
    "similarity",
]
# Above this many (new entry, vanished entry) pairs the similarity search is skipped: such a
# diff is a bulk rewrite, where pairing by likeness would be guesswork anyway.
_MAX_SIMILARITY_PAIRS = 1_000_000


@dataclass
class LedgerEntry:
    """The active ledger rows of one entry id, with what the facts they point to look like now."""

    entry_id: str
    source: str
    short_hash: str
    fact_ids: list[int]  # facts that still exist
    missing_fact_ids: list[int]  # rows pointing at facts that are gone
    text: str  # the existing facts' contents: the entry's text as far as the store knows it


def synced_facts(ledger: dict[str, LedgerEntry]) -> dict[tuple[str, str], list[int]]:
    """Each entry's (source, short hash) and its facts, for the entries whose facts all exist."""
    return {(led.source, led.short_hash): led.fact_ids for led in ledger.values() if not led.missing_fact_ids}


def ledger_exists(conn: sqlite3.Connection) -> bool:
    return table_exists(conn, LEDGER_TABLE)


def active_ledger(conn: sqlite3.Connection) -> dict[str, LedgerEntry]:
    if not ledger_exists(conn):
        return {}
    entries: dict[str, LedgerEntry] = {}
    rows = conn.execute(
        f"""SELECT l.entry_id, l.source, l.entry_sha256, l.fact_id, f.fact_id IS NOT NULL, f.content
            FROM {LEDGER_TABLE} l LEFT JOIN facts f ON f.fact_id = l.fact_id
            WHERE l.status = 'active' ORDER BY l.entry_id, l.fact_id"""
    )
    for entry_id, source, sha, fact_id, exists, content in rows:
        entry = entries.setdefault(entry_id, LedgerEntry(entry_id, source, str(sha)[:SHORT_HASH_CHARS], [], [], ""))
        if exists:
            entry.fact_ids.append(fact_id)
            entry.text = f"{entry.text}\n{content}" if entry.text else content
        else:
            entry.missing_fact_ids.append(fact_id)
    return entries


EMPTY_LEDGER = hashlib.sha256().hexdigest()


def ledger_fingerprint(conn: sqlite3.Connection) -> str:
    """Digest of every ledger row: the writer refuses a diff made against another ledger."""
    digest = hashlib.sha256()
    if ledger_exists(conn):
        for row in conn.execute(f"SELECT entry_id, source, entry_sha256, fact_id, status FROM {LEDGER_TABLE} ORDER BY entry_id, fact_id"):
            digest.update(repr(row).encode())
    return digest.hexdigest()


LEDGER_ROW_COLUMNS = ["entry_id", "source", "entry_sha256", "fact_id", "fact_id_valid", "status", "synced_at_valid"]


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
                   typeof(fact_id) = 'integer' AND fact_id > 0, status, julianday(synced_at) IS NOT NULL
                   {", rowid" if with_rowid else ""}
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


def diff_entries(
    entries: pd.DataFrame,
    ledger: dict[str, LedgerEntry],
    *,
    unreadable_sources: frozenset[str] = frozenset(),
    threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
) -> pd.DataFrame:
    """Classify every current entry and every vanished ledger entry.

    Same source and hash as an active ledger entry whose facts exist: `unchanged`, wherever the
    entry stands. The same hash in the other file: `changed` (moved). A new hash similar enough to
    a vanished entry of the same source: `changed`, so its facts are updated in place. A summary
    pointing (`fact_store#N`) at a vanished entry's facts: `compacted`, the facts untouched. Otherwise
    `new`. A vanished entry nothing took over: `removed`, unless its file could not be read.
    """
    rows: list[dict] = []
    by_key: dict[tuple[str, str], str] = {}
    by_hash: dict[str, list[str]] = {}
    for entry_id, led in ledger.items():
        by_key.setdefault((led.source, led.short_hash), entry_id)
        by_hash.setdefault(led.short_hash, []).append(entry_id)
    claimed: set[str] = set()
    pending: list[dict] = []

    def emit(entry: dict, status: str, led: LedgerEntry | None, score: float) -> None:
        if led is not None:
            claimed.add(led.entry_id)
        rows.append(
            {
                **entry,
                "status": status,
                "matched_entry_id": led.entry_id if led is not None else None,
                "existing_fact_ids": list(led.fact_ids) if led is not None else [],
                "similarity": score,
            }
        )

    for entry in entries[["entry_id", "source", "position", "text", "entry_sha256", "short_hash"]].to_dict("records"):
        led_id = by_key.get((entry["source"], entry["short_hash"]))
        led = ledger.get(led_id) if led_id else None
        if led is None or led_id in claimed:
            pending.append(entry)
        elif led.missing_fact_ids:
            # Facts deleted behind the pipeline's back: write them again.
            emit(entry, "changed" if led.fact_ids else "new", led, 1.0)
        else:
            emit(entry, "unchanged", led, 1.0)

    def vanished(entry_id: str) -> bool:
        return entry_id not in claimed and ledger[entry_id].source not in unreadable_sources

    still_pending = []
    for entry in pending:
        moved = next((i for i in by_hash.get(entry["short_hash"], []) if vanished(i)), None)
        if moved is not None:
            emit(entry, "changed", ledger[moved], 1.0)
        else:
            still_pending.append(entry)

    # An entry shortened to a summary with `fact_store#N` pointers (the compaction command)
    # takes over the vanished entry whose facts it points at; those facts keep the full text.
    by_fact: dict[int, str] = {}
    for entry_id, led in ledger.items():
        for fact_id in led.fact_ids:
            by_fact.setdefault(fact_id, entry_id)
    not_compacted = []
    for entry in still_pending:
        owner = next(
            (
                by_fact[n]
                for n in fact_pointers(entry["text"])
                if n in by_fact and vanished(by_fact[n]) and ledger[by_fact[n]].source == entry["source"]
            ),
            None,
        )
        if owner is not None:
            emit(entry, "compacted", ledger[owner], 0.0)
        else:
            not_compacted.append(entry)
    still_pending = not_compacted

    candidates = [i for i in ledger if vanished(i)]
    pairs: list[tuple[float, int, str]] = []
    if still_pending and candidates and len(still_pending) * len(candidates) <= _MAX_SIMILARITY_PAIRS:
        grams = {i: bigrams(ledger[i].text) for i in candidates}
        for index, entry in enumerate(still_pending):
            entry_grams = bigrams(entry["text"])
            for led_id in candidates:
                if ledger[led_id].source == entry["source"]:
                    score = dice(entry_grams, grams[led_id])
                    if score >= threshold:
                        pairs.append((score, index, led_id))
    taken: set[int] = set()
    for score, index, led_id in sorted(pairs, key=lambda p: (-p[0], p[1], p[2])):
        if index not in taken and vanished(led_id):
            taken.add(index)
            emit(still_pending[index], "changed", ledger[led_id], round(score, 4))
    for index, entry in enumerate(still_pending):
        if index not in taken:
            emit(entry, "new", None, 0.0)

    for led_id in candidates:
        if vanished(led_id):
            led = ledger[led_id]
            rows.append(
                {
                    # The text as far as the store knows it (its facts): what a person is shown.
                    "entry_id": led.entry_id,
                    "source": led.source,
                    "position": 0,
                    "text": led.text or None,
                    "entry_sha256": None,
                    "short_hash": led.short_hash,
                    "status": "removed",
                    "matched_entry_id": led.entry_id,
                    "existing_fact_ids": list(led.fact_ids),
                    "similarity": 0.0,
                }
            )
            claimed.add(led_id)
    frame = pd.DataFrame(rows, columns=DIFF_COLUMNS)
    return frame.astype({"position": "int64", "similarity": "float64"})
