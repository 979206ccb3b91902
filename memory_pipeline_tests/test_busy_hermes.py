"""A busy Hermes makes no false alarm: while Hermes 0.19.0's memory tool and its Holographic mirror
write the profile in another process, repeated syncs never fail with an ERROR (a change made
during a run is a WARN at most, and the next sync picks it up); once Hermes is quiet, one sync
leaves every layer in step."""

import json
import subprocess
import sys
import textwrap

from memory_pipeline.cli import main
from memory_pipeline_tests.support.servers import DEADLINE_S, wait_for
from memory_pipeline_tests.support.store_helpers import consistency_problems
from memory_pipeline_tests.support.syncing import synced_profile

WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from memory_pipeline_tests.support.hermes_oracle import hermes_memory
    home, progress, stop = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    deadline, n = time.monotonic() + 300, 0  # a bound, never the test's clock: it stops when told
    with hermes_memory(home) as hermes:
        while not stop.exists() and time.monotonic() < deadline:
            hermes.add("user", f"Busy note {n}: written while a sync runs")
            if n:
                hermes.remove("user", f"Busy note {n - 1}:")
            n += 1
            progress.write_text(str(n))
            time.sleep(0.05)
    """
)


def _writes(progress) -> int:
    try:
        return int(progress.read_text() or 0)
    except (FileNotFoundError, ValueError):
        return 0


def test_syncs_during_a_busy_hermes_raise_no_error(capsys, synced_home, tmp_path):
    progress, stop = tmp_path / "writes", tmp_path / "stop"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(synced_home), str(progress), str(stop)])
    try:
        wait_for(lambda: _writes(progress) >= 3, DEADLINE_S, "Hermes' first writes")
        for _ in range(2):  # two syncs, each while Hermes writes, however long either takes
            before = _writes(progress)
            code = main(["sync", "--hermes-home", str(synced_home), "--profile", "default", "--force", "--json"])
            payload = json.loads(capsys.readouterr().out)
            assert code == 0 and payload["ok"] is True, payload  # no ERROR, whatever Hermes wrote meanwhile
            wait_for(lambda b=before: _writes(progress) > b + 2, DEADLINE_S, "Hermes writing on")
    finally:
        stop.touch()
        writer.wait(timeout=120)
    assert writer.returncode == 0 and _writes(progress) > 10
    settled = synced_profile(synced_home)
    assert not [c for c in settled["failing_checks"] if c not in ("cap_usage", "mirrors_adopted")], settled
    assert consistency_problems(synced_home / "memory_store.db") == []
