"""The store as a file: refusing a path that is not a fact store, and the one-line error that
names the file (never quoting a fact's content)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from memory_pipeline.lib.files.writing import out_of_space


class StoreError(Exception):
    """The store cannot be used: the message is one line naming the file and the problem."""


# Python's sqlite3 puts the value it could not decode into its message ("... with text '…'"):
# a fact's content, which may be personal, must not reach a log or an exception message.
_QUOTED_VALUE = re.compile(r" with text '.*", re.DOTALL)


def store_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """A SQLite error on the store as a StoreError: one line, naming the file, quoting no value."""
    message = _QUOTED_VALUE.sub("", str(exc)).strip().splitlines()
    first = message[0] if message else type(exc).__name__
    if out_of_space(first):
        return StoreError(f"{path}: No space left on device (SQLite: {first}); free some space there, then sync again")
    return StoreError(f"{path}: {first}")


_SQLITE_HEADER = b"SQLite format 3\x00"
_CONFIG_HINT = "check plugins.hermes-memory-store.db_path in the profile's config.yaml"


def refuse_foreign_file(path: Path) -> None:
    """Refuse a store path that names a memory file (anything in a `memories/` directory, or a
    Markdown file) or an existing file that is not a SQLite database: SQLite would happily turn an
    empty USER.md into a database."""
    if path.parent.name == "memories" or path.suffix.lower() == ".md":
        raise StoreError(f"{path}: is a memory file, not a fact store; nothing written ({_CONFIG_HINT})")
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(_SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"{path}: cannot open ({exc.strerror})") from None
    if header and header != _SQLITE_HEADER:
        raise StoreError(
            f"{path}: is not a SQLite database (damaged, or the store path names another file); nothing written ({_CONFIG_HINT})"
        )
