"""The team server from `deploy/`, stood up on this machine (the deployment test and
`benchmarks/bench_server.py`): a throwaway PostgreSQL cluster, the instance from
`deploy/dagster.yaml` with only the run launcher swapped for Dagster's default (a subprocess per
run: container images cannot be built here), the code server from `deploy/workspace.yaml`, and
the daemon and webserver as processes of their own."""

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import yaml

from memory_pipeline_tests.support.repository import REPO_ROOT
from memory_pipeline_tests.support.servers import DEADLINE_S, free_port, wait_for

DEPLOY = REPO_ROOT / "deploy"
BIN = Path(sys.executable).parent


class PostgresMissing(Exception):
    pass


def _postgres_tool(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise PostgresMissing("PostgreSQL is needed for the team server: Debian package `postgresql` (`make test` and .ci/run install it)")
    return found


def _as_postgres_user(command: list[str]) -> list[str]:
    # PostgreSQL refuses to run as root: then the throwaway cluster belongs to `nobody`.
    return ["runuser", "-u", "nobody", "--", *command] if os.geteuid() == 0 else command


@contextmanager
def postgres_cluster():
    """A PostgreSQL cluster of its own on a loopback port, thrown away afterwards; the
    `DAGSTER_POSTGRES_*` variables `deploy/dagster.yaml` reads."""
    # Under /tmp itself: the `nobody` user must reach it, and the tests' own temporary root is private.
    directory = Path(tempfile.mkdtemp(prefix="memory-pipeline-pg-", dir="/tmp"))
    if os.geteuid() == 0:
        os.chown(directory, pwd.getpwnam("nobody").pw_uid, -1)
    data, port, pg_ctl = directory / "data", free_port(), _postgres_tool("pg_ctl")
    initdb = [_postgres_tool("initdb"), "-D", str(data), "-U", "dagster", "--auth=trust", "-E", "UTF8", "--no-sync"]
    subprocess.run(_as_postgres_user(initdb), check=True, capture_output=True)
    server = f"-p {port} -k {directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
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


def create_database(pg_env: dict[str, str], name: str) -> str:
    """A new, empty database in the cluster `postgres_cluster` started; its name."""
    host, port, user = pg_env["DAGSTER_POSTGRES_HOST"], pg_env["DAGSTER_POSTGRES_PORT"], pg_env["DAGSTER_POSTGRES_USER"]
    command = [_postgres_tool("psql"), "-h", host, "-p", port, "-U", user, "-d", "postgres", "-c", f"CREATE DATABASE {name}"]
    subprocess.run(command, check=True, capture_output=True)
    return name


def deployment_files(directory: Path, code_port: int, *, max_concurrent_runs: int | None = None) -> Path:
    """`dagster_home/dagster.yaml` and `workspace.yaml` under `directory`, from `deploy/`: only the
    run launcher swapped (and, for the benchmark, the queue's size); the DAGSTER_HOME."""
    dagster_home = directory / "dagster_home"
    dagster_home.mkdir(exist_ok=True)
    config = yaml.safe_load((DEPLOY / "dagster.yaml").read_text(encoding="utf-8"))
    config.pop("run_launcher")  # Dagster's default launcher: a subprocess per run, where Docker's would start a container
    if max_concurrent_runs is not None:
        config["run_queue"]["max_concurrent_runs"] = max_concurrent_runs
    (dagster_home / "dagster.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    workspace = yaml.safe_load((DEPLOY / "workspace.yaml").read_text(encoding="utf-8"))
    workspace["load_from"][0]["grpc_server"].update(host="127.0.0.1", port=code_port)
    (directory / "workspace.yaml").write_text(yaml.safe_dump(workspace), encoding="utf-8")
    return dagster_home


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


class Server:
    """The deployment's processes, each in its own process group (killed whole)."""

    def __init__(self, directory: Path, env: dict[str, str]):
        self.directory, self.env, self.processes = directory, env, {}

    def start(self, name: str, *command: str) -> None:
        log = (self.directory / f"{name}.log").open("a")
        self.processes[name] = subprocess.Popen(
            command, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=self.directory
        )

    def run(self, tool: str, *arguments: str) -> None:
        """One Dagster command line tool against the deployment, to completion."""
        subprocess.run([str(BIN / tool), *arguments], env=self.env, cwd=self.directory, check=True, capture_output=True)

    def start_code_server(self, port: int) -> None:
        self.start("code-server", str(BIN / "dagster"), "code-server", "start", "-m", "memory_pipeline.definitions", "-a", "defs",
                   "-h", "127.0.0.1", "-p", str(port))  # fmt: skip
        wait_for(lambda: listening(port), DEADLINE_S, f"the code server on port {port}: {self.log('code-server')}")

    def start_daemon(self) -> None:
        self.start("daemon", str(BIN / "dagster-daemon"), "run", "-w", "workspace.yaml")

    def start_webserver(self, port: int) -> None:
        self.start("webserver", str(BIN / "dagster-webserver"), "-w", "workspace.yaml", "-h", "127.0.0.1", "-p", str(port))
        wait_for(lambda: listening(port), DEADLINE_S, f"the webserver: {self.log('webserver')}")

    def kill(self, name: str) -> None:
        process = self.processes.pop(name)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def kill_all(self) -> None:
        for name in list(self.processes):
            self.kill(name)

    def log(self, name: str) -> str:
        return (self.directory / f"{name}.log").read_text(errors="replace")[-3000:]
