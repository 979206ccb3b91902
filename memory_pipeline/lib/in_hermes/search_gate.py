"""The gate every agent-facing read passes: the judge the store's verdicts were reached with (the
keyword list by path and keyed digest, the detectors, the detector switches read from config.yaml), and
whether it is still the one in force. Standard library only: the Hermes plugin runs this very
file beside `fact_search.py`.

Profiles that share one store are judged together, by the union of their keyword lists and
detectors: the judge then records every list (a JSON array of paths, the SHA-256 of their hashes)
and every profile's switches (a JSON array of digests), and a surface finds it current while each
list is as it was and its own profile's switches are among those read.

A list is known by an HMAC-SHA256 of its bytes under the home's digest key (a file beside the
pipeline's own state, which the judge names and the store never holds): a plain SHA-256 of a
one-name list is reversed by hashing a dictionary of names."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JUDGE_TABLE = "memory_pipeline_judge"


def list_digest(raw: bytes, key: bytes | None) -> str:
    """A keyword list's digest: HMAC-SHA256 under the home's key; a plain SHA-256 only without
    one (a store judged before lists were keyed, and tests of the matching alone)."""
    return hmac.new(key, raw, hashlib.sha256).hexdigest() if key is not None else hashlib.sha256(raw).hexdigest()


def _list_digest(path: str | None, key: bytes | None) -> str | None:
    """The keyword list's digest now (an absent list: that of no terms); None when it cannot be read."""
    if not path:
        return list_digest(b"", key)
    try:
        file = Path(path)
        if not file.exists() and not file.is_symlink():
            return list_digest(b"", key)
        if not file.is_file():
            return None
        digest: str = _read_cached(file, lambda raw: list_digest(raw, key), key)
        return digest
    except OSError:
        return None


# What a file read to: the list's digest, the key's bytes, by path (and key), kept while its inode,
# size and times stay the same: a query then reads the file's metadata, not its bytes.
_READ: dict[tuple[str, bytes | None], tuple[tuple[Any, ...], Any]] = {}


def _read_cached(file: Path, made: Any, key: bytes | None = None) -> Any:
    seen = file.stat()
    stamp = (seen.st_dev, seen.st_ino, seen.st_size, seen.st_mtime_ns, seen.st_ctime_ns)
    known = _READ.get((str(file), key))
    if known is None or known[0] != stamp:  # read again whenever the file may have changed
        known = _READ[(str(file), key)] = (stamp, made(file.read_bytes()))
    return known[1]


def _key(conn: sqlite3.Connection, recorded: str | None) -> tuple[bool, bytes | None]:
    """(readable, the key) the judge names; (True, None) for a judge that named none."""
    if recorded is None:
        return True, None
    try:
        key = _read_cached(Path(recorded_list(conn, recorded) or ""), bytes)
    except OSError:
        return False, None
    return bool(key), key


# The version of the detectors and the unsafe scan (`privacy.detectors` keys verdicts by it): kept
# here, beside the gate the plugin ships, so a store judged by an older version is withheld at once.
DETECTORS_VERSION = "7"


@dataclass(frozen=True)
class Gate:
    """The judge the store's verdicts were reached with; `stale` when the keyword list on disk is
    no longer that one (edited, gone, unreadable), the profile's detector switches are not the
    ones it read, or an older version of the detectors judged it: then nothing is shown until a
    re-tag."""

    keywords_sha256: str
    detectors: str
    stale: bool


def united_sha256(hashes: list[str]) -> str:
    """The digest of several keyword lists judged as one: the SHA-256 of their (keyed) digests, in order."""
    return hashlib.sha256("\n".join(sorted(hashes)).encode()).hexdigest()


def recorded_many(recorded: str | None) -> list[str | None]:
    """What the judge recorded in one column, as a list: a JSON array (a shared store's union) or one value."""
    if recorded is not None and recorded.startswith("["):
        try:
            found = json.loads(recorded)
        except ValueError:
            return [recorded]
        return [v if v is None else str(v) for v in found] if isinstance(found, list) else [recorded]
    return [recorded]


def settings_digest(switches: object) -> str:
    """The detector switches a profile's config.yaml holds (`plugins.memory-pipeline.private_data`),
    as the judge records them: the SHA-256 of their names and values, whatever else the file says."""
    chosen = {str(k): v for k, v in switches.items() if isinstance(v, bool)} if isinstance(switches, dict) else {}
    return hashlib.sha256(json.dumps(chosen, sort_keys=True).encode()).hexdigest()


def store_relative(conn: sqlite3.Connection, path: str | None) -> str | None:
    """A keyword list's (or the key's) path as the judge records it: relative to the store's
    directory, so a Hermes home moved or copied whole keeps its judgement."""
    if path is None:
        return None
    return os.path.relpath(path, _store_dir(conn))


def recorded_list(conn: sqlite3.Connection, recorded: str | None) -> str | None:
    """The path the judge recorded, made absolute again."""
    return None if recorded is None else os.path.normpath(os.path.join(_store_dir(conn), recorded))


def _store_dir(conn: sqlite3.Connection) -> str:
    file = str(next(row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main"))
    return os.path.dirname(os.path.abspath(file))


def gate(conn: sqlite3.Connection, settings_sha256: str | list[str] | None = None) -> Gate | None:
    """The store's judge, or None when the privacy stage never judged it (nothing is shown).
    `settings_sha256`: the detector switches now (`settings_digest`) of the profile, or of every
    profile sharing the store, when the caller read them; a judge that read others (or none) is
    stale."""
    row = _judge_row(conn)
    if row is None:
        return None
    path, sha256, detectors, recorded_switches, key_path = row
    readable, key = _key(conn, key_path)
    stale = not readable or _lists_digest(conn, path, key) != sha256 or not str(detectors).startswith(f"{DETECTORS_VERSION}:")
    if settings_sha256 is not None:
        wanted = [settings_sha256] if isinstance(settings_sha256, str) else settings_sha256
        stale = stale or not set(wanted) <= set(recorded_many(recorded_switches))
    return Gate(sha256, detectors, stale)


def _judge_row(conn: sqlite3.Connection) -> tuple[Any, ...] | None:
    """(keywords path, digest, detectors, switches, key path) of the judge; None before any
    judgement. A store judged before the switches were recorded has none (every caller that reads
    them then finds the judge stale); one judged before lists were keyed names no key."""
    for columns in (
        "keywords_path, keywords_sha256, detectors, settings_sha256, key_path",
        "keywords_path, keywords_sha256, detectors, settings_sha256, NULL",
        "keywords_path, keywords_sha256, detectors, NULL, NULL",
    ):
        try:
            row: tuple[Any, ...] | None = conn.execute(f"SELECT {columns} FROM {JUDGE_TABLE} WHERE id = 1").fetchone()
            return row
        except sqlite3.OperationalError:
            continue
    return None


def _lists_digest(conn: sqlite3.Connection, recorded: str | None, key: bytes | None) -> str | None:
    """The recorded list's (or lists') digest as the files are now; None when one cannot be read."""
    hashes = [_list_digest(recorded_list(conn, p), key) for p in recorded_many(recorded)]
    known = [h for h in hashes if h is not None]
    if len(known) != len(hashes):
        return None
    return known[0] if len(known) == 1 else united_sha256(known)
