"""The two ways Holographic stores an HRR phase vector, in `facts.hrr_vector` and
`memory_banks.vector`; the only code that interprets such a blob.

- **legacy** (Hermes 0.19.0 and before): `dim` float64 phases, `8·dim` bytes.
- **HRR1** (Hermes' main branch since August 2026): the four bytes `HRR1`, then `dim` float32
  phases, `4 + 4·dim` bytes (4,100 at dim 1024).

Current Hermes reads both by size first: a blob of exactly the HRR1 size that starts with `HRR1`
is HRR1; a blob of exactly `8·dim` bytes is legacy, even when it starts with `HRR1`. At dim 1 the
two sizes collide (8 bytes), so a writer falls back to legacy there and a reader takes legacy.
Every other blob is malformed: Hermes refuses it. Phases decode to float64 either way.

A store is written in the dialect it already speaks (see `store_format`): Hermes 0.19.0 cannot
read HRR1, so a new store stays legacy until current Hermes writes its first HRR1 vector.
"""

from __future__ import annotations

import enum
import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING

from memory_pipeline.lib.choices import VectorFormat

if TYPE_CHECKING:  # NumPy where a blob is decoded or encoded: the SQL below, which `status` reads, needs none
    import numpy as np

HRR1_PREFIX = b"HRR1"
_LEGACY_ITEM, _HRR1_ITEM = 8, 4
_NEWEST_BATCH = 32


class VectorState(enum.IntEnum):
    """What one stored blob is, for a given dim (also the values of `state_sql`)."""

    MISSING = -1  # NULL or empty: no vector
    MALFORMED = 0  # neither dialect decodes it
    LEGACY = 1
    HRR1 = 2


def legacy_size(dim: int) -> int:
    return _LEGACY_ITEM * dim


def hrr1_size(dim: int) -> int:
    return len(HRR1_PREFIX) + _HRR1_ITEM * dim


def _collides(dim: int) -> bool:
    return legacy_size(dim) == hrr1_size(dim)


def state(blob: object, dim: int) -> VectorState:
    """The dialect of one blob, by Hermes' rules: size first, legacy wins the dim-1 collision."""
    if blob is None or (isinstance(blob, (bytes, bytearray, memoryview)) and len(blob) == 0):
        return VectorState.MISSING
    if not isinstance(blob, (bytes, bytearray, memoryview)):
        return VectorState.MALFORMED  # a TEXT or number in the column: Hermes cannot read it either
    size = len(blob)
    if size == legacy_size(dim):
        return VectorState.LEGACY
    if size == hrr1_size(dim) and not _collides(dim) and bytes(blob[:4]) == HRR1_PREFIX:
        return VectorState.HRR1
    return VectorState.MALFORMED


def decode(blob: object, dim: int) -> np.ndarray | None:
    """float64 phases, or None when the blob is missing or malformed."""
    import numpy as np

    kind = state(blob, dim)
    if not isinstance(blob, bytes):
        return None
    if kind is VectorState.LEGACY:
        return np.frombuffer(blob, dtype=np.float64)
    if kind is VectorState.HRR1:
        return np.frombuffer(blob, dtype=np.float32, offset=len(HRR1_PREFIX)).astype(np.float64)
    return None


def decode_rows(blobs: Iterable[bytes], dim: int) -> np.ndarray:
    """Decodable blobs as one (n, dim) float64 array, each dialect converted in one pass (banks
    sum thousands at a time). The caller passes only blobs `state` accepts."""
    import numpy as np

    legacy: list[bytes] = []
    hrr1: list[bytes] = []
    for blob in blobs:
        (hrr1 if len(blob) != legacy_size(dim) else legacy).append(blob)
    parts = []
    if legacy:
        parts.append(np.frombuffer(b"".join(legacy), dtype=np.float64).reshape(-1, dim))
    if hrr1:
        payload = b"".join(bytes(blob[len(HRR1_PREFIX) :]) for blob in hrr1)
        parts.append(np.frombuffer(payload, dtype=np.float32).reshape(-1, dim).astype(np.float64))
    if not parts:
        return np.empty((0, dim), dtype=np.float64)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def encode(phases: np.ndarray, fmt: VectorFormat) -> bytes:
    """The blob for these phases in `fmt` (legacy or HRR1; HRR1 falls back to legacy at dim 1)."""
    import numpy as np

    if fmt is VectorFormat.AUTO:
        raise ValueError("encode needs a concrete vector format: resolve `auto` with store_format first")
    dim = int(phases.shape[0])
    if fmt is VectorFormat.HRR1 and not _collides(dim):
        return HRR1_PREFIX + np.ascontiguousarray(phases, dtype=np.float32).tobytes()
    return np.ascontiguousarray(phases, dtype=np.float64).tobytes()


