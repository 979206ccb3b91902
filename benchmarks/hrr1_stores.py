"""For the benchmarks: a copy of a synced store as current Hermes would leave it after rewriting
half of it, every other fact's vector and every bank in HRR1 float32."""

from __future__ import annotations

import shutil
import sqlite3
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory_pipeline.lib.choices import VectorFormat  # noqa: E402
from memory_pipeline.lib.store import vector_codec  # noqa: E402
from memory_pipeline.lib.store.fact_store import FactStore  # noqa: E402
from memory_pipeline.lib.store.settings import holographic_settings


def half_hrr1_copy(home: Path, target: Path) -> Path:
    """`home` copied to `target`, then every other fact vector re-encoded as HRR1 and every bank
    rebuilt in HRR1 (so the pipeline's kept bank sums no longer match, as after Hermes wrote)."""
    shutil.copytree(home, target)
    settings = holographic_settings(target)
    dim = settings.hrr_dim
    with FactStore.opened(replace(settings, vector_format=VectorFormat.HRR1), create=False) as store:
        conn = store.conn
        with store.transaction() as writes:
            rows = conn.execute("SELECT fact_id, hrr_vector FROM facts WHERE fact_id % 2 = 0").fetchall()
            conn.executemany(
                "UPDATE facts SET hrr_vector = ? WHERE fact_id = ?",
                [(vector_codec.encode(vector_codec.decode(blob, dim), VectorFormat.HRR1), i) for i, blob in rows],
            )
            categories = {c for (c,) in conn.execute("SELECT DISTINCT category FROM facts")}
            writes.facts.rebuild_banks_in_full(categories)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return target


def dialect_counts(home: Path) -> dict[str, int]:
    settings = holographic_settings(home)
    conn = sqlite3.connect(settings.db_path)
    try:
        return vector_codec.vector_counts(conn, settings.hrr_dim)
    finally:
        conn.close()
