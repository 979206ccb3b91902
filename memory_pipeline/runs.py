"""Running `memory_sync_job` in-process for profiles: the path `memory-pipeline sync` takes.

It is the same job, assets and resources the UI runs; only the Hermes home is given as run config.
`execute_job` (not `execute_in_process`, which keeps every step's output in memory for the result)
so a 100k-entry first sync stays within its memory budget.
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg

from memory_pipeline.defs.partitions import hermes_profiles

SYNC_JOB = "memory_sync_job"
# Which process runs a CLI run: a run whose process died (SIGKILL, power cut) is found by them.
PID_TAG, HOST_TAG = "memory-pipeline/pid", "memory-pipeline/host"


@dataclass
class ProfileRun:
    profile: str
    success: bool
    run_id: str
    duration_s: float
    metadata: dict[str, dict[str, object]] = field(default_factory=dict)  # asset -> plain metadata
    checks: list[tuple[str, bool, str]] = field(default_factory=list)  # (check, passed, "ERROR"/"WARN")
    error: str | None = None
    details: dict[str, str] = field(default_factory=dict)  # failing check -> its detail (counts, never text)
    # The entries that were not unchanged (entry_id, source, status, text, matched_entry_id), when asked for.
    changes: list[dict] = field(default_factory=list)

    @property
    def failing_errors(self) -> list[str]:
        return [name for name, passed, severity in self.checks if not passed and severity == "ERROR"]

    @property
    def failing_warnings(self) -> list[str]:
        return [name for name, passed, severity in self.checks if not passed and severity == "WARN"]


def _plain(value: object) -> object:
    return getattr(value, "value", value)


def sync_job() -> dg.JobDefinition:
    """The job, resolved from the code location (module level, so Dagster can reconstruct it)."""
    from memory_pipeline.definitions import defs

    return defs.resolve_job_def(SYNC_JOB)


def _failure_message(result, evaluations) -> str:
    """One line: a `Failure`'s description, else the innermost error's first line; a blocking
    check's failure (Dagster's message ends at a colon) gets that check's own detail."""
    message = _step_failure(result)
    if message.endswith(":"):
        details = [
            f"{e.check_name}: {e.description}" for e in evaluations if not e.passed and e.severity.value == "ERROR" and e.description
        ]
        message = f"{message} {'; '.join(details)}" if details else message.rstrip(":")
    return message


def _step_failure(result) -> str:
    for event in result.all_events:
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


def _changes(instance: dg.DagsterInstance, profile: str) -> list[dict]:
    """The rows of the profile's diff that are not `unchanged`, read back through the IO manager
    (the run just stored it); its own debug lines are kept off the terminal."""
    from memory_pipeline.definitions import defs

    try:
        with contextlib.redirect_stderr(io.StringIO()):  # Dagster's console logger writes the load's debug lines there
            diff = defs.load_asset_value("ledger_diff", partition_key=profile, instance=instance).frame
    except (dg.DagsterError, OSError, EOFError):  # the diff step did not run: nothing to name
        return []
    columns = ["entry_id", "source", "status", "text", "matched_entry_id"]
    return diff.loc[diff["status"] != "unchanged", columns].to_dict("records")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


def fail_dead_runs(instance: dg.DagsterInstance) -> list[str]:
    """Mark failed the runs this machine's CLI started whose process is gone (killed mid-run, they
    would stay STARTED for ever and hold the local run queue); their ids."""
    unfinished = [dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.STARTING]
    failed = []
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=unfinished, tags={HOST_TAG: socket.gethostname()})):
        pid = int(run.tags.get(PID_TAG, "0") or 0)
        if pid and not _alive(pid):
            instance.report_run_failed(run, f"the process that ran it (pid {pid}) is gone; marked failed by the next sync")
            failed.append(run.run_id)
    return failed


def run_sync(
    instance: dg.DagsterInstance,
    hermes_home: Path,
    profiles: list[str],
    resource_config: dict[str, dict] | None = None,
    assets: list[str] | None = None,
    *,
    with_changes: bool = False,
    on_start: Callable[[str], None] | None = None,
    on_done: Callable[[ProfileRun], None] | None = None,
) -> list[ProfileRun]:
    """One run per profile partition (partitions are independent), in order. `resource_config`
    sets resource fields for these runs, as the UI's launchpad would (e.g. the extractor);
    `assets` narrows the run to some of the job's assets (e.g. only re-tagging). `with_changes`
    reads back which entries the diff found changed (for naming them); `on_start` / `on_done`
    hear of each profile as it starts and ends (progress on a terminal)."""
    fail_dead_runs(instance)
    known = set(instance.get_dynamic_partitions(hermes_profiles.name))
    missing = [p for p in profiles if p not in known]
    if missing:
        instance.add_dynamic_partitions(hermes_profiles.name, missing)
    job = dg.reconstructable(sync_job)
    run_config = {
        "resources": {
            "hermes": {"config": {"hermes_home": str(hermes_home)}},
            **{key: {"config": config} for key, config in (resource_config or {}).items()},
        },
        # The CLI speaks for itself; Dagster's event log stays in the instance for the UI.
        "loggers": {"console": {"config": {"log_level": "CRITICAL"}}},
    }
    runs = []
    for profile in profiles:
        if on_start is not None:
            on_start(profile)
        started = time.perf_counter()
        selection = [dg.AssetKey(name) for name in assets] if assets else None
        with dg.execute_job(
            job,
            instance,
            run_config=run_config,
            asset_selection=selection,
            tags={"dagster/partition": profile, PID_TAG: str(os.getpid()), HOST_TAG: socket.gethostname()},
        ) as result:
            metadata = {
                event.asset_key.to_user_string(): {k: _plain(v) for k, v in event.materialization.metadata.items()}
                for event in result.get_asset_materialization_events()
            }
            evaluations = [event.event_specific_data for event in result.all_events if event.event_type_value == "ASSET_CHECK_EVALUATION"]
            checks = [(e.check_name, e.passed, e.severity.value) for e in evaluations]
            runs.append(
                ProfileRun(
                    profile=profile,
                    success=result.success,
                    run_id=result.run_id,
                    duration_s=time.perf_counter() - started,
                    metadata=metadata,
                    checks=checks,
                    error=None if result.success else _failure_message(result, evaluations),
                    changes=_changes(instance, profile) if with_changes and result.success else [],
                    details={e.check_name: e.description or "" for e in evaluations if not e.passed},
                )
            )
        if on_done is not None:
            on_done(runs[-1])
    return runs
