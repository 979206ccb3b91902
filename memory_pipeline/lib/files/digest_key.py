"""A per-home key for the digests the UI, the logs and Dagster's records show (a keyword list's,
the lists' combined one, a re-tag's tag). A plain SHA-256 of a short list is an oracle: hash each
likely name and compare. Keyed with a random secret kept beside the pipeline's own state (`0600`),
a digest still tells a changed list from an unchanged one, and nothing more."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file
from memory_pipeline.lib.files.writing import private_directory

KEY_FILE = "digest.key"
_KEY_BYTES = 32


class DamagedKey(UnreadableFile):
    """The key file is there but is not a key (empty, cut short): one line and the way out."""


def digest_key(data_dir: Path, *, reset_damaged: bool = False, on_reset: Callable[[Path], None] | None = None) -> bytes:
    """The home's key, made on first use: written whole to a file of its own, then linked into
    place, so two processes making it at once agree on the first and none reads half of one. A
    damaged one raises `DamagedKey`, or with `reset_damaged` is moved aside (`on_reset` hears its
    new name) and a new one made: digests made with the old key then read as changed, so the next
    sync of each profile runs in full."""
    path = data_dir / KEY_FILE
    try:
        key = read_regular_file(path)
    except UnreadableFile:
        key = None
    if key is None:
        private_directory(data_dir)
        fresh = data_dir / f".{KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, secrets.token_bytes(_KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(fresh, path)
        except FileExistsError:
            pass  # another process linked its key first: that one is the home's
        finally:
            os.unlink(fresh)
        key = read_regular_file(path)
    if not key or len(key) != _KEY_BYTES:
        if not reset_damaged:
            raise DamagedKey(
                f"{path}: the pipeline's digest key is damaged ({len(key or b'')} bytes, not {_KEY_BYTES}); nothing was written; "
                "`memory-pipeline sync --reset-state` moves it aside and makes a new one"
            )
        moved = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        path.rename(moved)
        if on_reset is not None:
            on_reset(moved)
        return digest_key(data_dir)
    return key


def keyed(key: bytes, value: str) -> str:
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()
