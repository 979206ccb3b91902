"""What a profile looked like after its last successful sync from the command line, so the next
`memory-pipeline sync` can skip it when nothing can have changed: the memory files' bytes, the
store's identity and Hermes-side change counters, the privacy keyword list, and the run's own
settings. Anything that differs (an edit, an `add_fact` by Hermes, a keyword-list edit, another
flag) makes the profile run again. Written atomically, one small JSON file per profile.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

from memory_pipeline.lib.hermes.profiles import Profile, memory_files_digest
from memory_pipeline.lib.hermes.safe_files import UnreadableFile, read_regular_file, replace_file
from memory_pipeline.lib.store.database import LEDGER_TABLE, StoreError, opened, table_exists
from memory_pipeline.lib.store.settings import holographic_settings

# Bumped when the pipeline changes what a sync writes, so an upgrade re-syncs every profile once.
STATE_VERSION = 2


def state_path(data_dir: Path, profile: str) -> Path:
    return data_dir / "last_sync" / f"{profile}.json"


def _store_counters(path: Path) -> list | None:
    """The store file's identity and what changes whenever Hermes or a sync writes a fact."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    try:
        with opened(path, create=False) as conn:
            facts = list(conn.execute("SELECT count(*), max(fact_id), max(updated_at), sum(trust_score) FROM facts").fetchone())
            ledger = (
                list(conn.execute(f"SELECT count(*), max(synced_at) FROM {LEDGER_TABLE}").fetchone())
                if table_exists(conn, LEDGER_TABLE)
                else None
            )
            return [st.st_dev, st.st_ino, facts, ledger]
    except (StoreError, sqlite3.Error):
        return [st.st_dev, st.st_ino, "unusable"]


def _file_digest(path: Path) -> str:
    try:
        data = read_regular_file(path)
    except UnreadableFile as exc:
        return f"unreadable: {exc}"
    return "missing" if data is None else hashlib.sha256(data).hexdigest()


def fingerprint(profile: Profile, keywords: Path, settings: dict) -> str | None:
    """One digest of everything a sync of this profile depends on; None when it cannot be told."""
    store = holographic_settings(profile.home).db_path
    counters = _store_counters(store)
    if counters is not None and "unusable" in counters:
        return None  # never skip a store that cannot be read: the run says what is wrong with it
    parts = {
        "version": STATE_VERSION,
        "files": memory_files_digest(profile),
        "config": _file_digest(profile.home / "config.yaml"),
        "store": [str(store), counters],
        "keywords": [str(keywords), _file_digest(keywords)],
        "settings": settings,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def recorded(data_dir: Path, profile: str) -> str | None:
    try:
        return json.loads(state_path(data_dir, profile).read_text(encoding="utf-8")).get("fingerprint")
    except (OSError, ValueError, AttributeError):
        return None


def record(data_dir: Path, profile: str, digest: str, run_id: str) -> None:
    path = state_path(data_dir, profile)
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, json.dumps({"fingerprint": digest, "run_id": run_id}))


def forget(data_dir: Path, profile: str) -> None:
    state_path(data_dir, profile).unlink(missing_ok=True)
