"""One sync of a profile at a time, whoever starts it (the CLI, the schedule, a sensor, the UI):
an exclusive `flock` on a file beside the profile's store, held for the whole run. A second sync
waits, then finds nothing left to do instead of failing on a ledger that changed under it. The
kernel drops the lock when its process dies, even by SIGKILL, so a crash never leaves it stuck.
"""

from __future__ import annotations

import fcntl
import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_WAIT_S = 600.0  # a first sync of a very large profile can take minutes
_POLL_S = 0.1


class SyncLockTimeout(Exception):
    """Another sync held the profile's lock for longer than the wait. One line naming the file."""


def lock_path(store_path: Path) -> Path:
    """Beside the store's real file, links followed: profiles whose settings name one store by
    different paths still take one lock."""
    real = store_path.resolve()
    return real.with_name(f"{real.name}.sync-lock")


@contextmanager
def profile_sync_lock(store_path: Path, *, wait_s: float = LOCK_WAIT_S, on_wait: Callable[[Path], None] | None = None) -> Iterator[Path]:
    """Hold the profile's sync lock; `on_wait` is told once when another sync holds it."""
    if not (math.isfinite(wait_s) and wait_s >= 0):
        raise ValueError(f"the lock wait must be a finite number of seconds, not {wait_s}")
    path = lock_path(store_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        deadline = time.monotonic() + wait_s
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not told and on_wait is not None:
                    on_wait(path)
                    told = True
                if time.monotonic() >= deadline:
                    raise SyncLockTimeout(
                        f"{path}: another sync of this profile has held the lock for over {wait_s:g} s; try again later"
                    ) from None
                time.sleep(_POLL_S)
        yield path
    finally:
        os.close(fd)  # closing the descriptor releases the lock
