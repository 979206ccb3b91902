"""The real Hermes (hermes-agent==0.19.0) as the tests' compatibility oracle. Tests only."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def hermes_home_env(home: Path):
    previous = os.environ.get("HERMES_HOME")
    os.environ["HERMES_HOME"] = str(home)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("HERMES_HOME", None)
        else:
            os.environ["HERMES_HOME"] = previous


def hermes_loaded_entries(profile_home: Path) -> dict[str, list[str]]:
    """The entries Hermes' own `MemoryStore.load_from_disk` holds for a profile home."""
    from tools.memory_tool import MemoryStore

    with hermes_home_env(profile_home):
        store = MemoryStore()
        store.load_from_disk()
    return {"memory": list(store.memory_entries), "user": list(store.user_entries)}


def holographic_store(db_path: Path, **kwargs):
    """The real Holographic `MemoryStore` on a file (its connection registry is per process)."""
    from plugins.memory.holographic.store import MemoryStore

    return MemoryStore(db_path=str(db_path), **kwargs)


def holographic_retriever(store, **kwargs):
    from plugins.memory.holographic.retrieval import FactRetriever

    return FactRetriever(store, **kwargs)
