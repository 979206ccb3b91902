"""A sync killed at any point, or racing a real Holographic writer, leaves every store consistent."""

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import dagster as dg

from memory_pipeline.lib.ledger import ledger_problems
from memory_pipeline.lib.store import connect
from memory_pipeline.runs import run_sync
from memory_pipeline_tests.store_helpers import consistency_problems, query, write_entries
from memory_pipeline_tests.synthetic import mutate, synthetic_entries

TRIALS = 12
# The stages that write the store; the later ones (tags, index, audit) only read it back.
SYNC_STAGES = ["parsed_entries", "hashed_entries", "ledger_diff", "extracted_facts", "fact_store"]
# The real `memory-pipeline sync`, started ahead of time: it pays Python's and Dagster's imports
# first, says so, and waits for a line on stdin. The kill then lands at a random point of the
# sync itself rather than of the interpreter's start-up.
PRIMED_SYNC = textwrap.dedent(
    """
    import sys
    import memory_pipeline.definitions, memory_pipeline.instance, memory_pipeline.runs
    from memory_pipeline.cli import main
    print("ready", flush=True)
    sys.stdin.readline()
    sys.exit(main(sys.argv[1:]))
    """
)


def _primed_sync(home: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", PRIMED_SYNC, "sync", "--hermes-home", str(home), "--profile", "default", "--quiet"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )


def _go(process: subprocess.Popen) -> None:
    assert process.stdout.readline().strip() == "ready"
    process.stdin.write("go\n")
    process.stdin.flush()


def _assert_in_step(home: Path, db: Path, memory: list[str], user: list[str]) -> None:
    assert consistency_problems(db) == []
    conn = connect(db, create=False)
    try:
        assert ledger_problems(conn) == []
    finally:
        conn.close()
    active = query(db, """SELECT l.source, f.content FROM memory_pipeline_ledger l JOIN facts f USING (fact_id)
                          WHERE l.status = 'active'""")
    assert sorted(active) == sorted([("memory", e) for e in memory] + [("user", e) for e in user])


def test_sigkill_at_random_points_never_breaks_the_store(tmp_path):
    home = tmp_path / "home"
    memory_path, user_path = home / "memories" / "MEMORY.md", home / "memories" / "USER.md"
    memory, user = synthetic_entries(300), synthetic_entries(40, seed=3, start=9000)
    # Caps this large files fit, so the sync's exit status speaks only of the store.
    (home / "config.yaml").parent.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("memory:\n  memory_char_limit: 1000000\n  user_char_limit: 1000000\n")
    write_entries(memory_path, memory)
    write_entries(user_path, user)
    db = home / "memory_store.db"

    process = _primed_sync(home)
    assert process.stdout.readline().strip() == "ready"
    started = time.monotonic()
    process.stdin.write("go\n")
    process.stdin.flush()
    assert process.wait() == 0
    full_run = time.monotonic() - started
    rng = random.Random(20261202)
    with dg.instance_for_test() as instance:
        process = _primed_sync(home)
        for trial in range(TRIALS):
            memory, user = mutate(memory, seed=trial), mutate(user, seed=1000 + trial, edit=0.2)
            write_entries(memory_path, memory)
            write_entries(user_path, user)
            _go(process)
            time.sleep(rng.uniform(0.0, 1.1) * full_run)
            process.send_signal(signal.SIGKILL)
            process.wait()
            process = _primed_sync(home)  # the next one starts up while this trial is checked
            # Whatever the kill interrupted, the store is consistent right now...
            assert consistency_problems(db) == [], f"trial {trial}"
            # ...and the next sync brings it exactly in step with the files.
            (run,) = run_sync(instance, home, ["default"], assets=SYNC_STAGES)
            assert run.success, run.error
            _assert_in_step(home, db, memory, user)
        process.kill()
        process.wait()


HOLOGRAPHIC_WRITER = textwrap.dedent(
    """
    import sys, time
    from plugins.memory.holographic.store import MemoryStore
    store = MemoryStore(db_path=sys.argv[1])
    print("ready", flush=True)
    for i in range(int(sys.argv[2])):
        store.add_fact(f"agent wrote fact {i} during the sync about deploy window {i}", category="general")
    store.close()
    print("done", flush=True)
    """
)


def test_sync_beside_a_live_holographic_writer(tmp_path):
    home = tmp_path / "home"
    memory, user = synthetic_entries(1500), synthetic_entries(100, seed=3, start=9000)
    write_entries(home / "memories" / "MEMORY.md", memory)
    write_entries(home / "memories" / "USER.md", user)
    db = home / "memory_store.db"
    connect(db).close()  # both sides start from an existing store, as on a running Hermes
    writer = subprocess.Popen(
        [sys.executable, "-c", HOLOGRAPHIC_WRITER, str(db), "300"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "HERMES_HOME": str(home)},
    )
    assert writer.stdout.readline().strip() == "ready"
    with dg.instance_for_test() as instance:
        (run,) = run_sync(instance, home, ["default"])
    out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    assert "locked" not in err and out.strip() == "done"
    assert run.success, run.error
    assert query(db, "SELECT count(*) FROM facts WHERE content LIKE 'agent wrote fact %'") == [(300,)]
    _assert_in_step(home, db, memory, user)
    assert query(db, "SELECT count(*) FROM facts") == [(1600 + 300,)]


def _primed_json_sync(home: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", PRIMED_SYNC, "sync", "--hermes-home", str(home), "--all-profiles", "--json"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def test_two_syncs_at_once_both_succeed_without_duplicates(demo_home):
    """On a fresh home (no Dagster instance yet) and then on a changed one: the second sync waits
    for the profile's lock and finds nothing left to do."""
    for trial in range(3):
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
    from memory_pipeline.instance import local_instance

    memory = synced_home / "memories" / "MEMORY.md"
    write_entries(memory, memory.read_text(encoding="utf-8").split("\n§\n") + synthetic_entries(400))
    (synced_home / "config.yaml").write_text("memory:\n  memory_char_limit: 1000000\n", encoding="utf-8")
    process = _primed_sync(synced_home)
    _go(process)
    instance = local_instance(synced_home)
    deadline = time.monotonic() + 60
    while not instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED])):
        assert time.monotonic() < deadline and process.poll() is None, "the sync never started its run"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    (killed,) = instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
    instance.dispose()
    done = subprocess.run([sys.executable, "-c", "import sys; from memory_pipeline.cli import main; sys.exit(main(sys.argv[1:]))",
                           "sync", "--hermes-home", str(synced_home),
                           "--profile", "default", "--quiet"], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    instance = local_instance(synced_home)
    assert instance.get_run_by_id(killed.run_id).status == dg.DagsterRunStatus.FAILURE
    assert not instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
    assert consistency_problems(synced_home / "memory_store.db") == []
    instance.dispose()
