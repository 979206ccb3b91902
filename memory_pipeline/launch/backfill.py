"""Waiting for the re-tag backfill on a running Dagster daemon: the path `memory-pipeline sync
--retag` takes when the UI or a server runs (the keyword-list sensor launches the same backfill)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import dagster as dg

from memory_pipeline.launch.execute import profile_run, resources_config
from memory_pipeline.runs.result import ProfileRun


class BackfillNotFinished(Exception):
    """The daemon stopped, or took too long, before a submitted backfill ended. One line."""


class BackfillNotTaken(Exception):
    """No daemon took the backfill within `TAKEN_WITHIN_S`: it was canceled, the caller runs the re-tag itself."""


# A daemon beats every 30 s; Dagster calls one healthy for 30 minutes after its last beat, long
# after the UI stopped. Three missed beats is a daemon that is gone.
HEARTBEAT_FRESH_S = 90.0
# How long a submitted re-tag may wait for the daemon to launch its first run: its backfill loop
# looks every 30 s, so a live daemon launches within one loop and a little.
TAKEN_WITHIN_S = 45.0


_BACKFILL_ENDED = {"COMPLETED", "COMPLETED_SUCCESS", "COMPLETED_FAILED", "FAILED", "CANCELED"}
_BACKFILL_ID_TAG = "dagster/backfill"  # Dagster's own tag on every run a backfill launches


def daemon_runs_backfills(instance: dg.DagsterInstance) -> bool:
    """Whether a Dagster daemon (the UI's, or a server's) is alive on this instance to run a
    backfill: its backfill loop beat within `HEARTBEAT_FRESH_S`, read now."""
    beat = instance.get_daemon_heartbeats().get("BACKFILL")
    return beat is not None and time.time() - beat.timestamp <= HEARTBEAT_FRESH_S


def run_retag_backfill(
    instance: dg.DagsterInstance,
    hermes_home: Path,
    profiles: list[str],
    lists_digest: str,
    resource_config: dict[str, dict] | None = None,
    *,
    on_start: Callable[[str], None] | None = None,
    on_done: Callable[[ProfileRun], None] | None = None,
    timeout_s: float = 900.0,
) -> tuple[str, list[ProfileRun]]:
    """The re-tag as one backfill on the running daemon (what the keyword-list sensor launches),
    waited for; its id and what each profile's run did. An identical backfill still running (the
    sensor saw the same edit) is waited for instead of a second one. Each profile is heard of as
    its run starts and as it ends."""
    from memory_pipeline.defs.backfills import cancel_untaken, retag_in_progress, submit_retag_backfill

    backfill_id = retag_in_progress(instance, lists_digest, profiles) or submit_retag_backfill(
        instance, profiles, lists_digest, resources_config(hermes_home, resource_config)
    )
    submitted = time.monotonic()
    deadline = submitted + timeout_s
    done: dict[str, ProfileRun] = {}
    started: set[str] = set()
    while len(done) < len(profiles):
        backfill = instance.get_backfill(backfill_id)
        status = backfill.status.value if backfill is not None else "CANCELED"  # gone: as good as canceled
        for profile in (p for p in profiles if p not in done):
            run = _backfill_run(instance, backfill_id, profile)
            if run is not None and profile not in started:
                started.add(profile)
                if on_start is not None:
                    on_start(profile)
            if (run is not None and run.is_finished) or (run is None and status in _BACKFILL_ENDED):
                done[profile] = _profile_result(instance, backfill_id, status, profile, run)
                if on_done is not None:
                    on_done(done[profile])
        if not started and not done and time.monotonic() - submitted > TAKEN_WITHIN_S:
            cancel_untaken(instance, backfill_id)
            raise BackfillNotTaken(backfill_id)
        if len(done) < len(profiles) and (time.monotonic() > deadline or not daemon_runs_backfills(instance)):
            raise BackfillNotFinished(
                f"backfill {backfill_id} is still {status.lower()}: the Dagster daemon stopped or is slow; the UI's Backfills view shows it"
            )
        if len(done) < len(profiles):
            time.sleep(0.5)
    return backfill_id, [done[p] for p in profiles]


def _backfill_run(instance: dg.DagsterInstance, backfill_id: str, profile: str) -> dg.DagsterRun | None:
    found = instance.get_runs(filters=dg.RunsFilter(tags={_BACKFILL_ID_TAG: backfill_id, "dagster/partition": profile}), limit=1)
    return found[0] if found else None


def _profile_result(instance: dg.DagsterInstance, backfill_id: str, status: str, profile: str, run: dg.DagsterRun | None) -> ProfileRun:
    if run is None:
        return ProfileRun(profile, False, "", 0.0, error=f"backfill {backfill_id} ({status.lower()}) ran nothing for {profile}")
    stats = instance.get_run_stats(run.run_id)
    events = [entry.dagster_event for entry in instance.all_logs(run.run_id) if entry.dagster_event is not None]
    success = run.status == dg.DagsterRunStatus.SUCCESS
    return profile_run(instance, events, run.run_id, profile, success, (stats.end_time or 0.0) - (stats.start_time or 0.0))
