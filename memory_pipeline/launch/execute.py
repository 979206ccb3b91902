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
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import dagster as dg

from memory_pipeline.defs.partitions import PROFILE_PARTITIONS
from memory_pipeline.launch.own_state import OutOfSpace
from memory_pipeline.lib.files.writing import out_of_space
from memory_pipeline.lib.sync.stages import EntryDiff
from memory_pipeline.runs.outputs import EntryChange
from memory_pipeline.runs.result import ProfileRun, run_result

SYNC_JOB = "memory_sync_job"
# Which process runs a CLI run: a run whose process died (SIGKILL, power cut) is found by them.
PID_TAG, HOST_TAG = "memory-pipeline/pid", "memory-pipeline/host"
# Who launched a run, readable in the UI's runs list (Dagster's own says only "Manually launched").
LAUNCHED_BY_TAG = "memory_pipeline/launched_by"


def sync_job() -> dg.JobDefinition:
    """The job, resolved from the code location (module level, so Dagster can reconstruct it)."""
    from memory_pipeline.definitions import defs

    return defs.resolve_job_def(SYNC_JOB)


def sync_job_allowing_remote_ollama() -> dg.JobDefinition:
    """The same job with an extractor allowed off this machine, for a command given
    `--allow-remote-ollama`: chosen here, where the command started, never by a run's config."""
    from memory_pipeline.definitions import allowing_remote_ollama

    return allowing_remote_ollama().resolve_job_def(SYNC_JOB)


def _changes(instance: dg.DagsterInstance, profile: str) -> list[EntryChange]:
    """The rows of the profile's diff that are not `unchanged`, read back through the IO manager
    (the run just stored it); its own debug lines are kept off the terminal."""
    from memory_pipeline.definitions import defs

    try:
        with contextlib.redirect_stderr(io.StringIO()):  # Dagster's console logger writes the load's debug lines there
            value = defs.load_asset_value("ledger_diff", partition_key=profile, instance=instance)
    except (dg.DagsterError, OSError, EOFError):  # the diff step did not run: nothing to name
        return []
    if not isinstance(value, EntryDiff):
        return []
    diff = value.frame
    changed = diff.loc[diff["status"] != "unchanged"]
    return [
        EntryChange(row.entry_id, row.source, row.status, _text(row.matched_entry_id) or None, _text(row.text))
        for row in changed.itertuples(index=False)
    ]


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""  # pandas gives NaN for a missing one


def resources_config(hermes_home: Path, resource_config: dict[str, dict] | None) -> dict:
    resources = {key: {"config": config} for key, config in (resource_config or {}).items()}
    hermes = resources.setdefault("hermes", {"config": {}})
    hermes["config"] = {**hermes["config"], "hermes_home": str(hermes_home)}
    return {"resources": resources}


def profile_run(
    instance: dg.DagsterInstance,
    events: Sequence[dg.DagsterEvent],
    run_id: str,
    profile: str,
    success: bool,
    duration_s: float,
    *,
    with_changes: bool = False,
) -> ProfileRun:
    """`run_result`, with the entries the run found changed when asked (read back from the run)."""
    return run_result(events, run_id, profile, success, duration_s, _changes(instance, profile) if with_changes and success else [])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """Killed but not yet reaped by its parent (a worker started by a process that lives on):
    signals still reach it, yet it runs nothing. Read from Linux's /proc; elsewhere, never."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    fields = stat.rpartition(")")[2].split()
    return bool(fields) and fields[0] == "Z"


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
    allow_remote_ollama: bool = False,
    on_start: Callable[[str], None] | None = None,
    on_done: Callable[[ProfileRun], None] | None = None,
) -> list[ProfileRun]:
    """One run per profile partition (partitions are independent), in order. `resource_config`
    sets resource fields for these runs, as the UI's launchpad would (e.g. the extractor);
    `assets` narrows the run to some of the job's assets (e.g. only re-tagging). `with_changes`
    reads back which entries the diff found changed (for naming them); `allow_remote_ollama` is the
    permission the command was started with (`SyncOptions`); `on_start` / `on_done`
    hear of each profile as it starts and ends (progress on a terminal)."""
    fail_dead_runs(instance)
    known = set(instance.get_dynamic_partitions(PROFILE_PARTITIONS))
    missing = [p for p in profiles if p not in known]
    if missing:
        instance.add_dynamic_partitions(PROFILE_PARTITIONS, missing)
    job = dg.reconstructable(sync_job_allowing_remote_ollama if allow_remote_ollama else sync_job)
    run_config = {
        **resources_config(hermes_home, resource_config),
        # The CLI speaks for itself; Dagster's event log stays in the instance for the UI.
        "loggers": {"console": {"config": {"log_level": "CRITICAL"}}},
    }
    runs = []
    for profile in profiles:
        if on_start is not None:
            on_start(profile)
        selection = [dg.AssetKey(name) for name in assets] if assets else None
        runs.append(_execute(instance, job, run_config, selection, profile, with_changes=with_changes))
        if on_done is not None:
            on_done(runs[-1])
    return runs


def _execute(instance: dg.DagsterInstance, job, run_config: dict, selection, profile: str, *, with_changes: bool) -> ProfileRun:
    """One profile's run. Dagster writes a failure to record an event straight to stderr: kept
    aside, so a full disk is one line (the run's error, or `OutOfSpace` when the run could not be
    recorded at all) instead of a traceback per event; anything else it wrote is passed on."""
    started, captured = time.perf_counter(), io.StringIO()
    tags = {"dagster/partition": profile, LAUNCHED_BY_TAG: "cli", PID_TAG: str(os.getpid()), HOST_TAG: socket.gethostname()}
    try:
        with (
            contextlib.redirect_stderr(captured),
            dg.execute_job(job, instance, run_config=run_config, asset_selection=selection, tags=tags) as result,
        ):
            run = profile_run(
                instance,
                result.all_events,
                result.run_id,
                profile,
                result.success,
                time.perf_counter() - started,
                with_changes=with_changes,
            )
    except Exception as exc:
        if out_of_space(exc):
            raise OutOfSpace(
                Path(instance.root_directory), "Dagster could not record the run; the store is as the last write left it"
            ) from None
        raise
    finally:
        if captured.getvalue() and not out_of_space(captured.getvalue()):
            sys.stderr.write(captured.getvalue())
    if out_of_space(captured.getvalue()):
        where = Path(instance.root_directory) / "history"
        note = (
            f"{where}: No space left on device (Dagster could not record some of the run's events); free some space there, then sync again"
        )
        run = replace(run, success=False, error=run.error or note)
    return run