def state_sql(column: str, dim: int) -> str:
    """SQLite expression giving `VectorState` of `column` for `dim`: the same rules as `state`,
    evaluated while scanning, without reading past a blob's first four bytes."""
    dim = int(dim)
    hrr1 = (
        "" if _collides(dim) else (f"WHEN length({column}) = {hrr1_size(dim)} AND substr({column}, 1, 4) = X'{HRR1_PREFIX.hex()}' THEN 2 ")
    )
    return (
        f"(CASE WHEN {column} IS NULL OR (typeof({column}) = 'blob' AND length({column}) = 0) THEN -1 "
        f"WHEN typeof({column}) != 'blob' THEN 0 WHEN length({column}) = {legacy_size(dim)} THEN 1 {hrr1}ELSE 0 END)"
    )


def size_state_sql(column: str, dim: int) -> str:
    """`state_sql` by size alone, which never reads a blob: an HRR1-sized blob counts as HRR1
    whatever its first bytes. Scans of every vector use it beside `false_hrr1_sql`, which finds
    the HRR1-sized blobs that lack the prefix (only those blobs are read there)."""
    dim = int(dim)
    hrr1 = "" if _collides(dim) else f"WHEN length({column}) = {hrr1_size(dim)} THEN 2 "
    return (
        f"(CASE WHEN {column} IS NULL OR (typeof({column}) = 'blob' AND length({column}) = 0) THEN -1 "
        f"WHEN typeof({column}) != 'blob' THEN 0 WHEN length({column}) = {legacy_size(dim)} THEN 1 {hrr1}ELSE 0 END)"
    )


def false_hrr1_sql(column: str, dim: int) -> str:
    """Condition: an HRR1-sized blob without the `HRR1` prefix (malformed, though `size_state_sql`
    calls it HRR1)."""
    if _collides(dim):
        return "0"
    return f"(typeof({column}) = 'blob' AND length({column}) = {hrr1_size(int(dim))} AND substr({column}, 1, 4) != X'{HRR1_PREFIX.hex()}')"


def decodable_sql(column: str, dim: int) -> str:
    return f"({state_sql(column, dim)} > 0)"


def vector_counts(conn: sqlite3.Connection, dim: int) -> dict[str, int]:
    """How many facts hold a legacy, HRR1, malformed or no vector (a store's migration)."""
    counts = dict(conn.execute(f"SELECT {state_sql('hrr_vector', dim)} AS s, count(*) FROM facts GROUP BY s").fetchall())
    return {kind.name.lower(): int(counts.get(int(kind), 0)) for kind in VectorState}


def store_format(conn: sqlite3.Connection, dim: int) -> VectorFormat:
    """The dialect the store speaks: that of its newest decodable fact vector (latest
    `updated_at`, then highest id), else of its newest bank; legacy for a new or vector-less
    store, the one dialect every Hermes reads."""
    # The newest facts first, a few at a time: only their vectors are read, not every blob.
    ordered = conn.execute("SELECT fact_id FROM facts ORDER BY updated_at DESC, fact_id DESC")
    while ids := [fact_id for (fact_id,) in ordered.fetchmany(_NEWEST_BATCH)]:
        placeholders = ",".join("?" * len(ids))
        blobs = dict(conn.execute(f"SELECT fact_id, hrr_vector FROM facts WHERE fact_id IN ({placeholders})", ids).fetchall())
        for fact_id in ids:
            kind = state(blobs.get(fact_id), dim)
            if kind > VectorState.MALFORMED:
                return VectorFormat.HRR1 if kind is VectorState.HRR1 else VectorFormat.LEGACY
    banks = conn.execute("SELECT vector FROM memory_banks ORDER BY updated_at DESC, bank_id DESC").fetchall()
    kind = next((k for k in (state(blob, dim) for (blob,) in banks) if k > VectorState.MALFORMED), VectorState.LEGACY)
    return VectorFormat.HRR1 if kind is VectorState.HRR1 else VectorFormat.LEGACY


def resolve_format(conn: sqlite3.Connection, dim: int, requested: VectorFormat) -> VectorFormat:
    requested = VectorFormat(requested)
    return store_format(conn, dim) if requested is VectorFormat.AUTO else requested
