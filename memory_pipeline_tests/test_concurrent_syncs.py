"""Two syncs of one profile at once, and a run whose process was killed: neither fails the other
nor leaves the local instance stuck."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg

from memory_pipeline_tests.support.primed_sync import PRIMED_SYNC, go, primed_sync
from memory_pipeline_tests.support.store_helpers import consistency_problems, write_entries
from memory_pipeline_tests.support.synthetic import synthetic_entries


def _primed_json_sync(home: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", PRIMED_SYNC, "sync", "--hermes-home", str(home), "--all-profiles", "--json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_syncs_at_once_both_succeed_without_duplicates(demo_home):
    """On a fresh home (no Dagster instance yet) and then on a changed one: the second sync waits
    for the profile's lock and finds nothing left to do."""
    for trial in range(2):  # a fresh home, then a changed one
        if trial:
            memory = demo_home / "memories" / "MEMORY.md"
            memory.write_text(memory.read_text(encoding="utf-8") + f"\n§\nTrial {trial}: a new entry to sync", encoding="utf-8")
        first, second = _primed_json_sync(demo_home), _primed_json_sync(demo_home)
        for process in (first, second):
            assert process.stdout.readline().strip() == "ready"
        for process in (first, second):  # both go at once
            process.stdin.write("go\n")
            process.stdin.flush()
        outputs = [process.communicate(timeout=240) for process in (first, second)]
        for process, (out, err) in zip((first, second), outputs, strict=True):
            assert process.returncode == 0, (trial, err[-2000:])
            assert json.loads(out)["ok"] is True
        # Each profile's work was done once, by whichever sync held its lock first; the other found none.
        added = sorted((p["profile"], p["added"]) for out, _ in outputs for p in json.loads(out)["profiles"])
        work_done = [("default", 23), ("work", 8)] if trial == 0 else [("default", 1), ("work", 0)]
        assert added == sorted([*work_done, ("default", 0), ("work", 0)]), added
        for db in (demo_home / "memory_store.db", demo_home / "profiles" / "work" / "memory_store.db"):
            assert consistency_problems(db) == [], trial


def test_a_killed_run_is_marked_failed_and_does_not_block_the_next(synced_home):
    from memory_pipeline.launch.instance import local_instance

    memory = synced_home / "memories" / "MEMORY.md"
    write_entries(memory, memory.read_text(encoding="utf-8").split("\n§\n") + synthetic_entries(400))
    (synced_home / "config.yaml").write_text("memory:\n  memory_char_limit: 1000000\n", encoding="utf-8")
    process = primed_sync(synced_home)
    go(process)
    instance = local_instance(synced_home)
    deadline = time.monotonic() + 60
    while not instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED])):
        assert time.monotonic() < deadline and process.poll() is None, "the sync never started its run"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    (killed,) = instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
    instance.dispose()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from memory_pipeline.cli import main; sys.exit(main(sys.argv[1:]))",
            "sync",
            "--hermes-home",
            str(synced_home),
            "--profile",
            "default",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    instance = local_instance(synced_home)
    assert instance.get_run_by_id(killed.run_id).status == dg.DagsterRunStatus.FAILURE
    assert not instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
    assert consistency_problems(synced_home / "memory_store.db") == []
    instance.dispose()
