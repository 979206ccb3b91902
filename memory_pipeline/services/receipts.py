"""The receipts service: what removals took away, per profile, read-only."""

from __future__ import annotations

from memory_pipeline.lib.hermes.profiles import Profile
from memory_pipeline.lib.store.database import read_only
from memory_pipeline.lib.store.receipts import Receipt, read_receipts
from memory_pipeline.lib.store.settings import holographic_settings


def profile_receipts(profile: Profile, *, run_id: str | None = None, limit: int = 1000) -> list[Receipt]:
    """The profile's receipts, newest first (a run's alone when named); none without a store."""
    db = holographic_settings(profile.home).db_path
    if not db.is_file():
        return []
    with read_only(db) as conn:
        return read_receipts(conn, run_id=run_id, limit=limit)
