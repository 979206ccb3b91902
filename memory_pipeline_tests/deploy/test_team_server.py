"""The team server stood up from `deploy/` on this machine: a throwaway PostgreSQL cluster for run,
event and schedule storage, the instance from `deploy/dagster.yaml` with only the run launcher
swapped for Dagster's default (each run a subprocess of the code server: container images cannot
be built here), the code server from `deploy/workspace.yaml`, and the daemon and the webserver as
processes of their own. The file sensor syncs four profiles; a second request for one profile
waits for the first (the queue's per-profile limit); one run's worker is SIGKILLed (the run is
marked failed and retried); the daemon is SIGKILLed while runs are in flight, a memory file is
edited and a schedule tick passes while it is down, and it is started again (the missed tick's
runs sync the edit); everything is read back from Postgres and through GraphQL."""

import os
import re
import shutil
import signal
from datetime import UTC, datetime

import dagster as dg
import pytest
import yaml
from dagster._core.scheduler.instigation import InstigatorType, ScheduleInstigatorData

from memory_pipeline.cli import main
from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.lib.hermes.profiles import get_profile
from memory_pipeline.lib.store.settings import holographic_settings
from memory_pipeline_tests.support.servers import DEADLINE_S, REPOSITORY, GraphQL, free_ports, wait_for
from memory_pipeline_tests.support.store_helpers import active_facts, read_entries, write_entries
from memory_pipeline_tests.support.team_server import DEPLOY, PostgresMissing, Server, deployment_files, postgres_cluster

PROFILES = ["default", "work", "ops", "research"]
ASSETS = 9  # every asset of the job, materialized by each run
CHECKS = 17
ENDED = (dg.DagsterRunStatus.SUCCESS, dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED)
LAUNCH = """mutation($params: ExecutionParams!) { launchRun(executionParams: $params) { __typename
    ... on LaunchRunSuccess { run { runId } } ... on PythonError { message } } }"""
RUNS = "{ runsOrError { ... on Runs { results { runId status } } } }"
MISSED_ENTRY = "The ops profile pages the on-call engineer through the team's incident channel."


@pytest.fixture
def postgres():
    try:
        with postgres_cluster() as env:
            yield env
    except PostgresMissing as exc:
        pytest.fail(str(exc))


@pytest.fixture
def team_server(postgres, demo_home, tmp_path, monkeypatch):
    for extra in PROFILES[2:]:  # four profiles: the demo's two and two more like `work`
        shutil.copytree(demo_home / "profiles" / "work", demo_home / "profiles" / extra)
    code_port, web_port = free_ports(2)  # two ports taken one after the other could be the same one
    dagster_home = deployment_files(tmp_path, code_port)
    env = {**postgres, "DAGSTER_HOME": str(dagster_home), "HERMES_HOME": str(demo_home)}
    for name, value in env.items():  # this process reads the same instance
        monkeypatch.setenv(name, value)
    instance = dg.DagsterInstance.from_config(str(dagster_home))
    instance.add_dynamic_partitions(hermes_profiles.name, PROFILES)  # as the discovery sensor would

    server = Server(tmp_path, {**os.environ, **env})
    server.start_code_server(code_port)
    server.start_webserver(web_port)
    server.start_daemon()
    graphql = GraphQL(f"http://127.0.0.1:{web_port}")
    try:
        yield instance, server, graphql, demo_home
    finally:
        server.kill_all()
        instance.dispose()


def _overlapping(records) -> int:
    """The most runs that were executing at one moment."""
    moments = sorted([(r.start_time, 1) for r in records] + [(r.end_time, -1) for r in records])
    running = most = 0
    for _, step in moments:
        running += step
        most = max(most, running)
    return most


def _worker_mid_run(instance, profile: str) -> tuple[str, int] | None:
    """The first run of `profile` and its worker's pid, once the worker is executing a step."""
    runs = instance.get_runs(dg.RunsFilter(tags={"dagster/partition": profile}), ascending=True)
    if not runs:
        return None
    logs = instance.all_logs(runs[0].run_id)  # one read of the event log per look
    if not any(entry.dagster_event_type == dg.DagsterEventType.STEP_START for entry in logs):
        return None
    for entry in logs:
        if entry.dagster_event_type == dg.DagsterEventType.ENGINE_EVENT and (
            found := re.search(r"Started process for run \(pid: (\d+)\)", entry.message)
        ):
            return runs[0].run_id, int(found[1])
    return None


def _move_schedule_back(instance) -> datetime:
    """The schedule's stored state moved to just before its latest :00/:30 tick, as if the daemon
    had been down since then (waiting for a real tick would take up to 30 minutes); that tick."""

    def stored():
        states = instance.all_instigator_state(instigator_type=InstigatorType.SCHEDULE)
        return next((state for state in states if state.instigator_name == "memory_sync_schedule"), None)

    state = wait_for(stored, DEADLINE_S, "the schedule's stored state")
    now = datetime.now(UTC)
    missed = now.replace(minute=now.minute - now.minute % 30, second=0, microsecond=0)
    before = missed.timestamp() - 60
    data = ScheduleInstigatorData(state.instigator_data.cron_schedule, start_timestamp=before, last_iteration_timestamp=before)
    instance.update_instigator_state(state.with_data(data))
    return missed


