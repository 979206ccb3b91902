"""What a profile looked like to its last successful sync from the command line, so the next
`memory-pipeline sync` can skip it when nothing can have changed: the memory files' bytes, the
store's identity and watermark, the privacy keyword list, config.yaml and the run's own settings.
Each is recorded as the run itself read it, never re-read afterwards, so a change made at any
moment, during the run included, differs from the record and makes the next sync run. Anything
that differs (an edit, an `add_fact` by Hermes, a keyword-list edit, another flag) makes the
profile run again. Written atomically, one small JSON file per profile.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from memory_pipeline.lib.files.digest_key import digest_key
from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file
from memory_pipeline.lib.files.writing import replace_file
from memory_pipeline.lib.hermes.profiles import Profile, memory_files_digest
from memory_pipeline.lib.in_hermes.search_gate import list_digest
from memory_pipeline.lib.store.profile_store import profile_store
from memory_pipeline.lib.store.reads.reader import StoreReader
from memory_pipeline.lib.store.schema.database import StoreError
from memory_pipeline.lib.sync.journal import journal_path, read_journal

# Bumped when the pipeline changes what a sync writes, so an upgrade re-syncs every profile once.
STATE_VERSION = 4


@dataclass(frozen=True)
class RunInputs:
    """What one run read, in its own steps: the files' digest its parse saw, the store's watermark
    its audit's snapshot found (only when no other writer wrote during the run) and the keyed
    digest of the keyword list it tagged with (`lib/files/digest_key.py`)."""

    files: str
    store_watermark: str
    keywords_digest: str


def state_path(data_dir: Path, profile: str) -> Path:
    return data_dir / "last_sync" / f"{profile}.json"


def _store_now(path: Path, watermark: str | None = None) -> list[Any] | None:
    """The store file's identity and its watermark: as it is now, or the one given (what a run
    saw, so the store is not read again); None without a store."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    if watermark is not None:
        return [st.st_dev, st.st_ino, watermark]
    try:
        with StoreReader.read_only(path) as reads:  # a skipped profile's store is only read
            return [st.st_dev, st.st_ino, reads.watermark()]
    except (StoreError, sqlite3.Error):
        return [st.st_dev, st.st_ino, "unusable"]


def _file_digest(path: Path) -> str:
    """The file's SHA-256; an absent one reads as empty (no config, no keyword terms)."""
    try:
        data = read_regular_file(path)
    except UnreadableFile as exc:
        return f"unreadable: {exc}"
    return hashlib.sha256(data or b"").hexdigest()


def _list_digest(path: Path | None, key: bytes) -> str:
    """The keyword list's keyed digest now, as the judge knows it (`list_digest`); an absent list
    reads as empty (no terms)."""
    try:
        data = read_regular_file(path) if path is not None else None
    except UnreadableFile as exc:
        return f"unreadable: {exc}"
    return list_digest(data or b"", key)


def _state(
    profile: Profile,
    keywords: Path | None,
    settings: dict[str, Any],
    *,
    files: str,
    store: list[Any] | None,
    keywords_digest: str,
    config: str,
) -> dict[str, Any]:
    return {
        "version": STATE_VERSION,
        "files": files,
        "config": config,
        "store": [str(profile_store(profile).path), store],
        "keywords": [str(keywords), keywords_digest],
        "settings": settings,
    }


def config_digest(profile: Profile, data_dir: Path) -> str:
    """The profile's config.yaml and the edits its agent's journal names, as they are now (taken
    before a run: a later edit, or an edit's journal line arriving after the run read the files,
    makes the next run)."""
    edits = sorted(
        f"{source}\0{sha}\0{old}"
        for (source, sha), old in read_journal(journal_path(data_dir, profile.name), edits_only=True).edits.items()
    )
    journaled = hashlib.sha256("\n".join(edits).encode()).hexdigest()
    return hashlib.sha256(f"{_file_digest(profile.home / 'config.yaml')}\0{journaled}".encode()).hexdigest()


