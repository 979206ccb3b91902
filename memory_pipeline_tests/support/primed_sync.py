"""The real `memory-pipeline sync` in a subprocess, primed: tests that kill or race syncs."""

import subprocess
import sys
import textwrap
from pathlib import Path

# The real `memory-pipeline sync`, started ahead of time: it pays Python's and Dagster's imports
# first, says so, and waits for a line on stdin. The kill then lands at a random point of the
# sync itself rather than of the interpreter's start-up.
PRIMED_SYNC = textwrap.dedent(
    """
    import sys
    import memory_pipeline.definitions, memory_pipeline.launch.instance, memory_pipeline.launch.execute
    from memory_pipeline.cli import main
    print("ready", flush=True)
    sys.stdin.readline()
    sys.exit(main(sys.argv[1:]))
    """
)


def primed_sync(home: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", PRIMED_SYNC, "sync", "--hermes-home", str(home), "--profile", "default", "--quiet"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def go(process: subprocess.Popen) -> None:
    assert process.stdout.readline().strip() == "ready"
    process.stdin.write("go\n")
    process.stdin.flush()
