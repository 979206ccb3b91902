"""Where a profile's Holographic keeps its fact store, read from its `plugins.hermes-memory-store`
section as the provider reads it, and what the agent is told about a profile whose store is kept
per user (which the pipeline neither syncs nor serves)."""

from __future__ import annotations

from pathlib import Path

NOT_SERVED = (
    "its Holographic keeps one store per user (plugins.hermes-memory-store.scope: user), which memory-pipeline does not "
    "sync, so it serves none of that profile's facts (the user can remove `scope: user` to sync it)"
)


def store_file(profile_home: Path, section: dict[str, object]) -> Path:
    """`db_path` (with `$HERMES_HOME` and `~` expanded), else `memory_store.db` in the profile's home."""
    raw = section.get("db_path")
    if not isinstance(raw, str) or not raw.strip():
        return profile_home / "memory_store.db"
    return Path(raw.replace("${HERMES_HOME}", str(profile_home)).replace("$HERMES_HOME", str(profile_home))).expanduser()


def kept_per_user(section: dict[str, object]) -> bool:
    """`scope: user`: Holographic keeps one store per user, not the profile's."""
    return str(section.get("scope") or "").strip().lower() == "user"
