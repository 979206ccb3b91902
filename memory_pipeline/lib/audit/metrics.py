"""Latency summaries for metadata and history: floats, so Dagster plots them."""

from __future__ import annotations

import numpy as np


def latency_summary(prefix: str, seconds: list[float]) -> dict[str, float]:
    if not seconds:
        return {f"{prefix}_p50_s": 0.0, f"{prefix}_p95_s": 0.0, f"{prefix}_max_s": 0.0}
    values = np.asarray(seconds, dtype=float)
    return {
        f"{prefix}_p50_s": round(float(np.percentile(values, 50)), 6),
        f"{prefix}_p95_s": round(float(np.percentile(values, 95)), 6),
        f"{prefix}_max_s": round(float(values.max()), 6),
    }
