"""The guard beside dagster dev: when `ui` dies, by SIGKILL too, the whole group it started stops,
what ignores SIGTERM included (dagster dev hanging in its own shutdown on a loaded machine)."""

import os
import signal
import subprocess
import sys
import textwrap
import time

from memory_pipeline.cli.ui_guard import stop_group
from memory_pipeline_tests.support.servers import DEADLINE_S

# A process that will not stop when asked, as dagster dev stuck in its shutdown.
STUBBORN = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('up', flush=True); time.sleep(600)"

# `ui` in miniature: a stubborn group leader in its own session, and the real guard beside it.
PARENT = textwrap.dedent(
    """
    import os, subprocess, sys, time
    stubborn = subprocess.Popen([sys.executable, "-c", sys.argv[1]], start_new_session=True, stdout=subprocess.PIPE, text=True)
    stubborn.stdout.readline()
    guard = [sys.executable, "-m", "memory_pipeline.cli.ui_guard", str(stubborn.pid), str(os.getpid()), "1"]
    subprocess.Popen(guard, start_new_session=True)
    print(stubborn.pid, flush=True)
    time.sleep(600)
    """
)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().split(") ")[1].startswith("Z")  # a zombie has stopped; its parent reaps it


def test_stopping_a_group_kills_what_ignores_sigterm():
    stubborn = subprocess.Popen([sys.executable, "-c", STUBBORN], start_new_session=True, stdout=subprocess.PIPE, text=True)
    assert stubborn.stdout.readline().strip() == "up"
    stop_group(stubborn.pid, grace_s=0.5)
    assert stubborn.wait(timeout=DEADLINE_S) == -signal.SIGKILL


def test_the_guard_stops_the_group_when_ui_is_killed():
    parent = subprocess.Popen([sys.executable, "-c", PARENT, STUBBORN], stdout=subprocess.PIPE, text=True)
    group = int(parent.stdout.readline())
    assert not _gone(group)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + DEADLINE_S
    while not _gone(group):
        assert time.monotonic() < deadline, "the stubborn group outlived the killed ui"
        time.sleep(0.2)
