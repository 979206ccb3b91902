"""Comparing extraction models on a sample of the user's own entries (a side-by-side table per model):
seconds per fact, share of valid JSON replies, facts per entry, and how far the models agree.
Nothing is written anywhere: the sample is extracted as if every entry were new."""

from __future__ import annotations

from dataclasses import dataclass

from memory_pipeline.lib.extraction.base import EntryToExtract, ExtractionOutcome, fact_latencies
from memory_pipeline.lib.extraction.ollama import OllamaExtractor, OllamaSettings
from memory_pipeline.lib.hermes.entries import hashed_frame, parsed_frame
from memory_pipeline.lib.hermes.memory_files import SourceReading
from memory_pipeline.lib.hermes.similarity import similarity


@dataclass(frozen=True)
class ModelScore:
    model: str
    entries: int
    facts: int
    calls: int
    seconds: float
    seconds_per_fact: float
    json_valid_rate: float  # replies that passed validation, of all replies received
    facts_per_entry: float
    quarantined: int
    agreement: float  # with the first model: mean similarity of each entry's facts; 1.0 for the first


def sample_entries(readings: list[SourceReading], size: int) -> list[EntryToExtract]:
    """Up to `size` entries spread evenly over both files, the same ones on every call."""
    frame = hashed_frame(parsed_frame("", readings))
    step = max(1, len(frame) / size) if size else 1
    picked = frame.iloc[[int(i * step) for i in range(min(size, len(frame)))]]
    return [EntryToExtract(row.entry_id, row.source, row.text, "new") for row in picked.itertuples()]


def _facts_by_entry(outcome: ExtractionOutcome) -> dict[str, str]:
    grouped: dict[str, list[str]] = {}
    for fact in outcome.facts:
        grouped.setdefault(fact.entry_id, []).append(fact.content)
    return {entry_id: "\n".join(sorted(contents)) for entry_id, contents in grouped.items()}


def _agreement(entries: list[EntryToExtract], a: dict[str, str], b: dict[str, str]) -> float:
    if not entries:
        return 0.0
    return sum(similarity(a[e.entry_id], b[e.entry_id]) if e.entry_id in a and e.entry_id in b else 0.0 for e in entries) / len(entries)


def score(model: str, entries: list[EntryToExtract], outcome: ExtractionOutcome, reference: dict[str, str] | None) -> ModelScore:
    replies = [c for c in outcome.calls if c.outcome in ("ok", "invalid")]
    latencies = fact_latencies(outcome.calls)
    facts = _facts_by_entry(outcome)
    return ModelScore(
        model=model,
        entries=len(entries),
        facts=len(outcome.facts),
        calls=len(outcome.calls),
        seconds=sum(c.latency_s for c in outcome.calls),
        seconds_per_fact=sum(latencies) / len(latencies) if latencies else float("nan"),
        json_valid_rate=sum(c.outcome == "ok" for c in replies) / len(replies) if replies else 0.0,
        facts_per_entry=len(outcome.facts) / len(entries) if entries else 0.0,
        quarantined=len(outcome.quarantine),
        agreement=1.0 if reference is None else _agreement(entries, reference, facts),
    )


def compare_models(entries: list[EntryToExtract], settings: list[OllamaSettings]) -> list[ModelScore]:
    scores, reference = [], None
    for model_settings in settings:
        outcome = OllamaExtractor(model_settings).extract(entries)
        scores.append(score(model_settings.model, entries, outcome, reference))
        reference = reference if reference is not None else _facts_by_entry(outcome)
    return scores


def markdown_table(scores: list[ModelScore]) -> str:
    first = scores[0].model if scores else ""
    lines = [
        f"| model | entries | calls | s/fact | JSON valid | facts/entry | quarantined | agreement with {first} |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in scores:
        lines.append(
            f"| {s.model} | {s.entries} | {s.calls} | {s.seconds_per_fact:.2f} | {100 * s.json_valid_rate:.0f}% | "
            f"{s.facts_per_entry:.2f} | {s.quarantined} | {s.agreement:.2f} |"
        )
    return "\n".join(lines)
