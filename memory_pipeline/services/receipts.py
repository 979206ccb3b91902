"""The receipts service: what removals took away, per profile, read-only."""

from __future__ import annotations

from memory_pipeline.context.home import ProfileContext
from memory_pipeline.lib.store.reads.receipts import Receipt


def profile_receipts(context: ProfileContext, *, run_id: str | None = None, limit: int = 1000) -> list[Receipt]:
    """The profile's receipts, newest first (a run's alone when named); none without a store."""
    with context.reading() as reads:
        return reads.receipts(run_id=run_id, limit=limit) if reads else []
