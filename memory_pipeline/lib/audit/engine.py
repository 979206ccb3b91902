"""The engine that runs the audits: one profile's three layers (`layers`) loaded into DuckDB once,
every rule of `rules` run against them, two at a time, with the pure SQLite work on threads.
Details carry counts and ids only, never an entry's or a fact's text."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cached_property, partial

import duckdb

from memory_pipeline.lib.audit.checks import CHECK_REGISTRY, CHECK_SPECS, AuditResult
from memory_pipeline.lib.audit.extraction_health import extraction_checks, last_recorded_calls
from memory_pipeline.lib.audit.layers import AuditInputs, copy_frame, entries_frame, on_own_connection, store_frames
from memory_pipeline.lib.audit.rules import RULES, STORE_SIDE
from memory_pipeline.lib.hermes.hashing import SHORT_HASH_CHARS
from memory_pipeline.lib.store.quarantine import quarantined_entries

# Checks that need nothing of the store but the ledger (the blocking one runs alone, before any write).
_LEDGER_ONLY = {"ledger_integrity"}


class Audit:
    """One profile's three layers, loaded into DuckDB on first use. Checks are looked up by name
    in CHECKS, so one (a Dagster asset check) or all of them (the report, the CLI) can run; the
    store-side work of the checks named up front starts at once, beside the loading."""

    def __init__(self, inputs: AuditInputs, names: Iterable[str] | None = None):
        self.inputs = inputs
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="audit")
        self._store_side: dict[str, Future] = {}
        self._store_frames: Future | None = None
        self._lock = threading.Lock()
        self._database: duckdb.DuckDBPyConnection | None = None
        self._entries_lock = threading.Lock()  # its own: hashing must not hold up other checks' cursors
        self._entries_loaded = False
        self._cursors = threading.local()
        self.loads = 0  # how many times the store's layers were read: once at most
        self.watermark: str | None = None  # the store as the audit's snapshot found it (once loaded)
        wanted = set(CHECKS if names is None else names)
        # Whether the store's frames are read: for every check but the blocking one alone.
        self.loads_store = inputs.conn is not None and bool(wanted - _LEDGER_ONLY)
        if self.loads_store:
            self._store_frames = self._pool.submit(
                on_own_connection, inputs.settings.db_path, lambda conn: store_frames(conn, inputs.settings.hrr_dim)
            )
        if inputs.conn is not None:
            for name in STORE_SIDE.keys() & wanted:
                self._store_side[name] = self._pool.submit(
                    on_own_connection, inputs.settings.db_path, partial(STORE_SIDE[name], settings=inputs.settings)
                )

    def store_side(self, name: str):
        """The result of a store-side check: from its thread when started, else computed now (on
        a connection of its own: the caller's belongs to another thread)."""
        if name in self._store_side:
            return self._store_side[name].result()
        return on_own_connection(self.inputs.settings.db_path, partial(STORE_SIDE[name], settings=self.inputs.settings))

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
        store, self.watermark = self._store_frames.result() if self._store_frames is not None else store_frames(None)
        self.loads += 1
        # Once copied, the frames' Python objects (about 100 MB at 100k facts) are let go.
        self._store_frames = None
        db = duckdb.connect()
        # Tables, not views on the frames: a query scanning a frame converts its Python strings
        # again, and tables are what other threads' cursors see. Derived columns come along.
        derived = {
            "ledger": f", substr(entry_sha256, 1, {SHORT_HASH_CHARS}) AS short_hash",
            "facts": " REPLACE (try(decode(CAST(content AS BLOB))) AS content, pipeline::BOOLEAN AS pipeline)",
        }
        for name in list(store):  # popped: each frame is let go as soon as it is copied
            copy_frame(db, name, store.pop(name), derived.get(name, ""))
        unreadable = [r.source for r in self.inputs.readings if r.held]
        db.execute(
            "CREATE TABLE active AS SELECT * FROM ledger WHERE status = 'active' AND NOT list_contains(?::VARCHAR[], source)", [unreadable]
        )
        return db

    @cached_property
    def quarantined(self) -> set[str]:
        return quarantined_entries(self.inputs.conn)

    @cached_property
    def extraction(self) -> dict[str, AuditResult]:
        inputs = self.inputs
        calls = last_recorded_calls(inputs.data_dir, inputs.profile) if inputs.data_dir is not None else []
        return {r.name: r for r in extraction_checks(calls, scope="the last run that called a model")}

    def run(self, name: str) -> AuditResult:
        return CHECKS[name](self)

    def run_many(self, names: Iterable[str]) -> list[AuditResult]:
        """Several checks, two at a time: DuckDB and SQLite release the GIL, so one check's
        queries run beside another's Python work (hashing the entries, the privacy rules).
        The heaviest start first."""
        names = list(names)
        if len(names) < 2 or not self.loads_store:
            return [self.run(name) for name in names]
        # Both read through the caller's connections, which belong to its thread: read them here.
        _ = self.quarantined, self.extraction
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="audit-check") as pool:
            futures = {name: pool.submit(self.run, name) for name in sorted(names, key=lambda n: CHECK_SPECS[n].start)}
            return [futures[name].result() for name in names]

    def run_all(self) -> list[AuditResult]:
        return self.run_many(CHECKS)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._database is not None:
            self._database.close()

    def __enter__(self) -> Audit:
        return self

    def __exit__(self, *_) -> None:
        self.close()


def run_audits(inputs: AuditInputs) -> list[AuditResult]:
    with Audit(inputs) as audit:
        return audit.run_all()


# Every check of the registry, in its order (a check without a rule fails here, at import).
CHECKS: dict[str, Callable[[Audit], AuditResult]] = {spec.name: RULES[spec.name] for spec in CHECK_REGISTRY}
