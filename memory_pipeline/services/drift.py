"""The drift service: a profile's synced facts whose text the agent changed (`fact_store update`),
what the `facts_match_entries` check names, and, on request, each one either kept as the agent's
own fact (its entry gets a fresh fact at the next sync) or given its entry's text back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memory_pipeline.context.home import ProfileContext
from memory_pipeline.lib.store.reads.drift import DriftedFact


@dataclass
class ProfileDrift:
    store: Path
    drifted: list[DriftedFact] = field(default_factory=list)
    settled: list[int] = field(default_factory=list)  # fact ids kept or restored, with `apply`


def profile_drift(context: ProfileContext, *, apply: bool = False, restore: bool = False) -> ProfileDrift:
    """The profile's changed facts; with `apply`, each kept as the agent's own (or, `restore`,
    given the entry's text back), only those still changed when the write lock is held."""
    found = ProfileDrift(context.store.path)
    if not context.store.exists:
        return found
    with context.opened(create=apply) as store:
        found.drifted = store.reads.drifted_facts()
        if apply and found.drifted:
            with store.transaction() as writes:
                for fact in store.reads.drifted_facts():
                    if restore:
                        writes.entries.restore_written(fact.fact_id)
                    else:
                        writes.entries.hand_to_agent(fact.fact_id)
                        writes.ledger.drop_fact_rows(fact.fact_id)  # its entry is synced afresh
                    found.settled.append(fact.fact_id)
    return found
