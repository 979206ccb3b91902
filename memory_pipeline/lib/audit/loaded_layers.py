"""One profile's three layers as the rules see them: the store's ledger and facts copied into
DuckDB on first use (the entries of the files beside them when a rule asks), the store-side SQLite
work started on threads while that loads, and the quarantine and extraction history read once.
The rules take a `LoadedLayers`; the engine builds it and runs them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cached_property
from typing import Any

import duckdb

from memory_pipeline.lib.audit.checks import AuditResult
from memory_pipeline.lib.audit.extraction_health import extraction_checks
from memory_pipeline.lib.audit.layers import AuditInputs, copy_frame, entries_frame, on_own_store
from memory_pipeline.lib.extraction.history import last_recorded_calls
from memory_pipeline.lib.hermes.hashing import SHORT_HASH_CHARS
from memory_pipeline.lib.store.reads.frames import FACTS_FRAME, empty_store_frames


class LoadedLayers:
    """The layers, loaded into DuckDB on first use. `store_side` names the pure-SQLite work to
    start at once beside the loading (each on the store opened on a connection of its own);
    `load_store` says whether the store's frames are read at all (not for the blocking ledger
    check alone)."""

    def __init__(self, inputs: AuditInputs, store_side: Mapping[str, Callable[..., Any]], *, load_store: bool):
        self.inputs = inputs
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="audit")
        self._store_side_work = dict(store_side)
        self._store_side: dict[str, Future[Any]] = {}
        self._store_frames: Future[Any] | None = None
        self._lock = threading.Lock()
        self._database: duckdb.DuckDBPyConnection | None = None
        self._entries_lock = threading.Lock()  # its own: hashing must not hold up other checks' cursors
        self._entries_loaded = False
        self._cursors = threading.local()
        self.loads = 0  # how many times the store's layers were read: once at most
        self.watermark: str | None = None  # the store as the audit's snapshot found it (once loaded)
        self.loads_store = inputs.reads is not None and load_store
        if self.loads_store:
            self._store_frames = self._pool.submit(on_own_store, inputs.settings, lambda store: store.reads.frames(store.settings.hrr_dim))
        if inputs.reads is not None:
            for name, work in self._store_side_work.items():
                self._store_side[name] = self._pool.submit(on_own_store, inputs.settings, work)

    def store_side(self, name: str) -> Any:
        """The result of a store-side check: from its thread when started, else computed now (on
        a connection of its own: the caller's belongs to another thread)."""
        if name in self._store_side:
            return self._store_side[name].result()
        return on_own_store(self.inputs.settings, self._store_side_work[name])

    @property
    def db(self) -> duckdb.DuckDBPyConnection:
        """This thread's cursor on the audit's DuckDB database, holding the ledger and the facts
        (a cursor per thread: checks run on two at once)."""
        with self._lock:
            if self._database is None:
                self._database = self._load_store()
        cursor = getattr(self._cursors, "cursor", None)
        if cursor is None:
            cursor = self._cursors.cursor = self._database.cursor()
        return cursor

    @property
    def db_with_entries(self) -> duckdb.DuckDBPyConnection:
        """`db`, with the entries of the files (hashed on first use) beside the store's tables."""
        db = self.db
        with self._entries_lock:
            if not self._entries_loaded:
                copy_frame(db, "entries", entries_frame(self.inputs.readings))
                self._entries_loaded = True
        return db

    def _load_store(self) -> duckdb.DuckDBPyConnection:
        store, self.watermark = self._store_frames.result() if self._store_frames is not None else (empty_store_frames(), None)
        self.loads += 1
        # Once copied, the frames' Python objects (about 100 MB at 100k facts) are let go.
        self._store_frames = None
        db = duckdb.connect()
        # Tables, not views on the frames: a query scanning a frame converts its Python strings
        # again, and tables are what other threads' cursors see. Derived columns come along.
        derived = {
            "ledger": f", substr(entry_sha256, 1, {SHORT_HASH_CHARS}) AS short_hash",
            FACTS_FRAME: " REPLACE (try(decode(CAST(content AS BLOB))) AS content, pipeline::BOOLEAN AS pipeline)",
        }
        for name in list(store):  # popped: each frame is let go as soon as it is copied
            copy_frame(db, name, store.pop(name), derived.get(name, ""))
        unreadable = [r.source for r in self.inputs.readings if r.held]
        owner = self.inputs.owner
        # The profile's own rows: in a store other profiles share, theirs are left to their audits.
        db.execute(
            """CREATE TABLE active AS SELECT * FROM ledger WHERE status = 'active' AND NOT list_contains(?::VARCHAR[], source)
               AND (? OR profile = ?)""",
            [unreadable, owner.sole, owner.profile],
        )
        return db

    @cached_property
    def quarantined(self) -> set[str]:
        return self.inputs.reads.quarantined_entries() if self.inputs.reads is not None else set()

    @cached_property
    def extraction(self) -> dict[str, AuditResult]:
        inputs = self.inputs
        calls = last_recorded_calls(inputs.data_dir, inputs.profile) if inputs.data_dir is not None else []
        return {r.name: r for r in extraction_checks(calls, scope="the last run that called a model")}

    def read_on_this_thread(self) -> None:
        """Read what comes through the caller's connections, which belong to its thread, before
        rules run on other threads."""
        _ = self.quarantined, self.extraction

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._database is not None:
            self._database.close()
