"""Reading a file the user points the pipeline at (the memory files, the keyword list, a
profile's config.yaml, an imported ledger, the pipeline's own reports) so that no file can hang
or exhaust it: regular files only (a FIFO, device, socket or directory is refused before any
read), opened non-blocking, and never more than `MAX_FILE_BYTES` read. Every refusal is one line
naming the file and the problem. And writing one: whole or not at all, never more readable than
its source (`replace_file`), in directories only their owner enters (`private_directory`).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# Memory files are a few KB and keyword lists a few hundred lines: 32 MB is far beyond any real one
# (and leaves room for the 20 MB file the parser is shown to read in linear time).
MAX_FILE_BYTES = 32 * 1024 * 1024
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


class UnreadableFile(Exception):
    """A file that exists but cannot be read safely. The message is one line naming the file."""


def read_regular_file(path: Path, *, limit: int = MAX_FILE_BYTES) -> bytes | None:
    """The file's bytes, or None when nothing is at `path`. A dangling link, a file that is not
    regular, one larger than `limit`, or a failed read raises `UnreadableFile`."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UnreadableFile(f"{path}: cannot stat ({exc.strerror})") from None
    if stat.S_ISLNK(st.st_mode):
        try:
            st = os.stat(path)
        except OSError:
            raise UnreadableFile(f"{path}: dangling symbolic link") from None
    _require_regular(path, st.st_mode)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UnreadableFile(f"{path}: cannot open ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        # The path may have been swapped between stat and open.
        _require_regular(path, os.fstat(handle.fileno()).st_mode)
        try:
            data = handle.read(limit + 1)  # one byte more tells a file that grew past the limit
        except OSError as exc:
            raise UnreadableFile(f"{path}: read failed ({exc.strerror})") from None
    if len(data) > limit:
        raise UnreadableFile(f"{path}: larger than {limit // (1024 * 1024)} MB, not read (is this the right file?)")
    return data


def read_text_file(path: Path, *, encoding: str = "utf-8-sig") -> str | None:
    """`read_regular_file` decoded; bytes that are not `encoding` raise `UnreadableFile` naming the
    offset (never the bytes)."""
    data = read_regular_file(path)
    if data is None:
        return None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise UnreadableFile(f"{path}: invalid UTF-8 at byte {exc.start}") from None


def _require_regular(path: Path, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    kind = "a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a special file"
    raise UnreadableFile(f"{path}: is {kind}, not a regular file")


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
