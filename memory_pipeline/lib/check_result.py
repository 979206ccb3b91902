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


# The command that fixes (or shows how to fix) each check's failure, for the profile named.
_REPAIR = "memory-pipeline audit --repair --profile {profile}"
FIX_COMMANDS = {
    "cap_usage": "memory-pipeline compact --profile {profile}",
    "format_parity": "memory-pipeline entries --profile {profile}",
    "index_consistency": _REPAIR,
    "privacy_coverage": _REPAIR,
    "hashes_fresh": _REPAIR,
    "layer_counts": _REPAIR,
    "ledger_integrity": "memory-pipeline audit --profile {profile} (a corrupt ledger is left for a person: "
                        "`memory-pipeline ledger export -` shows it)",
    "fact_links": "memory-pipeline audit --profile {profile}",
    "pointers_resolve": "memory-pipeline compact --profile {profile} (or edit the pointer in the memory file)",
    "quarantine_empty": "memory-pipeline sync --profile {profile} (quarantined entries are retried, each alone)",
    "extraction_latency": "memory-pipeline extract-bench --model A --model B --profile {profile}",
    "extraction_json_valid": "memory-pipeline extract-bench --model A --model B --profile {profile}",
}


def fix_command(check: str, profile: str) -> str:
    return FIX_COMMANDS.get(check, "memory-pipeline audit --profile {profile}").format(profile=profile)
