"""What every audit and check returns, whoever runs it (an asset check, the report, the CLI)."""

from __future__ import annotations

from dataclasses import dataclass, field

ERROR, WARN = "ERROR", "WARN"


@dataclass(frozen=True)
class AuditResult:
    name: str
    passed: bool
    severity: str  # what a failure means: ERROR or WARN
    detail: str  # counts and ids only, never an entry's, a fact's or a keyword's text
    metrics: dict[str, float] = field(default_factory=dict)
