"""The team server stood up from `deploy/` on this machine: a throwaway PostgreSQL cluster for run,
event and schedule storage, the instance from `deploy/dagster.yaml` with only the run launcher
swapped for Dagster's default (each run a subprocess of the code server: container images cannot
be built here), the code server from `deploy/workspace.yaml`, and the daemon and the webserver as
processes of their own. The file sensor syncs four profiles; a second request for one profile
waits for the first (the queue's per-profile limit); the daemon is SIGKILLed while runs are in
flight and started again; everything is read back from Postgres and through GraphQL."""

import os
import shutil

import dagster as dg
import pytest
import yaml

from memory_pipeline.cli import main
from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline_tests.servers import REPOSITORY, GraphQL, free_port, wait_for
from memory_pipeline_tests.team_server import DEPLOY, PostgresMissing, Server, deployment_files, postgres_cluster

PROFILES = ["default", "work", "ops", "research"]
ASSETS = 8  # every asset of the job, materialized by each run
CHECKS = 12
ENDED = (dg.DagsterRunStatus.SUCCESS, dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED)
LAUNCH = """mutation($params: ExecutionParams!) { launchRun(executionParams: $params) { __typename
    ... on LaunchRunSuccess { run { runId } } ... on PythonError { message } } }"""
RUNS = "{ runsOrError { ... on Runs { results { runId status tags { key value } } } } }"


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
    code_port, web_port = free_port(), free_port()
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


def test_the_deployment_syncs_profiles_at_once_one_run_per_profile_and_survives_a_killed_daemon(team_server):
    instance, server, graphql, home = team_server
    # The file sensor's first look requests one run per profile; one more request for `default`
    # comes in while its first is queued or running.
    wait_for(lambda: instance.get_runs_count(), 60, f"the file sensor's first runs: {server.log('daemon')}")
    launched = graphql(LAUNCH, params={
        "selector": {**REPOSITORY, "jobName": "memory_sync_job"},
        "executionMetadata": {"tags": [{"key": "dagster/partition", "value": "default"}]},
    })["launchRun"]  # fmt: skip
    assert launched["__typename"] == "LaunchRunSuccess", launched

    # The daemon dies with runs in flight, and comes back.
    wait_for(lambda: instance.get_runs_count(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED])), 60, "a run in flight")
    server.kill("daemon")
    server.start_daemon()

    def all_ended():
        records = instance.get_run_records()
        return records if len(records) >= len(PROFILES) + 1 and all(r.dagster_run.status in ENDED for r in records) else None

    records = wait_for(all_ended, 120, f"every run to end: {server.log('daemon')}")
    by_profile: dict[str, list] = {}
    for record in records:
        by_profile.setdefault(record.dagster_run.tags["dagster/partition"], []).append(record)
    assert sorted(by_profile) == sorted(PROFILES)
    assert [r.dagster_run.status for r in records] == [dg.DagsterRunStatus.SUCCESS] * len(records), server.log("daemon")

    # Several profiles at once, never more than the queue allows, never two of one profile.
    assert 1 < _overlapping(records) <= yaml.safe_load((DEPLOY / "dagster.yaml").read_text())["run_queue"]["max_concurrent_runs"]
    first, second = sorted(by_profile["default"], key=lambda r: r.create_timestamp.timestamp())[:2]
    assert second.create_timestamp.timestamp() < first.end_time, "the two requests for `default` overlapped in time"
    assert second.start_time >= first.end_time, "…but its runs did not"

    # Every run's materializations and check results are in Postgres, and the UI's GraphQL shows every run.
    for record in records:
        run_id = record.dagster_run.run_id
        assert len(instance.all_logs(run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)) == ASSETS
        assert len(instance.all_logs(run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION)) == CHECKS
    shown = {r["runId"]: r["status"] for r in graphql(RUNS)["runsOrError"]["results"]}
    assert shown == {r.dagster_run.run_id: "SUCCESS" for r in records}

    # Every profile's store passes its audits afterwards.
    for profile in PROFILES:
        assert main(["audit", "--hermes-home", str(home), "--profile", profile, "--json"]) == 0, profile
