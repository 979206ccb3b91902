"""The extraction's call history: one row per model call (latency, outcome, tokens) in the
pipeline's history database, and the calls of a profile's last run that called a model (what the
extraction checks judge when the audit runs them). Counts and one-line errors only."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.lib.extraction.base import CallRecord
from memory_pipeline.lib.history import append_rows, read_rows, utc_now


def record_calls(data_dir: Path, run_id: str, profile: str, extractor: str, model: str, calls: list[CallRecord]) -> None:
    now = utc_now()
    append_rows(
        data_dir,
        "extraction_calls",
        [
            (
                now,
                run_id,
                profile,
                extractor,
                model,
                c.batch,
                c.attempt,
                c.entries,
                c.facts,
                c.latency_s,
                c.outcome,
                c.error,
                c.prompt_tokens,
                c.eval_tokens,
            )
            for c in calls
        ],
    )


def last_recorded_calls(data_dir: Path, profile: str) -> list[CallRecord]:
    """The calls of the profile's most recent run that called a model, from the history."""
    rows = read_rows(
        data_dir,
        "extraction_calls",
        """SELECT batch, attempt, entries, facts, latency_s, outcome, error, prompt_tokens, eval_tokens
           FROM extraction_calls WHERE profile = ? AND run_id = (SELECT run_id FROM extraction_calls
               WHERE profile = ? ORDER BY called_at DESC, rowid DESC LIMIT 1)""",
        [profile, profile],
    )
    return [CallRecord(*row) for row in rows]
