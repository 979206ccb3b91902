from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Protocol

import pandas as pd

FACT_COLUMNS = ["entry_id", "content", "category", "tags", "entity", "action", "existing_fact_id", "latency_s"]


@dataclass(frozen=True)
class EntryToExtract:
    entry_id: str
    source: str
    text: str
    status: str  # "new" or "changed"
    candidates: tuple[tuple[int, str], ...] = ()  # (fact_id, content) a `changed` entry may update


@dataclass(frozen=True)
class ExtractedFact:
    entry_id: str
    content: str
    category: str
    tags: tuple[str, ...] = ()
    entity: str | None = None
    action: str = "add"  # "add" or "update"
    existing_fact_id: int = 0  # the candidate an `update` rewrites; 0 for `add`
    latency_s: float = 0.0


@dataclass
class ExtractionOutcome:
    facts: list[ExtractedFact] = field(default_factory=list)
    quarantined: list[str] = field(default_factory=list)  # entry ids left pending
    calls: int = 0
    json_failures: int = 0
    retries: int = 0
    call_latencies_s: list[float] = field(default_factory=list)
    prompt_tokens: int = 0
    eval_tokens: int = 0
    note: str = ""  # why this extractor was used (e.g. `auto` falling back)


class Extractor(Protocol):
    name: str
    model: str
    prompt_version: str

    def extract(self, entries: list[EntryToExtract]) -> ExtractionOutcome: ...


def entries_to_extract(diff: pd.DataFrame, conn: sqlite3.Connection | None) -> list[EntryToExtract]:
    """The `new` and `changed` rows of a diff, each `changed` one with its facts as candidates."""
    work = diff[diff["status"].isin(["new", "changed"])]
    contents: dict[int, str] = {}
    wanted = sorted({i for ids in work["existing_fact_ids"] for i in ids})
    if wanted and conn is not None:
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            contents.update(conn.execute(f"SELECT fact_id, content FROM facts WHERE fact_id IN ({marks})", chunk))
    return [
        EntryToExtract(
            entry_id=row.entry_id,
            source=row.source,
            text=row.text,
            status=row.status,
            candidates=tuple((i, contents[i]) for i in row.existing_fact_ids if i in contents),
        )
        for row in work.itertuples()
    ]


def facts_frame(outcome: ExtractionOutcome) -> pd.DataFrame:
    frame = pd.DataFrame(
        [(f.entry_id, f.content, f.category, ",".join(f.tags), f.entity, f.action, f.existing_fact_id, f.latency_s)
         for f in outcome.facts],
        columns=FACT_COLUMNS,
    )
    frame = frame.astype({"existing_fact_id": "int64", "latency_s": "float64"})
    frame.attrs["quarantined"] = list(outcome.quarantined)
    return frame
