"""A busy Hermes makes no false alarm: while Hermes 0.19.0's memory tool and its Holographic mirror
write the profile in another process, repeated syncs never fail with an ERROR (a change made
during a run is a WARN at most, and the next sync picks it up); once Hermes is quiet, one sync
leaves every layer in step."""

import json
import subprocess
import sys
import textwrap
import time

from memory_pipeline.cli import main
from memory_pipeline_tests.support.store_helpers import consistency_problems, profile_result, sync_json

WRITER = textwrap.dedent(
    """
    import sys, time
    from memory_pipeline_tests.support.hermes_oracle import hermes_memory
    home, seconds = sys.argv[1], float(sys.argv[2])
    deadline, n = time.monotonic() + seconds, 0
    with hermes_memory(home) as hermes:
        while time.monotonic() < deadline and n < 400:  # bounded in time and in writes
            hermes.add("user", f"Busy note {n}: written while a sync runs")
            if n:
                hermes.remove("user", f"Busy note {n - 1}:")
            n += 1
            time.sleep(0.05)
    print(n)
    """
)


def test_syncs_during_a_busy_hermes_raise_no_error(capsys, synced_home):
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(synced_home), "5"], stdout=subprocess.PIPE, text=True)
    codes = []
    try:
        time.sleep(0.5)
        while writer.poll() is None and len(codes) < 6:
            codes.append(main(["sync", "--hermes-home", str(synced_home), "--profile", "default", "--force", "--json"]))
            payload = json.loads(capsys.readouterr().out)
            assert payload["ok"] is True, payload  # no ERROR, whatever Hermes wrote meanwhile
    finally:
        writer.wait(timeout=30)
    assert int(writer.stdout.read()) > 10 and len(codes) >= 2 and set(codes) == {0}
    settled = profile_result(sync_json(capsys, synced_home, "--profile", "default"))
    assert not [c for c in settled["failing_checks"] if c not in ("cap_usage", "mirrors_adopted")], settled
    assert consistency_problems(synced_home / "memory_store.db") == []