def _synced(home, profile: str, entry: str) -> bool:
    """Whether `entry` is an active fact of the profile's store."""
    db = holographic_settings(get_profile(home, profile).home).db_path  # the store Hermes reads
    return db.exists() and entry in [content for _, content in active_facts(db)]


def test_the_deployment_syncs_profiles_at_once_one_run_per_profile_and_survives_killed_workers_and_daemon(team_server):
    instance, server, graphql, home = team_server
    # The file sensor's first look requests one run per profile; one more request for `default`
    # comes in through GraphQL while its first is queued or running.
    wait_for(lambda: instance.get_runs_count() >= len(PROFILES), DEADLINE_S, f"the file sensor's first runs: {server.log('daemon')}")
    launched = graphql(LAUNCH, params={
        "selector": {**REPOSITORY, "jobName": "memory_sync_job"},
        "executionMetadata": {"tags": [{"key": "dagster/partition", "value": "default"}]},
    })["launchRun"]  # fmt: skip
    assert launched["__typename"] == "LaunchRunSuccess", launched

    # `work`'s run worker dies mid-run: the run must end failed, not stay "started", and be retried.
    killed_run, pid = wait_for(lambda: _worker_mid_run(instance, "work"), DEADLINE_S, "`work`'s run worker")
    os.kill(pid, signal.SIGKILL)

    # The daemon dies with runs in flight. While it is down, `ops`'s MEMORY.md gains an entry and
    # a schedule tick passes; then it comes back.
    wait_for(lambda: instance.get_runs_count(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED])), DEADLINE_S, "a run in flight")
    server.kill("daemon")
    ops_memory = get_profile(home, "ops").memory_file("memory")
    write_entries(ops_memory, [*read_entries(ops_memory), MISSED_ENTRY])
    missed = _move_schedule_back(instance)
    server.start_daemon()

    def all_ended():
        records = instance.get_run_records()
        scheduled = [r for r in records if r.dagster_run.tags.get("dagster/schedule_name")]
        ended = all(r.dagster_run.status in ENDED for r in records)
        return records if len(scheduled) >= len(PROFILES) and ended and _synced(home, "ops", MISSED_ENTRY) else None

    records = wait_for(all_ended, DEADLINE_S, f"every run to end: {server.log('daemon')}")
    runs = {r.dagster_run.run_id: r.dagster_run for r in records}
    by_profile: dict[str, list] = {}
    for record in records:
        by_profile.setdefault(record.dagster_run.tags["dagster/partition"], []).append(record)
    assert sorted(by_profile) == sorted(PROFILES)

    # The killed run was marked failed and retried once, re-running every step; every other run succeeded.
    (retry,) = [run for run in runs.values() if run.parent_run_id == killed_run]
    assert runs[killed_run].status == dg.DagsterRunStatus.FAILURE
    assert retry.status == dg.DagsterRunStatus.SUCCESS and retry.tags["dagster/partition"] == "work"
    others = [run.status for run in runs.values() if run.run_id != killed_run]
    assert others == [dg.DagsterRunStatus.SUCCESS] * len(others), server.log("daemon")

    # The tick missed while the daemon was down ran for every profile once it was back (or a later
    # one, should a real :00 or :30 pass while the test runs: run keys are `schedule-<tick>-<profile>`).
    tick = missed.strftime("%Y%m%dT%H%M")
    keys = [(run.tags.get("dagster/run_key", ""), run.tags["dagster/partition"]) for run in runs.values()]
    assert {profile for key, profile in keys if key.startswith("schedule-") and key.split("-")[1] >= tick} == set(PROFILES)

    # Several profiles at once, never more than the queue allows, never two runs of one profile.
    assert 1 < _overlapping(records) <= yaml.safe_load((DEPLOY / "dagster.yaml").read_text())["run_queue"]["max_concurrent_runs"]
    for profile, profile_records in by_profile.items():
        ordered = sorted(profile_records, key=lambda r: r.start_time)
        assert all(b.start_time >= a.end_time for a, b in zip(ordered, ordered[1:], strict=False)), f"two runs of {profile} overlapped"
    first, second = sorted(by_profile["default"], key=lambda r: r.create_timestamp.timestamp())[:2]
    assert second.create_timestamp.timestamp() < first.end_time, "the two requests for `default` overlapped in time"

    # Every successful run's materializations and check results are in Postgres, and the UI's GraphQL shows every run.
    for run in runs.values():
        if run.status == dg.DagsterRunStatus.SUCCESS:
            assert len(instance.all_logs(run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)) == ASSETS
            assert len(instance.all_logs(run.run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION)) == CHECKS
    shown = {r["runId"]: r["status"] for r in graphql(RUNS)["runsOrError"]["results"]}
    assert {run_id: shown.get(run_id) for run_id in runs} == {run_id: run.status.value for run_id, run in runs.items()}

    # Every profile's store passes its audits afterwards, the one whose worker was killed too.
    for profile in PROFILES:
        assert main(["audit", "--hermes-home", str(home), "--profile", profile, "--json"]) == 0, profile
