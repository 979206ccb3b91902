"""The warm worker: `sync --warm` hands the sync to one long-lived process per home (started when
none runs), which runs it as a Dagster run of its own process and stays for the next; a killed
worker is replaced, a directory not the user's alone is never used, an idle worker leaves, and
`worker --stop` stops it. Real processes, sockets, stores and Dagster runs throughout."""

import os
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from memory_pipeline import environment
from memory_pipeline.cli import main
from memory_pipeline.launch.execute import HOST_TAG, PID_TAG, fail_dead_runs
from memory_pipeline.launch.instance import local_instance
from memory_pipeline_tests.support.store_helpers import query, read_entries, write_entries


@pytest.fixture(autouse=True)
def _short_idle(monkeypatch):
    monkeypatch.setenv(environment.WORKER_IDLE_ENV, "60")  # none outlives the test by much


def _add(home: Path, text: str) -> None:
    memory = home / "memories" / "MEMORY.md"
    write_entries(memory, [*read_entries(memory), text])


def _warm_sync(home: Path) -> int:
    return main(["sync", "--warm", "--quiet", "--hermes-home", str(home), "--profile", "default"])


def _last_run_pid(home: Path) -> int:
    instance = local_instance(home)
    try:
        (run,) = instance.get_runs(filters=dg.RunsFilter(job_name="memory_sync_job"), limit=1)
        assert run.status == dg.DagsterRunStatus.SUCCESS
        return int(run.tags[PID_TAG])
    finally:
        instance.dispose()


def _worker_pid(home: Path) -> int:
    pid = _last_run_pid(home)
    assert pid != os.getpid()
    assert b"worker" in Path(f"/proc/{pid}/cmdline").read_bytes()  # the worker's process ran the run
    return pid


def _gone(pid: int, within_s: float = 60) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
            if Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z":
                return True  # a zombie has left: its parent (this test's process) never waits on it
        except (ProcessLookupError, FileNotFoundError):
            return True
        time.sleep(0.1)
    return False


def test_a_warm_sync_runs_in_the_worker_which_stays_for_the_next_and_stops_when_told(synced_home, capsys):
    _add(synced_home, "**Warm one**: the worker syncs this entry")
    assert _warm_sync(synced_home) == 0
    assert query(synced_home / "memory_store.db", "SELECT count(*) FROM facts WHERE content LIKE '%worker syncs this%'") == [(1,)]
    pid = _worker_pid(synced_home)
    address = environment.worker_address(synced_home)
    assert stat.S_IMODE(address.stat().st_mode) == 0o600 and stat.S_IMODE(address.parent.stat().st_mode) == 0o700
    _add(synced_home, "**Warm two**: and this one, in the same process")
    assert _warm_sync(synced_home) == 0
    assert query(synced_home / "memory_store.db", "SELECT count(*) FROM facts WHERE content LIKE '%in the same process%'") == [(1,)]
    assert _last_run_pid(synced_home) == pid
    capsys.readouterr()
    assert main(["worker", "--stop", "--hermes-home", str(synced_home)]) == 0
    assert "warm worker stopped" in capsys.readouterr().out
    assert _gone(pid) and not address.exists()
    assert main(["worker", "--stop", "--hermes-home", str(synced_home)]) == 0
    assert "warm worker not running" in capsys.readouterr().out


def test_a_killed_worker_is_replaced_and_its_run_marked_failed_by_the_next(synced_home):
    _add(synced_home, "**Before the kill**: synced by the first worker")
    assert _warm_sync(synced_home) == 0
    first = _worker_pid(synced_home)
    os.kill(first, signal.SIGKILL)
    assert _gone(first)
    assert environment.worker_address(synced_home).exists()  # a dead worker's socket stays behind
    _add(synced_home, "**After the kill**: synced by the next worker")
    assert _warm_sync(synced_home) == 0
    assert query(synced_home / "memory_store.db", "SELECT count(*) FROM facts WHERE content LIKE '%by the next worker%'") == [(1,)]
    assert _worker_pid(synced_home) != first
    assert main(["worker", "--stop", "--hermes-home", str(synced_home)]) == 0


def test_a_socket_directory_open_to_others_is_never_used_the_sync_runs_here(synced_home, capsys):
    folder = environment.worker_address(synced_home).parent
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o777)
    try:
        _add(synced_home, "**Open folder**: synced by the command itself")
        capsys.readouterr()
        assert _warm_sync(synced_home) == 0
        err = capsys.readouterr().err
        assert f"{folder} is not a directory of this user's alone" in err and "remove it; synced without it" in err
        assert query(synced_home / "memory_store.db", "SELECT count(*) FROM facts WHERE content LIKE '%by the command itself%'") == [(1,)]
        assert _last_run_pid(synced_home) == os.getpid()
        assert not environment.worker_address(synced_home).exists()
    finally:
        folder.chmod(0o700)


