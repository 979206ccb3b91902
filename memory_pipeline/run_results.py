"""What a finished run of `memory_sync_job` did for one profile (`ProfileRun`), read from its
events: by the CLI for the runs it executes, by the backfill waiter and by the sensor that records
the daemon's runs. Imports nothing of the code location, so the definitions' own sensors can use it."""

from __future__ import annotations

from dataclasses import dataclass, field

import dagster as dg

from memory_pipeline.defs.checks import BLOCKING
from memory_pipeline.lib.sync.state import FailingCheck, RunInputs
from memory_pipeline.run_outputs import EntryChange, RunOutputs, read_outputs


@dataclass
class ProfileRun:
    profile: str
    success: bool
    run_id: str
    duration_s: float
    metadata: dict[str, dict[str, object]] = field(default_factory=dict)  # asset -> plain metadata, as the UI shows it
    outputs: RunOutputs = field(default_factory=RunOutputs)  # the same, read once into typed fields
    checks: list[tuple[str, bool, str]] = field(default_factory=list)  # (check, passed, "ERROR"/"WARN")
    error: str | None = None
    details: dict[str, str] = field(default_factory=dict)  # failing check -> its detail (counts, never text)
    changes: list[EntryChange] = field(default_factory=list)  # the entries that were not unchanged, when asked for

    @property
    def failing_errors(self) -> list[str]:
        return [name for name, passed, severity in self.checks if not passed and severity == "ERROR"]

    @property
    def failing_warnings(self) -> list[str]:
        return [name for name, passed, severity in self.checks if not passed and severity == "WARN"]

    @property
    def failing(self) -> list[FailingCheck]:
        """Each failing check with its severity and detail."""
        return [FailingCheck(name, severity, self.details.get(name, "")) for name, passed, severity in self.checks if not passed]

    @property
    def stopped_by_a_blocking_check(self) -> bool:
        """A run a blocking check stopped before any write (a corrupt ledger): the same inputs
        stop it again, until a person's fix."""
        return not self.success and any(not passed and name in BLOCKING for name, passed, _ in self.checks)

    def inputs_read(self) -> RunInputs | None:
        """What the run read of the files, the store and the keyword list; None unless it read
        all three and no other writer changed the store while it ran."""
        read = self.outputs
        if not (read.files_sha256 and read.store_in_step and read.keyword_list_digest):
            return None
        return RunInputs(read.files_sha256, read.store_watermark, read.keyword_list_digest)


def _plain(value: object) -> object:
    return getattr(value, "value", value)


def _failure_message(events: list[dg.DagsterEvent], evaluations) -> str:
    """One line: a `Failure`'s description, else the innermost error's first line; a blocking
    check's failure (Dagster's message ends at a colon) gets that check's own detail."""
    message = _step_failure(events)
    if message.endswith(":"):
        details = [
            f"{e.check_name}: {e.description}" for e in evaluations if not e.passed and e.severity.value == "ERROR" and e.description
        ]
        message = f"{message} {'; '.join(details)}" if details else message.rstrip(":")
    return message


def _step_failure(events: list[dg.DagsterEvent]) -> str:
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


def run_result(
    events: list[dg.DagsterEvent], run_id: str, profile: str, success: bool, duration_s: float, changes: list[EntryChange] | None = None
) -> ProfileRun:
    """What a finished run of one profile did, from its events: the result's own for a run this
    process executed, the event log's for one the daemon ran (a backfill, a scheduled run)."""
    metadata = {
        event.asset_key.to_user_string(): {k: _plain(v) for k, v in event.materialization.metadata.items()}
        for event in events
        if event.is_step_materialization
    }
    evaluations = [event.event_specific_data for event in events if event.event_type_value == "ASSET_CHECK_EVALUATION"]
    return ProfileRun(
        profile=profile,
        success=success,
        run_id=run_id,
        duration_s=duration_s,
        metadata=metadata,
        outputs=read_outputs(metadata),
        checks=[(e.check_name, e.passed, e.severity.value) for e in evaluations],
        error=None if success else _failure_message(events, evaluations),
        changes=changes or [],
        details={e.check_name: e.description or "" for e in evaluations if not e.passed},
    )
