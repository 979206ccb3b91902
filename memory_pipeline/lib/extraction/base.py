from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from memory_pipeline.lib.store.reads.reader import StoreReader

if TYPE_CHECKING:  # pandas only where a frame is made: a command that makes none never imports it
    import pandas as pd

FACT_COLUMNS = ["entry_id", "content", "category", "tags", "entity", "action", "existing_fact_id", "latency_s"]


@dataclass(frozen=True)
class EntryToExtract:
    entry_id: str
    source: str
    text: str
    status: str  # "new" or "changed"
    candidates: tuple[tuple[int, str], ...] = ()  # (fact_id, content) a `changed` entry may update
    quarantined: bool = False  # failed before: an LLM retries it alone, so it cannot hold others back


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


@dataclass(frozen=True)
class QuarantineRecord:
    """An entry whose extraction failed: kept pending, with what the model said and why it failed."""

    entry_id: str
    source: str
    model: str
    prompt_sha256: str
    reply: str  # the raw reply ('' when none came: HTTP error, timeout, dropped connection)
    error: str  # one line, never the entry's text


@dataclass(frozen=True)
class CallRecord:
    """One request to a model: what went out, what came back, how long it took."""

    batch: int
    attempt: int  # 0 for the first try, 1… for retries
    entries: int
    facts: int
    latency_s: float
    outcome: str  # ok | invalid | http_error | timeout | connection
    error: str = ""
    prompt_tokens: int | None = None
    eval_tokens: int | None = None


@dataclass
class ExtractionOutcome:
    facts: list[ExtractedFact] = field(default_factory=list)
    quarantine: list[QuarantineRecord] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)

    @property
    def quarantined(self) -> list[str]:
        return [record.entry_id for record in self.quarantine]

    @property
    def json_failures(self) -> int:
        return sum(call.outcome == "invalid" for call in self.calls)

    @property
    def transport_failures(self) -> int:
        return sum(call.outcome in ("http_error", "timeout", "connection") for call in self.calls)

    @property
    def retries(self) -> int:
        return sum(call.attempt > 0 for call in self.calls)

    @property
    def call_latencies_s(self) -> list[float]:
        return [call.latency_s for call in self.calls]

    @property
    def prompt_tokens(self) -> int:
        return sum(call.prompt_tokens or 0 for call in self.calls)

    @property
    def eval_tokens(self) -> int:
        return sum(call.eval_tokens or 0 for call in self.calls)


class Extractor(Protocol):
    name: str
    model: str
    prompt_version: str

    def extract(self, entries: list[EntryToExtract]) -> ExtractionOutcome: ...


def entries_to_extract(diff: pd.DataFrame, reads: StoreReader | None) -> list[EntryToExtract]:
    """The `new` and `changed` rows of a diff, each `changed` one with its facts as candidates."""
    work = diff[diff["status"].isin(["new", "changed"])]
    contents: dict[int, str] = {}
    wanted = sorted({i for ids in work["existing_fact_ids"] for i in ids})
    if wanted and reads is not None:
        contents = reads.fact_contents(wanted)
    failed_before = reads.quarantined_entries() if reads is not None and not work.empty else set()
    return [
        EntryToExtract(
            entry_id=row.entry_id,
            source=row.source,
            text=row.text,
            status=row.status,
            candidates=tuple((i, contents[i]) for i in row.existing_fact_ids if i in contents),
            quarantined=row.entry_id in failed_before,
        )
        for row in work.itertuples()
    ]


def facts_frame(outcome: ExtractionOutcome) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame(
        [(f.entry_id, f.content, f.category, ",".join(f.tags), f.entity, f.action, f.existing_fact_id, f.latency_s) for f in outcome.facts],
        columns=FACT_COLUMNS,
    )
    return frame.astype({"existing_fact_id": "int64", "latency_s": "float64"})


def fact_latencies(calls: list[CallRecord]) -> list[float]:
    """Seconds per fact: every attempt a batch took, shared by the facts it finally gave."""
    spent: dict[int, float] = defaultdict(float)
    facts: dict[int, int] = {}
    for call in calls:
        spent[call.batch] += call.latency_s
        if call.outcome == "ok":
            facts[call.batch] = call.facts
    return [spent[batch] / count for batch, count in facts.items() if count for _ in range(count)]
