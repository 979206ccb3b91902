"""A sync killed at any point, or racing a real Holographic writer, leaves every store consistent."""

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from memory_pipeline.launch.execute import run_sync
from memory_pipeline.launch.instance import local_instance
from memory_pipeline.lib.store.reads.ledger import ledger_problems
from memory_pipeline.lib.store.schema.database import connect, opened
from memory_pipeline_tests.support.primed_sync import go, primed_sync
from memory_pipeline_tests.support.store_helpers import active_facts, consistency_problems, query, write_entries
from memory_pipeline_tests.support.synthetic import mutate, synthetic_entries

TRIALS = 6
# The stages that write the store; the later ones (tags, index, audit) only read it back.
SYNC_STAGES = ["parsed_entries", "hashed_entries", "ledger_diff", "extracted_facts", "fact_store"]


def _assert_in_step(home: Path, db: Path, memory: list[str], user: list[str]) -> None:
    assert consistency_problems(db) == []
    with opened(db, create=False) as conn:
        assert ledger_problems(conn) == []
    assert sorted(active_facts(db)) == sorted([("memory", e) for e in memory] + [("user", e) for e in user])


def test_sigkill_at_random_points_never_breaks_the_store(tmp_path):
    home = tmp_path / "home"
    memory_path, user_path = home / "memories" / "MEMORY.md", home / "memories" / "USER.md"
    memory, user = synthetic_entries(120), synthetic_entries(20, seed=3, start=9000)
    # Caps this large files fit, so the sync's exit status speaks only of the store.
    (home / "config.yaml").parent.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("memory:\n  memory_char_limit: 1000000\n  user_char_limit: 1000000\n")
    write_entries(memory_path, memory)
    write_entries(user_path, user)
    db = home / "memory_store.db"

    process = primed_sync(home)
    assert process.stdout.readline().strip() == "ready"
    started = time.monotonic()
    process.stdin.write("go\n")
    process.stdin.flush()
    assert process.wait() == 0
    full_run = time.monotonic() - started
    rng = random.Random(20261202)
    with local_instance(home) as instance:  # the next sync's, as a user's next `memory-pipeline sync` opens it
        process = primed_sync(home)
        for trial in range(TRIALS):
            memory, user = mutate(memory, seed=trial), mutate(user, seed=1000 + trial, edit=0.2)
            write_entries(memory_path, memory)
            write_entries(user_path, user)
            go(process)
            time.sleep(rng.uniform(0.0, 1.1) * full_run)
            process.send_signal(signal.SIGKILL)
            process.wait()
            process = primed_sync(home)  # the next one starts up while this trial is checked
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
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "HERMES_HOME": str(home)},
    )
    assert writer.stdout.readline().strip() == "ready"
    with local_instance(home) as instance:
        (run,) = run_sync(instance, home, ["default"])
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
        assert "locked" not in err and out.strip() == "done"
        assert run.success, run.error
        assert query(db, "SELECT count(*) FROM facts WHERE content LIKE 'agent wrote fact %'") == [(300,)]
        # Holographic rebuilds a bank by a read and a write in two transactions: one that spanned
        # the sync's commit may have left its bank behind, which only the next sync can settle.
        assert [p for p in consistency_problems(db) if not p.startswith("bank ")] == []
        (settled,) = run_sync(instance, home, ["default"])
    assert settled.success, settled.error
    _assert_in_step(home, db, memory, user)
    assert query(db, "SELECT count(*) FROM facts") == [(1600 + 300,)]
