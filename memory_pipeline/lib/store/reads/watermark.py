"""What a store holds, as one short digest that any write to a fact, a ledger row, the list of
facts kept as the agent's own or a category bank changes, whoever makes it (Hermes' `add_fact` /
`update_fact` / `remove_fact`, a bank Holographic rewrote late, a sync, a ledger import).

Clock-free by design: a sum of a checksum per row (its id, content, category, tags and trust),
with the row count and the highest id, so an `updated_at` from a clock that once ran ahead hides
nothing. SQLite's own counters do not serve: `PRAGMA data_version` only means something within
one connection, and the header's change counter is not kept up in WAL mode.

`WatermarkChain` follows one run through its steps: each step says what it saw when it read the
store and what it left when it wrote; a step that sees anything but what the previous one left
means another writer (Hermes, most often) wrote during the run.
"""

from __future__ import annotations

import hashlib
import sqlite3
import zlib
from typing import Any, Protocol

from memory_pipeline.lib.store.schema.database import KEPT_TABLE, LEDGER_TABLE, table_exists


class _Reads(Protocol):
    """What a chain reads a store through (`StoreReader`, which reads watermarks with this module)."""

    def watermark(self) -> str: ...


_ROW_CHECKSUM = "memory_pipeline_row_crc"


def _row_crc(*values: object) -> int:
    return zlib.crc32(b"\x1f".join(b"\x00" if v is None else v if isinstance(v, bytes) else str(v).encode() for v in values))


def _checksum(*columns: str) -> str:
    # Text columns cross as BLOBs: a fact whose bytes are not UTF-8 is still a fact to count.
    return f"total({_ROW_CHECKSUM}({', '.join(f'CAST({c} AS BLOB)' for c in columns)}))"


def store_watermark(conn: sqlite3.Connection) -> str:
    """The digest of every fact, ledger row, kept fact id and bank (read in the caller's transaction, if any)."""
    conn.create_function(_ROW_CHECKSUM, -1, _row_crc, deterministic=True)
    facts = conn.execute(
        f"SELECT count(*), max(fact_id), {_checksum('fact_id', 'content', 'category', 'tags', 'trust_score')} FROM facts"
    ).fetchone()
    ledger = _row_of(conn, LEDGER_TABLE, f"count(*), {_checksum('entry_id', 'source', 'entry_sha256', 'fact_id', 'status')}")
    kept = _row_of(conn, KEPT_TABLE, "count(*), total(fact_id)")
    banks = _row_of(conn, "memory_banks", f"count(*), {_checksum('bank_name', 'fact_count', 'dim', 'vector')}")
    return hashlib.sha256(repr((tuple(facts), ledger, kept, banks)).encode()).hexdigest()[:32]


def _row_of(conn: sqlite3.Connection, table: str, aggregates: str) -> tuple[Any, ...] | None:
    return tuple(conn.execute(f"SELECT {aggregates} FROM {table}").fetchone()) if table_exists(conn, table) else None


class WatermarkChain:
    """One run's view of its store: in step while every step found the store as the last left it."""

    def __init__(self, *, watching: bool = True) -> None:
        self.watching = watching  # a chain nobody reads (a caller outside a run) computes nothing
        self.last: str | None = None
        self.broken = False

    def saw(self, watermark: str) -> None:
        """A step read the store and found it so."""
        if self.last is not None and watermark != self.last:
            self.broken = True
        self.last = watermark

    def observe(self, reads: _Reads) -> None:
        if self.watching:
            self.saw(reads.watermark())

    def wrote(self, reads: _Reads) -> None:
        """A step's own writes, read before its transaction commits (nobody else can write then)."""
        if self.watching:
            self.last = reads.watermark()

    @property
    def in_step(self) -> bool:
        """Nothing but the run itself wrote the store between its first read and its last."""
        return self.last is not None and not self.broken
