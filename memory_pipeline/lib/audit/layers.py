"""The three layers an audit compares, read into frames: the entries of the files (hashed), and
the store's ledger, facts and banks, read in one snapshot. Plus the small SQL helpers every rule
shares. Counts and ids only ever leave here; contents cross as bytes, never logged."""

from __future__ import annotations

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
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
from memory_pipeline.lib.store.reads.reader import StoreReader
from memory_pipeline.lib.store.settings import HolographicSettings

T = TypeVar("T")


@dataclass
class AuditInputs:
    readings: list[SourceReading]
    reads: StoreReader | None  # the caller's reads of the store; None: it does not exist yet
    settings: HolographicSettings
    judge: PrivacyJudge | None  # the keyword list, detectors and policy; None: no check that needs it is run
    data_dir: Path | None = None  # the pipeline's data directory: its history feeds the extraction checks
    profile: str = ""
    cap_target: float = DEFAULT_CAP_TARGET  # the share of each cap `cap_usage` warns above
    owner: LedgerOwner = SOLE_OWNER  # whose ledger rows are the profile's (a store several profiles share)
    profile_home: Path | None = None  # where Hermes keeps the profile's session store (the memory tool's calls)

    @property
    def privacy_judge(self) -> PrivacyJudge:
        """The judge, for a check that needs it (the engine runs none of those without one)."""
        if self.judge is None:
            raise ValueError("a privacy check was run without the keyword list and detectors")
        return self.judge


def entries_frame(readings: list[SourceReading]) -> pd.DataFrame:
    sources = [r.source for r in readings for _ in r.entries]
    _, shorts, _ = entry_identities(sources, [text for r in readings for text in r.entries])
    return pd.DataFrame({"source": pd.Series(sources, dtype=object), "short_hash": pd.Series(shorts, dtype=object)})


def copy_frame(db: duckdb.DuckDBPyConnection, table: str, frame: pd.DataFrame, derived: str = "") -> None:
    db.register(f"{table}_frame", frame)
    try:
        db.execute(f"CREATE TABLE {table} AS SELECT *{derived} FROM {table}_frame")
    finally:
        db.unregister(f"{table}_frame")


def count(db: duckdb.DuckDBPyConnection, sql: str) -> int:
    return int(db.execute(sql).fetchall()[0][0])


def on_own_store(settings: HolographicSettings, fn: Callable[[FactStore], T], owner: LedgerOwner = SOLE_OWNER) -> T:
    """`fn` on the store opened on a connection of its own (a thread's: sqlite3 connections belong
    to one thread), reading `owner`'s ledger rows; a table missing or damaged fails with one line naming the file."""
    with FactStore.opened(settings, owner=owner, create=False) as store:
        return fn(store)
