"""Writing a file: whole or not at all, never more readable than its source (`replace_file`), in
directories only their owner enters (`private_directory`), under a umask that keeps what a process
creates its owner's (`private_umask`); and telling a full disk from other errors (`out_of_space`)."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# Files 0600, directories 0700: what the pipeline's processes create while they run.
PRIVATE_UMASK = 0o077


@contextmanager
def private_umask() -> Iterator[None]:
    """Inside the block, what this process (and any it starts) creates is its owner's alone,
    whatever umask the shell or cron left; the umask is given back after."""
    umask = os.umask(PRIVATE_UMASK)
    try:
        yield
    finally:
        os.umask(umask)


# How a full disk shows: the OS's ENOSPC, SQLite's SQLITE_FULL, and SQLite's I/O error when its
# WAL index or journal cannot grow.
_OUT_OF_SPACE = ("No space left on device", "database or disk is full", "disk I/O error")


def out_of_space(message: object) -> bool:
    """Whether an error (or the text a library printed) says the disk is full."""
    text = str(message)
    return any(marker in text for marker in _OUT_OF_SPACE) or getattr(message, "errno", None) == errno.ENOSPC


def replace_file(path: Path, data: bytes | str, *, durable: bool = False, mode: int | None = None, like: Path | None = None) -> None:
    """`path` replaced by `data` whole or not at all, whatever kills the process: a temporary file
    beside it (named for this process, so two writers never share one, and readable by nobody
    else while it is written), then `os.replace`. The result is never more readable than its
    source: it takes `mode` when given, else the mode and owner of `like` (default: the file it
    replaces), else 0600. `durable` also fsyncs the file and its directory (a memory file must
    survive a power cut)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        source = os.stat(like if like is not None else path)
    except FileNotFoundError:
        source = None
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data.encode("utf-8") if isinstance(data, str) else data)
                if durable:
                    handle.flush()
                    os.fsync(handle.fileno())
        except OSError as exc:  # a write's error names no file: name the one being replaced
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        os.chmod(temp, mode if mode is not None else stat.S_IMODE(source.st_mode) if source is not None else 0o600)
        if source is not None and mode is None and (source.st_uid, source.st_gid) != (os.geteuid(), os.getegid()):
            try:  # Hermes' files keep their owner when root (a system cron) writes them
                os.chown(temp, source.st_uid, source.st_gid)
            except PermissionError:
                pass  # not ours to give away: the mode still holds
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
    if durable:
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def private_directory(path: Path) -> Path:
    """`path` as a directory only its owner can enter (created so, or narrowed when this process
    owns it): what the pipeline keeps entry text in."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.stat(path)
    if stat.S_IMODE(st.st_mode) & 0o077 and st.st_uid == os.geteuid():
        os.chmod(path, stat.S_IMODE(st.st_mode) & 0o700)
    return path
