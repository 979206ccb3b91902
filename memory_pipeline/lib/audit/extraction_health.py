"""The extraction checks: per-fact latency and JSON validity within bounds, judged on the calls
`lib/extraction/history` records.

They judge the LLM calls of one run: the run that just extracted (the asset's own checks), or the
last run that called a model (the audit report and `memory-pipeline audit`, from the history).
"""

from __future__ import annotations

import numpy as np

from memory_pipeline.lib.audit.checks import WARN, AuditResult
from memory_pipeline.lib.extraction.base import CallRecord, fact_latencies

# On real entries the default model ran at 6.5 s/fact; a 27B chat model at 23.8 s/fact with broken JSON.
LATENCY_P95_BOUND_S = 10.0
JSON_FAILURE_RATE_BOUND = 0.1
EXTRACTION_CHECKS = ("extraction_latency", "extraction_json_valid")


def extraction_checks(
    calls: list[CallRecord],
    *,
    latency_bound_s: float = LATENCY_P95_BOUND_S,
    failure_rate_bound: float = JSON_FAILURE_RATE_BOUND,
    scope: str = "this run",
) -> list[AuditResult]:
    if not calls:
        note = f"no LLM calls in {scope}"
        return [AuditResult(name, True, WARN, note) for name in EXTRACTION_CHECKS]
    latencies = fact_latencies(calls)
    p95 = float(np.percentile(latencies, 95)) if latencies else 0.0
    invalid = sum(call.outcome == "invalid" for call in calls)
    rate = invalid / len(calls)
    return [
        AuditResult(
            "extraction_latency",
            not latencies or p95 <= latency_bound_s,
            WARN,
            f"p95 {p95:.2f} s per fact over {len(latencies)} facts in {scope} (bound {latency_bound_s:g} s)",
            {"fact_latency_p95_s": round(p95, 6), "facts": float(len(latencies))},
        ),
        AuditResult(
            "extraction_json_valid",
            rate <= failure_rate_bound,
            WARN,
            f"{invalid} of {len(calls)} replies failed validation in {scope} ({100 * rate:.0f}%, bound {100 * failure_rate_bound:.0f}%)",
            {"json_failures": float(invalid), "calls": float(len(calls)), "json_failure_rate": round(rate, 6)},
        ),
    ]
