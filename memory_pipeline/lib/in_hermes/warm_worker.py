"""A warm worker: one long-lived process per Hermes home (and environment) that runs syncs asked
of it over a Unix socket, so a live sync after the agent's write pays neither Python's and
Dagster's imports, nor the instance's opening, nor the encoder's load.

The protocol is one JSON line each way per connection. The worker holds an exclusive lock beside
its socket for as long as it lives (a second one started at the same moment leaves at once), goes
when idle, and goes when its socket or its Hermes home is gone. A client that cannot reach it, or
loses it in the middle of a request (a killed worker), is told `None` and runs the sync itself;
the run the dead worker started is marked failed by that next sync (its process id is gone).
Standard library only: a client never imports Dagster.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import stat
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# A request or a reply: one JSON object on one line.
Message = dict[str, Any]

# How often an idle worker looks whether its socket and home are still there.
_LOOK_S = 5.0
# How long a client waits for a worker it started to answer (the first one imports Dagster).
_START_WAIT_S = 120.0
_MAX_LINE = 1 << 20


class WorkerUnsafe(Exception):
    """The worker's directory is not this user's alone: one line, and no socket is used there."""


def socket_directory(address: Path) -> Path:
    """The socket's directory, created for this user alone; `WorkerUnsafe` when it exists but is
    someone else's or open to others (anyone who could write there could stand in for the worker)."""
    folder = address.parent
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or stat.S_IMODE(st.st_mode) & 0o077:
        raise WorkerUnsafe(f"{folder} is not a directory of this user's alone, so no warm worker listens there; remove it")
    return folder


def ask(address: Path, request: Message, *, timeout_s: float | None = None) -> Message | None:
    """The worker's reply to one request, or None when no worker answers at `address` or it went
    away before replying."""
    try:
        socket_directory(address)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(2.0)
            conn.connect(str(address))
            conn.settimeout(timeout_s)
            conn.sendall(json.dumps(request).encode() + b"\n")
            reply = _read_line(conn)
    except (OSError, WorkerUnsafe):
        return None
    try:
        answer = json.loads(reply) if reply else None
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


def ask_or_start(address: Path, request: Message, start: list[str], *, timeout_s: float | None = None) -> Message | None:
    """`ask`, starting the worker (`start`, in a session of its own so it outlives the caller)
    when none answers and waiting for it; None when it cannot be started or reached."""
    answer = ask(address, request, timeout_s=timeout_s)
    if answer is not None:
        return answer
    try:
        socket_directory(address)
        started = subprocess.Popen(
            start, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
    except (OSError, WorkerUnsafe):
        return None
    deadline = time.monotonic() + _START_WAIT_S
    while time.monotonic() < deadline:
        if address.exists():
            answer = ask(address, request, timeout_s=timeout_s)
            if answer is not None:
                return answer
        if started.poll() is not None and not address.exists():
            return None  # it left (another was starting, or it could not start) and none listens
        time.sleep(0.05)
    return None


def serve(
    address: Path,
    handle: Callable[[Message], Message],
    *,
    idle_s: float,
    wanted: Callable[[], bool],
    warm: Callable[[], None] | None = None,
) -> bool:
    """Listen at `address` and answer each request with `handle` until idle for `idle_s`, or until
    the socket is gone or no longer `wanted` (its Hermes home gone). False when another worker
    already holds the lock (this one leaves)."""
    socket_directory(address)
    with _held(address.with_suffix(".lock")) as mine:
        if not mine:
            return False
        with contextlib.suppress(FileNotFoundError):
            address.unlink()  # a dead worker's: the lock says none other lives
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            server.bind(str(address))
            os.chmod(address, 0o600)
            server.listen(16)
            identity = os.stat(address).st_ino
            try:
                if warm is not None:
                    warm()  # clients that connect meanwhile wait in the backlog
                _answer(server, handle, idle_s, lambda: _ours(address, identity) and wanted())
            finally:
                if _ours(address, identity):
                    address.unlink()
    return True


def _answer(server: socket.socket, handle: Callable[[Message], Message], idle_s: float, there: Callable[[], bool]) -> None:
    last = time.monotonic()
    server.settimeout(min(_LOOK_S, idle_s))
    while time.monotonic() - last < idle_s and there():
        try:
            conn, _ = server.accept()
        except TimeoutError:
            continue
        with conn:
            conn.settimeout(10.0)
            try:
                request = json.loads(_read_line(conn) or b"null")
            except (OSError, ValueError):
                continue
            reply = handle(request) if isinstance(request, dict) else {"error": "not a request"}
            with contextlib.suppress(OSError):  # the client went away: its loss, the work is done
                conn.sendall(json.dumps(reply).encode() + b"\n")
            if reply.get("stopping"):
                return
        last = time.monotonic()


def _ours(address: Path, identity: int) -> bool:
    try:
        return os.stat(address).st_ino == identity
    except OSError:
        return False


@contextlib.contextmanager
def _held(lock: Path) -> Iterator[bool]:
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _read_line(conn: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n") and len(data) < _MAX_LINE:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return data.strip()
