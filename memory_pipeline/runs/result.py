"""What a finished run of `memory_sync_job` did for one profile (`ProfileRun`): read once from its
events, by the CLI for the runs it executes, by the backfill waiter and by the sensor that records
the daemon's runs; every caller reads this one typed value. Imports nothing of the code location,
so the definitions' own sensors can use it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import dagster as dg

from memory_pipeline.lib.sync.state import FailingCheck, RunInputs
from memory_pipeline.runs.outputs import EntryChange, RetagChange
from memory_pipeline.runs.stage_reports import RunOutputs


@dataclass(frozen=True)
class CheckOutcome:
    """One check's evaluation in the run; its detail holds counts and ids, never text."""

    name: str
    passed: bool
    severity: str  # ERROR or WARN
    blocking: bool = False  # a failure stopped the run before any write
    detail: str = ""


@dataclass(frozen=True)
class ProfileRun:
    profile: str
    success: bool
    run_id: str
    duration_s: float
    outputs: RunOutputs = field(default_factory=RunOutputs)  # the run's metadata, read once into typed fields
    checks: tuple[CheckOutcome, ...] = ()
    error: str | None = None
    changes: tuple[EntryChange, ...] = ()  # the entries that were not unchanged, when asked for

    @property
    def failing(self) -> list[FailingCheck]:
        """Each failing check with its severity and detail."""
        return [FailingCheck(c.name, c.severity, c.detail) for c in self.checks if not c.passed]

    @property
    def failing_errors(self) -> list[str]:
        return [c.name for c in self.failing if c.severity == "ERROR"]

    @property
    def failing_warnings(self) -> list[str]:
        return [c.name for c in self.failing if c.severity == "WARN"]

    @property
    def stopped_by_a_blocking_check(self) -> bool:
        """A run a blocking check stopped before any write (a corrupt ledger): the same inputs
        stop it again, until a person's fix."""
        return not self.success and any(not c.passed and c.blocking for c in self.checks)

    @property
    def retry_can_fix(self) -> bool:
        """Whether the same inputs run again may end otherwise: a failed run (but one a blocking check
        stopped), entries waiting in quarantine, a memory file that could not be read. Any other
        failing check stands until the files, the store or the settings change (a person's fix
        changes them)."""
        if self.stopped_by_a_blocking_check:
            return False
        return not self.success or self.outputs.report.quarantined > 0 or bool(self.outputs.parse.unreadable)

    def inputs_read(self) -> RunInputs | None:
        """What the run read of the files, the store and the keyword list; None unless it read
        all three and no other writer changed the store while it ran."""
        parse, audit, privacy = self.outputs.parse, self.outputs.audit, self.outputs.privacy
        if not (parse.files_sha256 and audit.store_in_step and privacy.keyword_list_digest):
            return None
        return RunInputs(parse.files_sha256, audit.store_watermark, privacy.keyword_list_digest)

    def problems(self) -> list[str]:
        """One line per thing about the run itself a person must look at, each ending with the way out."""
        if self.error:
            return [f"sync of profile {self.profile} failed: {self.error}"]
        found = []
        unreadable, missing, held = self.outputs.parse.unreadable, self.outputs.parse.missing, self.outputs.diff.held_unreadable_entries
        if unreadable:
            found.append(
                f"profile {self.profile}: skipped, entries held: {unreadable} (see `memory-pipeline entries --profile {self.profile}`)"
            )
        if held and missing:
            found.append(
                f"profile {self.profile}: {held} synced entries held because {missing} is missing; create it (even empty) to let them go"
            )
        return found

    def retag_change(self) -> RetagChange:
        read = self.outputs.privacy
        return RetagChange(
            read.tagged, [str(i) for i in read.newly_private_ids], read.untagged, [str(i) for i in read.no_longer_private_ids]
        )


def materialized_metadata(events: Sequence[dg.DagsterEvent]) -> dict[str, dict[str, object]]:
    """Each asset's metadata as plain values (asset -> name -> value), as the UI shows it."""
    return {
        event.asset_key.to_user_string(): {k: getattr(v, "value", v) for k, v in event.materialization.metadata.items()}
        for event in events
        if event.is_step_materialization and event.asset_key is not None
    }


def _failure_message(events: Sequence[dg.DagsterEvent], checks: list[CheckOutcome]) -> str:
    """One line: a `Failure`'s description, else the innermost error's first line; a blocking
    check's failure (Dagster's message ends at a colon) gets that check's own detail."""
    message = _step_failure(events)
    if message.endswith(":"):
        details = [f"{c.name}: {c.detail}" for c in checks if not c.passed and c.severity == "ERROR" and c.detail]
        message = f"{message} {'; '.join(details)}" if details else message.rstrip(":")
    return message


def _step_failure(events: Sequence[dg.DagsterEvent]) -> str:
    for event in events:
        if not (event.is_step_failure and event.step_failure_data):
            continue
        data = event.step_failure_data
        if data.user_failure_data and data.user_failure_data.description:
            return data.user_failure_data.description.splitlines()[0]
        error = data.error
        while error is not None and error.cause is not None:
            error = error.cause
        if error is not None:
            return f"{event.step_key}: {error.message.strip().splitlines()[0]}"
    return "run failed"


def _checks(events: Sequence[dg.DagsterEvent]) -> list[CheckOutcome]:
    evaluations = [e.event_specific_data for e in events if e.event_type_value == "ASSET_CHECK_EVALUATION"]
    return [
        CheckOutcome(e.check_name, e.passed, e.severity.value, bool(e.blocking), "" if e.passed else (e.description or ""))
        for e in evaluations
        if isinstance(e, dg.AssetCheckEvaluation)
    ]


def run_result(
    events: Sequence[dg.DagsterEvent],
    run_id: str,
    profile: str,
    success: bool,
    duration_s: float,
    changes: list[EntryChange] | None = None,
) -> ProfileRun:
    """What a finished run of one profile did, from its events: the result's own for a run this
    process executed, the event log's for one the daemon ran (a backfill, a scheduled run)."""
    checks = _checks(events)
    return ProfileRun(
        profile=profile,
        success=success,
        run_id=run_id,
        duration_s=duration_s,
        outputs=RunOutputs.from_metadata(materialized_metadata(events)),
        checks=tuple(checks),
        error=None if success else _failure_message(events, checks),
        changes=tuple(changes or ()),
    )