def current_state(profile: Profile, keywords: Path | None, settings: dict[str, Any], data_dir: Path) -> dict[str, Any] | None:
    """Everything a sync of this profile depends on, as it is now; None when it cannot be told."""
    store = _store_now(profile_store(profile).path)
    if store is not None and "unusable" in store:
        return None  # never skip a store that cannot be read: the run says what is wrong with it
    return _state(
        profile,
        keywords,
        settings,
        files=memory_files_digest(profile),
        store=store,
        keywords_digest=_list_digest(keywords, digest_key(data_dir)),
        config=config_digest(profile, data_dir),
    )


def state_of_run(profile: Profile, keywords: Path | None, settings: dict[str, Any], read: RunInputs, config: str) -> dict[str, Any] | None:
    """The same, as the run saw it (never re-read after it: a change made meanwhile must not be
    taken as synced); `config` is the digest taken before the run started."""
    store = _store_now(profile_store(profile).path, read.store_watermark)
    if store is None:
        return None
    return _state(profile, keywords, settings, files=read.files, store=store, keywords_digest=read.keywords_digest, config=config)


class FailingCheck(NamedTuple):
    """A check a run left failing: its name, severity (`ERROR`, `WARN`) and detail (counts and ids, never text)."""

    name: str
    severity: str
    detail: str


@dataclass(frozen=True)
class RecordedSync:
    """The last recorded sync of a profile: what its run read, and the checks (check, severity,
    detail) it left failing, which stand while the inputs are as it read them."""

    state: dict[str, Any] | None
    failing: list[FailingCheck]


def recorded(data_dir: Path, profile: str) -> RecordedSync:
    try:
        found = json.loads(state_path(data_dir, profile).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        found = {}  # missing or damaged: the profile simply runs, and the run records it afresh
    found = found if isinstance(found, dict) else {}
    state, failing = found.get("state"), found.get("failing")
    return RecordedSync(
        state if isinstance(state, dict) else None,
        [FailingCheck(str(n), str(s), str(d)) for n, s, d in failing] if isinstance(failing, list) else [],
    )


def record(data_dir: Path, profile: str, state: dict[str, Any], run_id: str, failing: Sequence[FailingCheck] = ()) -> None:
    path = state_path(data_dir, profile)
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, json.dumps({"state": state, "run_id": run_id, "failing": [list(f) for f in failing]}))


def forget(data_dir: Path, profile: str) -> None:
    state_path(data_dir, profile).unlink(missing_ok=True)


def failing_checks_digest(failing: list[FailingCheck]) -> str:
    """One digest of a profile's failing checks (check, severity, detail): a problem that changes
    (a file further over its cap) digests differently."""
    return hashlib.sha256(json.dumps(sorted(failing), ensure_ascii=False).encode()).hexdigest()


def _reported_path(data_dir: Path, profile: str) -> Path:
    return data_dir / "last_sync" / f"{profile}.said"


def named_before(data_dir: Path, profile: str, fact_ids: tuple[int, ...]) -> int:
    """How many of these facts (the agent's own, mirror-shaped) a sync of the profile named
    already; remembers them all, so each is named once."""
    path = data_dir / "last_sync" / f"{profile}.own"
    try:
        known = {int(i) for i in (read_regular_file(path) or b"").decode().split(",") if i.isdigit()}
    except (UnreadableFile, UnicodeDecodeError):
        known = set()  # a damaged note: name them again
    if not set(fact_ids) <= known:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, ",".join(map(str, sorted(known | set(fact_ids)))))
    return len(set(fact_ids) & known)


def reported_before(data_dir: Path, profile: str, digest: str) -> bool:
    """Whether `sync --quiet` last said exactly these failing checks for the profile; remembers
    them when not, so a standing problem is said once when it appears or changes."""
    path = _reported_path(data_dir, profile)
    try:
        if (read_regular_file(path) or b"").decode() == digest:
            return True
    except (UnreadableFile, UnicodeDecodeError):
        pass  # a damaged note: say it again
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, digest)
    return False
