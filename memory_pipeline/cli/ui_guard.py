"""The guard `memory-pipeline ui` starts beside dagster dev: when `ui` dies, however it dies (a
SIGKILL included, which it cannot catch), the guard sees it has lost its parent and stops dagster
dev's whole process group: SIGTERM, then SIGKILL for whatever is left after a grace. dagster dev
asked alone to stop can hang on a loaded machine with its children stopped and not reaped;
nothing it started may outlive `ui`. Run as `python -m memory_pipeline.cli.ui_guard <group> <ui's pid>
[grace in seconds]`."""

from __future__ import annotations

import os
import signal
import sys
import time

GRACE_S = 10.0
_POLL_S = 0.5


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_group(group: int, grace_s: float = GRACE_S) -> None:
    """SIGTERM to the group, then SIGKILL to whatever is still in it after `grace_s`."""
    for signum, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(group, signum)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and _group_alive(group):
            time.sleep(0.2)


def main(argv: list[str]) -> int:
    group, parent = int(argv[0]), int(argv[1])
    grace_s = float(argv[2]) if len(argv) > 2 else GRACE_S
    stopping = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))  # `ui` stopping: the group goes too
    # Its parent is watched, not signalled for: a death signal could arrive before this handler is
    # set, and `ui` may already be gone when this line runs.
    while not stopping and os.getppid() == parent and _group_alive(group):
        time.sleep(_POLL_S)
    if _group_alive(group):
        stop_group(group, grace_s)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
