"""Writing audit results: a Markdown and a JSON report per profile, and a DuckDB history table
(one row per check per run) so a trend is one query away."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from memory_pipeline.lib.audit.checks import CHECK_SPECS, ERROR, WARN, AuditResult
from memory_pipeline.lib.files.reading import UnreadableFile, read_text_file
from memory_pipeline.lib.files.writing import replace_file


def failing_errors(results: list[AuditResult]) -> list[AuditResult]:
    return [r for r in results if not r.passed and r.severity == ERROR]


def changed_during_run(results: list[AuditResult], what: str = "the store") -> list[AuditResult]:
    """The results of a run during which another writer changed the store or a memory file (`what`
    changed): a failure of a check that such a write can cause for a moment is a WARN that the
    next sync settles, not an ERROR whose repair would repair nothing."""
    note = f"{what} changed during the run (another writer, e.g. Hermes); the next sync picks it up"
    return [
        replace(r, severity=WARN, detail=f"{r.detail}; {note}")
        if not r.passed and r.severity == ERROR and CHECK_SPECS[r.name].moves_with_writers
        else r
        for r in results
    ]


def report_payload(profile: str, results: list[AuditResult]) -> dict[str, Any]:
    return {
        "profile": profile,
        "checks": [{"name": r.name, "passed": r.passed, "severity": r.severity, "pending": r.pending, "detail": r.detail} for r in results],
    }


def markdown(profile: str, results: list[AuditResult], checked_at: str) -> str:
    lines = [
        f"# Audit of profile `{profile}`",
        "",
        f"Checked {checked_at}. "
        f"{sum(r.passed for r in results)} of {len(results)} checks pass; "
        f"{len(failing_errors(results))} ERROR failures.",
        "",
        "| check | result | severity | detail |",
        "|---|---|---|---|",
    ]
    lines += [f"| `{r.name}` | {'pass' if r.passed else 'FAIL'} | {r.severity} | {r.detail} |" for r in results]
    return "\n".join(lines) + "\n"


def write_reports(data_dir: Path, profile: str, run_id: str, results: list[AuditResult]) -> tuple[Path, Path]:
    from memory_pipeline.lib.history import append_rows, utc_now  # DuckDB: not for `status`, which reads a report

    checked_at = utc_now()
    js = report_path(data_dir, profile)
    js.parent.mkdir(parents=True, exist_ok=True)
    md = js.with_suffix(".md")
    replace_file(md, markdown(profile, results, checked_at))
    replace_file(
        js,
        json.dumps({**report_payload(profile, results), "checked_at": checked_at, "run_id": run_id}, ensure_ascii=False, indent=2) + "\n",
    )
    append_rows(data_dir, "audit_history", [(checked_at, run_id, profile, r.name, r.passed, r.severity, r.detail) for r in results])
    return md, js


def report_path(data_dir: Path, profile: str) -> Path:
    """The JSON report the last full run of a profile wrote (`audit_report`, `audit`)."""
    return data_dir / "reports" / profile / "audit.json"


def last_report(data_dir: Path, profile: str) -> dict[str, Any]:
    """That report as written, or an empty one when there is none (or it cannot be read)."""
    try:
        report = json.loads(read_text_file(report_path(data_dir, profile)) or "{}")
    except (UnreadableFile, ValueError):
        return {}
    return report if isinstance(report, dict) else {}
