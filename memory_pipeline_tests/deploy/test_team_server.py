"""The team server stood up from `deploy/` on this machine: a throwaway PostgreSQL cluster for run,
event and schedule storage, the instance from `deploy/dagster.yaml` with only the run launcher
swapped for Dagster's default (each run a subprocess of the code server: container images cannot
be built here), the code server from `deploy/workspace.yaml`, and the daemon and the webserver as
processes of their own. The file sensor syncs four profiles; a second request for one profile
waits for the first (the queue's per-profile limit); the daemon is SIGKILLed while runs are in
flight and started again; everything is read back from Postgres and through GraphQL."""

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import dagster as dg
import pytest
import yaml

from memory_pipeline.cli import main
from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.lib.hermes.profiles import REPO_ROOT
from memory_pipeline_tests.servers import REPOSITORY, GraphQL, free_port, wait_for

DEPLOY = REPO_ROOT / "deploy"
PROFILES = ["default", "work", "ops", "research"]
BIN = Path(sys.executable).parent
ASSETS = 8  # every asset of the job, materialized by each run
CHECKS = 12
ENDED = (dg.DagsterRunStatus.SUCCESS, dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED)
LAUNCH = """mutation($params: ExecutionParams!) { launchRun(executionParams: $params) { __typename
    ... on LaunchRunSuccess { run { runId } } ... on PythonError { message } } }"""
RUNS = "{ runsOrError { ... on Runs { results { runId status tags { key value } } } } }"


def _postgres_tool(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        pytest.fail("PostgreSQL is needed for the team-server test: Debian package `postgresql` (`make test` and .ci/run install it)")
    return found


def _as_postgres_user(command: list[str]) -> list[str]:
    # PostgreSQL refuses to run as root: then the throwaway cluster belongs to `nobody`.
    return ["runuser", "-u", "nobody", "--", *command] if os.geteuid() == 0 else command


@pytest.fixture
def postgres():
    """A PostgreSQL cluster of its own on a loopback port, thrown away afterwards."""
    # Under /tmp itself: the `nobody` user must reach it, and the tests' own temporary root is private.
    directory = Path(tempfile.mkdtemp(prefix="memory-pipeline-pg-", dir="/tmp"))
    if os.geteuid() == 0:
        os.chown(directory, pwd.getpwnam("nobody").pw_uid, -1)
    data, port, pg_ctl = directory / "data", free_port(), _postgres_tool("pg_ctl")
    initdb = [_postgres_tool("initdb"), "-D", str(data), "-U", "dagster", "--auth=trust", "-E", "UTF8", "--no-sync"]
    subprocess.run(_as_postgres_user(initdb), check=True, capture_output=True)
    server = f"-p {port} -k {directory} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(_as_postgres_user([pg_ctl, "-D", str(data), "-l", str(directory / "log"), "-w", "-o", server, "start"]), check=True)
    try:
        yield {
            "DAGSTER_POSTGRES_HOST": "127.0.0.1",
            "DAGSTER_POSTGRES_PORT": str(port),
            "DAGSTER_POSTGRES_USER": "dagster",
            "DAGSTER_POSTGRES_PASSWORD": "unused",  # trust authentication on loopback
            "DAGSTER_POSTGRES_DB": "postgres",
        }
    finally:
        subprocess.run(_as_postgres_user([pg_ctl, "-D", str(data), "-m", "immediate", "stop"]), capture_output=True)
        shutil.rmtree(directory, ignore_errors=True)


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


class Server:
    """The deployment's processes, each in its own process group (killed whole at the end)."""

    def __init__(self, directory: Path, env: dict[str, str]):
        self.directory, self.env, self.processes = directory, env, {}

    def start(self, name: str, *command: str) -> None:
        log = (self.directory / f"{name}.log").open("a")
        self.processes[name] = subprocess.Popen(
            command, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=self.directory
        )

    def kill(self, name: str) -> None:
        process = self.processes.pop(name)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def log(self, name: str) -> str:
        return (self.directory / f"{name}.log").read_text(errors="replace")[-3000:]


@pytest.fixture
def team_server(postgres, demo_home, tmp_path, monkeypatch):
    for extra in PROFILES[2:]:  # four profiles: the demo's two and two more like `work`
        shutil.copytree(demo_home / "profiles" / "work", demo_home / "profiles" / extra)
    dagster_home = tmp_path / "dagster_home"
    dagster_home.mkdir()
    config = yaml.safe_load((DEPLOY / "dagster.yaml").read_text(encoding="utf-8"))
    del config["run_launcher"]  # Dagster's default launcher: a subprocess per run, where Docker's would start a container
    (dagster_home / "dagster.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    code_port, web_port = free_port(), free_port()
    workspace = yaml.safe_load((DEPLOY / "workspace.yaml").read_text(encoding="utf-8"))
    workspace["load_from"][0]["grpc_server"].update(host="127.0.0.1", port=code_port)
    (tmp_path / "workspace.yaml").write_text(yaml.safe_dump(workspace), encoding="utf-8")
    env = {**postgres, "DAGSTER_HOME": str(dagster_home), "HERMES_HOME": str(demo_home)}
    for name, value in env.items():  # this process reads the same instance
        monkeypatch.setenv(name, value)
    instance = dg.DagsterInstance.from_config(str(dagster_home))
    instance.add_dynamic_partitions(hermes_profiles.name, PROFILES)  # as the discovery sensor would

    server = Server(tmp_path, {**os.environ, **env})
    server.start("code-server", str(BIN / "dagster"), "code-server", "start", "-m", "memory_pipeline.definitions", "-a", "defs",
                 "-h", "127.0.0.1", "-p", str(code_port))  # fmt: skip
    wait_for(lambda: _listening(code_port), 60, f"the code server on port {code_port}: {server.log('code-server')}")
    server.start("webserver", str(BIN / "dagster-webserver"), "-w", "workspace.yaml", "-h", "127.0.0.1", "-p", str(web_port))
    server.start("daemon", str(BIN / "dagster-daemon"), "run", "-w", "workspace.yaml")
    graphql = GraphQL(f"http://127.0.0.1:{web_port}")
    wait_for(lambda: _listening(web_port), 60, f"the webserver: {server.log('webserver')}")
    try:
        yield instance, server, graphql, demo_home
    finally:
        for name in list(server.processes):
            server.kill(name)
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
    server.start("daemon", str(BIN / "dagster-daemon"), "run", "-w", "workspace.yaml")

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
