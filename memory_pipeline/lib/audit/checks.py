"""What every audit and check returns, whoever runs it (an asset check, the report, the CLI)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

ERROR, WARN = "ERROR", "WARN"


@dataclass(frozen=True)
class AuditResult:
    name: str
    passed: bool
    severity: str  # what a failure means: ERROR or WARN
    detail: str  # counts and ids only, never an entry's, a fact's or a keyword's text
    metrics: dict[str, float] = field(default_factory=dict)
    # A failure the next sync clears (an entry written or removed since the last sync): a warning
    # whose fix is that sync, never an error.
    pending: bool = False


# What the files can show between two syncs that the next sync brings in step (an entry written or
# removed since; `embedding_coverage` says itself what of it waits for the next sync).
SYNC_CLEARS = frozenset({"hashes_fresh", "layer_counts"})


def as_pending(result: AuditResult) -> AuditResult:
    """A failing check whose state the next sync clears, as the audit between syncs says it."""
    if result.passed or result.name not in SYNC_CLEARS:
        return result
    return replace(
        result,
        severity=WARN,
        pending=True,
        detail=f"{result.detail}; the files or the store changed since the last sync, which brings this in step",
    )


@dataclass(frozen=True)
class AuditRun:
    """Every check's result for one profile, from one load of its layers, and the Dagster run that
    produced them: the asset checks of the same run take their results from here."""

    run_id: str
    results: tuple[AuditResult, ...]
    loads: int  # how many times the store's layers were read to get them: 1 (0 without a store)

    def result(self, name: str) -> AuditResult:
        return next(r for r in self.results if r.name == name)

    def to_json(self) -> str:
        return json.dumps({"run_id": self.run_id, "loads": self.loads, "results": [vars(r) for r in self.results]}, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> AuditRun:
        data = json.loads(text)
        return cls(data["run_id"], tuple(AuditResult(**r) for r in data["results"]), data["loads"])


@dataclass(frozen=True)
class CheckSpec:
    """One check, as every part of the pipeline knows it: the Dagster asset check, the audit engine,
    the CLI, the report and the README's table are all built from `CHECK_REGISTRY` (which asset a
    check guards, and whether it blocks the run, is Dagster's side: `defs/checks.py`)."""

    name: str
    severity: str  # what a failure means: ERROR or WARN (cap_usage is an ERROR only over 100%)
    description: str  # shown in the UI beside the check
    fix: str  # the command that fixes (or shows how to fix) a failure, for `{profile}`
    start: int  # when the audit runs several at once, lower starts first (its longest DuckDB scans first)
    # A write by another process during a run (Hermes adding a fact) can fail it until the next sync.
    moves_with_writers: bool = False
    # Its failure says the store holds a fact the agent is not given: the agent's `memory_status`
    # never names it (the user's `status` does).
    tells_of_withheld_facts: bool = False


_REPAIR = "memory-pipeline audit --repair --profile {profile}"
_EXTRACT_BENCH = "memory-pipeline extract-bench --model A --model B --profile {profile}"