def test_an_idle_worker_leaves(synced_home, monkeypatch):
    monkeypatch.setenv(environment.WORKER_IDLE_ENV, "1")
    _add(synced_home, "**Idle**: the worker leaves after this one")
    assert _warm_sync(synced_home) == 0
    assert _gone(_worker_pid(synced_home))
    assert not environment.worker_address(synced_home).exists()


def test_each_environment_and_home_has_its_own_worker(synced_home, tmp_path, monkeypatch):
    here = environment.worker_address(synced_home)
    assert environment.worker_address(synced_home) == here and len(str(here).encode()) < 108
    assert environment.worker_address(tmp_path) != here
    monkeypatch.setenv(environment.KEYWORDS_ENV, str(tmp_path / "other.txt"))
    assert environment.worker_address(synced_home) != here


def test_warm_takes_no_option_it_would_not_honour(synced_home, capsys):
    assert main(["sync", "--warm", "--hermes-home", str(synced_home), "--extractor", "rules"]) == 2
    assert "--warm takes only --profile, --all-profiles, --retag, --quiet and --hermes-home" in capsys.readouterr().err
    assert main(["sync", "--warm", "--json", "--hermes-home", str(synced_home)]) == 2


def test_a_worker_killed_in_the_middle_of_a_run_loses_no_write(synced_home, capsys):
    """The client's request dies with the worker: it is taken by the next worker, the killed run
    is marked failed, and the store is whole."""
    import threading

    from memory_pipeline_tests.support.store_helpers import consistency_problems

    _add(synced_home, "**First**: starts the worker")
    assert _warm_sync(synced_home) == 0
    first = _worker_pid(synced_home)
    memory = synced_home / "memories" / "MEMORY.md"
    many = [f"**Bulk {i}**: entry number {i} of a long sync, about topic {i * 7}" for i in range(400)]
    write_entries(memory, [*read_entries(memory), *many])
    codes = []
    client = threading.Thread(target=lambda: codes.append(_warm_sync(synced_home)))
    client.start()
    instance = local_instance(synced_home)
    try:
        deadline, killed = time.monotonic() + 120, None
        while killed is None and time.monotonic() < deadline:
            started = instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
            if started and int(started[0].tags[PID_TAG]) == first:
                os.kill(first, signal.SIGKILL)
                killed = started[0].run_id
            time.sleep(0.02)
        assert killed is not None, "the worker's run was never seen running"
        client.join(timeout=300)
        err = capsys.readouterr().err
        assert codes == [1] and "cap_usage failed" in err  # 400 entries are far over the file's cap; nothing else is said
        assert [line for line in err.splitlines() if "cap_usage" not in line] == []
        assert instance.get_run_by_id(killed).status == dg.DagsterRunStatus.FAILURE
    finally:
        instance.dispose()
    db = synced_home / "memory_store.db"
    assert query(db, "SELECT count(*) FROM facts WHERE content LIKE '**Bulk %'") == [(400,)]
    assert consistency_problems(db) == []
    assert _worker_pid(synced_home) != first
    assert main(["worker", "--stop", "--hermes-home", str(synced_home)]) == 0


def test_a_killed_worker_not_yet_reaped_has_its_run_marked_failed(synced_home):
    """A worker killed while the process that started it lives on stays a zombie until reaped:
    signals still reach it, yet it runs nothing. Its run is marked failed all the same, or it
    would hold the run queue for ever."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    os.kill(child.pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while Path(f"/proc/{child.pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
        assert time.monotonic() < deadline, "the killed child never became a zombie"
        time.sleep(0.01)
    instance = local_instance(synced_home)
    try:
        run = instance.create_run_for_job(
            dg.Definitions(jobs=[dg.GraphDefinition(name="held", node_defs=[]).to_job()]).get_job_def("held"),
            tags={PID_TAG: str(child.pid), HOST_TAG: socket.gethostname()},
        )
        instance.handle_run_event(run.run_id, dg.DagsterEvent(dg.DagsterEventType.RUN_START.value, job_name="held"))
        assert instance.get_run_by_id(run.run_id).status == dg.DagsterRunStatus.STARTED
        assert fail_dead_runs(instance) == [run.run_id]
        assert instance.get_run_by_id(run.run_id).status == dg.DagsterRunStatus.FAILURE
    finally:
        instance.dispose()
        child.wait()
