"""The receipts service: what removals took away, per profile, read-only."""

from __future__ import annotations

from memory_pipeline.lib.hermes.profiles import Profile
from memory_pipeline.lib.store.profile_store import profile_store
from memory_pipeline.lib.store.receipts import Receipt


def profile_receipts(profile: Profile, *, run_id: str | None = None, limit: int = 1000) -> list[Receipt]:
    """The profile's receipts, newest first (a run's alone when named); none without a store."""
    with profile_store(profile).reading() as reads:
        return reads.receipts(run_id=run_id, limit=limit) if reads else []
