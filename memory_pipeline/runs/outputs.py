"""What a run changed, typed: the entries it found changed and what a re-tag changed (its stages'
reports are `stage_reports`). Light: no Dagster import."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class EntryChange:
    """An entry a run found not unchanged. Its text is there for the command line to title it
    on the user's own terminal (a private one by id only); it is never part of the value's repr."""

    entry_id: str
    source: str
    status: str  # new, changed, compacted, removed
    matched_entry_id: str | None = None
    text: str = field(default="", repr=False)


@dataclass(frozen=True)
class RetagChange:
    """What a re-tag changed: how many facts became private and stopped being, by fact id (the
    ids listed may be fewer than the count: the metadata shows the first hundred)."""

    tagged: int
    newly_private: list[str]
    untagged: int
    no_longer_private: list[str]
