"""What the pipeline's stages hand each other: frozen values, each a table and what travels with
it (Dagster stores them between steps; nothing rides in a DataFrame's `attrs`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from memory_pipeline.lib.extraction.base import ExtractionOutcome, QuarantineRecord, facts_frame
from memory_pipeline.lib.hermes.memory_files import SourceReading
from memory_pipeline.lib.sync.mirror import MirrorPlan


def held_sources(readings: list[SourceReading]) -> frozenset[str]:
    """The sources whose entries are unknown, not gone (a file unreadable or missing): nothing
    downstream may treat their ledger entries as removed."""
    return frozenset(r.source for r in readings if r.held)


@dataclass(frozen=True)
class Entries:
    """A profile's entries (parsed, or parsed and hashed) and the sources that are held."""

    frame: pd.DataFrame
    held: frozenset[str] = frozenset()


@dataclass(frozen=True)
class EntryDiff:
    """Every entry classified against the ledger, and the ledger it was classified against (the
    writer refuses to apply a diff made on another ledger)."""

    frame: pd.DataFrame
    ledger_fingerprint: str
    held: frozenset[str] = frozenset()
    mirrors: MirrorPlan = MirrorPlan()  # Holographic's mirror rows and what becomes of them
    # Removed entries a late journal line names as an unchanged entry's old version: their archived facts.
    archived: dict[str, list[int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Provenance:
    """Which extractor wrote the facts: recorded on every ledger row."""

    extractor: str = "rules"
    model: str = ""
    prompt_version: str = "rules-1"


@dataclass(frozen=True)
class Extraction:
    """The facts extracted for the new and changed entries, the entries quarantined instead, and
    who extracted them."""

    facts: pd.DataFrame
    quarantine: tuple[QuarantineRecord, ...] = ()
    provenance: Provenance = Provenance()

    @classmethod
    def of(cls, outcome: ExtractionOutcome, provenance: Provenance) -> Extraction:
        return cls(facts_frame(outcome), tuple(outcome.quarantine), provenance)