# In the order the report, the CLI and the README list them.
CHECK_REGISTRY: tuple[CheckSpec, ...] = (
    CheckSpec(
        "layer_counts",
        ERROR,
        "Every active ledger entry still has its entry in the files.",
        _REPAIR,
        start=1,
        moves_with_writers=True,
    ),
    CheckSpec(
        "hashes_fresh",
        ERROR,
        "Every entry's hash is in the ledger; only quarantined entries wait.",
        _REPAIR,
        start=3,
        moves_with_writers=True,
    ),
    CheckSpec(
        "ledger_integrity",
        ERROR,
        "Ledger rows well-formed (numeric fact ids, one version per entry, known sources, timestamps). "
        "Blocking: no write happens on a bad ledger.",
        _REPAIR + " (deletes the malformed rows and retires an entry's older versions, saving them first to a file it names; "
        "the entries are synced afresh)",
        start=4,
    ),
    CheckSpec(
        "fact_links",
        ERROR,
        "No orphan ledger fact ids, no ghost pipeline facts, no near-copies, no dangling links.",
        _REPAIR + " (ghosts, dangling links, rows naming no fact); a near-copy or a content that is not UTF-8 is named by "
        "fact id: ask Hermes to `fact_store remove` the copy that is not the pipeline's, or edit one of two alike entries",
        start=0,
        moves_with_writers=True,
    ),
    CheckSpec(
        "mirrors_adopted",
        WARN,
        "No fact is Holographic's mirror of an entry gone from the files (untagged, general or user_pref, in no ledger "
        "row, its text an entry once by the ledger, the journal or Hermes' drift backups); such facts are named by id. "
        "The agent's own facts are counted, never flagged.",
        "memory-pipeline sync --profile {profile} (retires them as removed entries' facts)",
        start=12,
        moves_with_writers=True,
    ),
    CheckSpec(
        "facts_match_entries",
        WARN,
        "Every synced fact holds the text its entry gave it; one the agent changed (fact_store update) is named with its entry.",
        "memory-pipeline drift --profile {profile} (shows them; --keep leaves the agent's text as its own fact, "
        "--restore writes the entry's back; then --apply)",
        start=14,
        moves_with_writers=True,
    ),
    CheckSpec(
        "index_consistency",
        ERROR,
        "facts_fts in step; every fact's HRR vector decodes (legacy float64 or HRR1 float32); banks match their vectors.",
        _REPAIR,
        start=5,
        moves_with_writers=True,
    ),
    CheckSpec(
        "embedding_coverage",
        ERROR,
        "Recall by meaning: every fact the agent may see has a vector of the model in force for its text (WARN until the "
        "next sync); no fact withheld, removed or changed keeps one (ERROR).",
        "memory-pipeline sync --profile {profile}",
        start=6,
        moves_with_writers=True,
    ),
    CheckSpec(
        "entries_distinct",
        WARN,
        "No two entries of a memory file say the same thing (by meaning: their facts' vectors); such entries are named by file and number.",
        "memory-pipeline compact --merge --profile {profile} (shows the merge into one entry pointing at every copy's fact; "
        "--apply writes it)",
        start=15,
    ),
    CheckSpec(
        "privacy_coverage",
        ERROR,
        "Every fact matching the list or a detector carries private-person; no tag variants; under policy hide, "
        "no private fact visible to prefetch.",
        _REPAIR,
        start=2,
        moves_with_writers=True,
        tells_of_withheld_facts=True,
    ),
    CheckSpec(
        "memory_safe",
        WARN,
        "No memory entry holds instructions to the agent, exfiltration or credential paths (such facts are withheld).",
        "rewrite or remove the entry the detail names in MEMORY.md or USER.md (`memory-pipeline entries --profile {profile}` shows it)",
        start=13,
        moves_with_writers=True,
        tells_of_withheld_facts=True,
    ),
    CheckSpec(
        "cap_usage",
        WARN,
        "MEMORY.md and USER.md within 85% of their caps (over 100% is an error).",
        "memory-pipeline compact --profile {profile}",
        start=7,
    ),
    CheckSpec(
        "format_parity",
        WARN,
        "Hermes' own reader sees the same entries as the pipeline.",
        "make the edit the detail names in the memory file (`memory-pipeline entries --profile {profile}` shows both readings)",
        start=8,
    ),
    CheckSpec(
        "pointers_resolve",
        WARN,
        "Every fact_store#N pointer in the memory files names a fact the agent is given (not missing, retired or withheld).",
        "memory-pipeline compact --profile {profile} (or edit the pointer in the memory file)",
        start=6,
    ),
    CheckSpec(
        "quarantine_empty",
        WARN,
        "No extraction is waiting in quarantine.",
        "memory-pipeline sync --profile {profile} (quarantined entries are retried, each alone)",
        start=9,
    ),
    CheckSpec(
        "extraction_latency",
        WARN,
        "p95 seconds per extracted fact within the configured bound (default 10 s).",
        _EXTRACT_BENCH,
        start=10,
    ),
    CheckSpec(
        "extraction_json_valid",
        WARN,
        "Share of model replies that failed validation within the configured bound.",
        _EXTRACT_BENCH,
        start=11,
    ),
)
CHECK_SPECS = {spec.name: spec for spec in CHECK_REGISTRY}


def fix_command(check: str, profile: str, pending: bool = False) -> str:
    if pending:
        return f"memory-pipeline sync --profile {profile}"
    spec = CHECK_SPECS.get(check)
    return (spec.fix if spec else "memory-pipeline audit --profile {profile}").format(profile=profile)
