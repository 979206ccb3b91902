"""Reading a file the user points the pipeline at (the memory files, the keyword list, a
profile's config.yaml, an imported ledger, the pipeline's own reports) so that no file can hang
or exhaust it: regular files only (a FIFO, device, socket or directory is refused before any
read), opened non-blocking, and never more than `MAX_FILE_BYTES` read. Every refusal is one line
naming the file and the problem."""

from __future__ import annotations

import os
import stat
from pathlib import Path

# Memory files are a few KB and keyword lists a few hundred lines: 32 MB is far beyond any real one
# (and leaves room for the 20 MB file the parser is shown to read in linear time).
MAX_FILE_BYTES = 32 * 1024 * 1024


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
