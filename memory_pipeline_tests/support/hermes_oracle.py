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


class HermesMemory:
    """Hermes 0.19.0's memory tool on one profile's files, with the Holographic provider hearing
    each write as Hermes' memory manager tells it (`on_memory_write`): it mirrors additions only."""

    def __init__(self, files, provider):
        self.files, self.provider = files, provider

    def add(self, target: str, content: str) -> dict:
        result = self.files.add(target, content)
        if result.get("success"):
            self.provider.on_memory_write("add", target, content)
        return result

    def replace(self, target: str, old_text: str, new_content: str) -> dict:
        result = self.files.replace(target, old_text, new_content)
        if result.get("success"):
            self.provider.on_memory_write("replace", target, new_content)
        return result

    def remove(self, target: str, old_text: str) -> dict:
        result = self.files.remove(target, old_text)
        if result.get("success"):
            self.provider.on_memory_write("remove", target, old_text)
        return result


@contextmanager
def hermes_memory(profile_home: Path, config: dict | None = None):
    """`HermesMemory` on a profile home, its Holographic store at the profile's default path
    (`config`: the provider's settings, as `plugins.hermes-memory-store` gives them)."""
    from plugins.memory.holographic import HolographicMemoryProvider
    from tools.memory_tool import MemoryStore

    with hermes_home_env(profile_home):
        files = MemoryStore()
        files.load_from_disk()
        provider = HolographicMemoryProvider(config=config or {})
        provider.initialize("memory-pipeline-tests")
        try:
            yield HermesMemory(files, provider)
        finally:
            provider.shutdown()


def holographic_store(db_path: Path, **kwargs):
    """The real Holographic `MemoryStore` on a file (its connection registry is per process)."""
    from plugins.memory.holographic.store import MemoryStore

    return MemoryStore(db_path=str(db_path), **kwargs)


def holographic_retriever(store, **kwargs):
    from plugins.memory.holographic.retrieval import FactRetriever

    return FactRetriever(store, **kwargs)


# Hermes' main branch (after 0.19.0) stores vectors and banks as b"HRR1" + float32 phases. It is not
# on PyPI, so the tests speak it through this small encoder and decoder, written from its rules and
# kept apart from the pipeline's codec so that each checks the other.
HRR1 = b"HRR1"


def hrr1_blob(phases) -> bytes:
    import numpy as np

    if len(phases) == 1:  # 4 + 4 == 8: the sizes collide, current Hermes writes float64 there
        return np.asarray(phases, dtype=np.float64).tobytes()
    return HRR1 + np.asarray(phases, dtype=np.float32).tobytes()


def current_hermes_decode(blob: bytes, dim: int):
    """Current Hermes' reader with a known dim: size first; legacy wins at dim 1; else ValueError."""
    import numpy as np

    if 4 + 4 * dim != 8 * dim and blob.startswith(HRR1) and len(blob) == 4 + 4 * dim:
        return np.frombuffer(blob[4:], dtype=np.float32).astype(np.float64)
    if len(blob) == 8 * dim:
        return np.frombuffer(blob, dtype=np.float64).copy()
    raise ValueError(f"HRR vector blob has {len(blob)} bytes for dim={dim}")


def current_hermes_add_fact(db_path: Path, content: str, category: str = "general", dim: int = 1024) -> int:
    """`add_fact` as current Hermes does it: the fact row and its entity links through the real
    0.19.0 code's own helpers, its vector and its category's bank stored the HRR1 way (the bank the
    bundle of every vector of the category that decodes, whichever dialect). 0.19.0's own
    `add_fact` cannot be used once a category holds an HRR1 vector: its bank rebuild reads every
    blob as float64 and fails."""
    import numpy as np
    from plugins.memory.holographic import holographic as hrr

    store = holographic_store(db_path, hrr_dim=dim)
    try:
        conn = store._conn
        fact_id = conn.execute(
            "INSERT INTO facts (content, category, trust_score) VALUES (?, ?, ?)", (content, category, store.default_trust)
        ).lastrowid
        names = store._extract_entities(content)
        for name in names:
            store._link_fact_entity(fact_id, store._resolve_entity(name))
        linked = [
            r[0]
            for r in conn.execute("SELECT e.name FROM entities e JOIN fact_entities fe USING (entity_id) WHERE fe.fact_id = ?", (fact_id,))
        ]
        conn.execute("UPDATE facts SET hrr_vector = ? WHERE fact_id = ?", (hrr1_blob(hrr.encode_fact(content, linked, dim)), fact_id))
        vectors = []
        for (blob,) in conn.execute("SELECT hrr_vector FROM facts WHERE category = ? AND hrr_vector IS NOT NULL", (category,)):
            try:
                vectors.append(current_hermes_decode(blob, dim))
            except ValueError:
                continue
        bank = np.angle(np.sum([np.exp(1j * v) for v in vectors], axis=0)) % (2 * np.pi)
        conn.execute(
            """INSERT INTO memory_banks (bank_name, vector, dim, fact_count) VALUES (?, ?, ?, ?)
                        ON CONFLICT(bank_name) DO UPDATE SET vector = excluded.vector, dim = excluded.dim,
                        fact_count = excluded.fact_count, updated_at = CURRENT_TIMESTAMP""",
            (f"cat:{category}", hrr1_blob(bank), dim, len(vectors)),
        )
        conn.commit()
    finally:
        store.close()
    return fact_id
