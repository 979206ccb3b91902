"""Holographic reduced representations as Hermes' Holographic provider computes them: the maths.

Phase vectors: angles in [0, 2π) as float64. Written from the published definitions so that
a store the pipeline fills is bit-for-bit what Holographic's own `rebuild_all_vectors` computes.
How a vector is stored as bytes is `vector_codec`'s business.
"""

from __future__ import annotations

import functools
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable

import numpy as np

TWO_PI = 2.0 * np.pi
ROLE_CONTENT = "__hrr_role_content__"
ROLE_ENTITY = "__hrr_role_entity__"
EMPTY_TEXT = "__hrr_empty__"
_TOKEN_STRIP = ".,!?;:\"'()[]{}"
_UINT16_PER_DIGEST = 16


class AtomCache:
    """Bounded caches of atoms, as phases and as unit phasors exp(i·atom): bundling sums phasors,
    and a couple of thousand frequent words cover most memory text. At dim 1024 a phasor takes
    16 KB, so the bound keeps the cache near 40 MB however many facts a sync writes."""

    def __init__(self, dim: int, capacity: int = 2048):
        self.dim = dim
        self.capacity = capacity
        self._phases: OrderedDict[str, np.ndarray] = OrderedDict()
        self._phasors: OrderedDict[str, np.ndarray] = OrderedDict()

    def phase(self, word: str) -> np.ndarray:
        return self._lookup(self._phases, word, lambda: atom(word, self.dim))

    def phasor(self, word: str) -> np.ndarray:
        return self._lookup(self._phasors, word, lambda: np.exp(1j * self.phase(word)))

    def _lookup(self, table: OrderedDict[str, np.ndarray], word: str, make: Callable[[], np.ndarray]) -> np.ndarray:
        found = table.get(word)
        if found is not None:
            table.move_to_end(word)
            return found
        value = table[word] = make()
        if len(table) > self.capacity:
            table.popitem(last=False)
        return value


def atom(word: str, dim: int) -> np.ndarray:
    """SHA-256 digests of f"{word}:{i}" read as little-endian uint16, scaled to [0, 2π)."""
    prefix = hashlib.sha256(f"{word}:".encode())
    digests = []
    for suffix in _suffixes(-(-dim // _UINT16_PER_DIGEST)):
        block = prefix.copy()
        block.update(suffix)
        digests.append(block.digest())
    values = np.frombuffer(b"".join(digests), dtype="<u2")[:dim]
    return values.astype(np.float64) * (TWO_PI / 65536.0)


@functools.cache
def _suffixes(blocks: int) -> tuple[bytes, ...]:
    return tuple(str(i).encode() for i in range(blocks))


def bind(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    bound: np.ndarray = (a + b) % TWO_PI
    return bound


def bundle_phasors(phasors: Iterable[np.ndarray]) -> np.ndarray:
    """Angle of the sum of unit phasors, summed in the given order (as Holographic does)."""
    bundled: np.ndarray = np.angle(np.sum(list(phasors), axis=0)) % TWO_PI
    return bundled


def bundle(*vectors: np.ndarray) -> np.ndarray:
    return bundle_phasors(np.exp(1j * v) for v in vectors)


def tokens(text: str) -> list[str]:
    stripped = (token.strip(_TOKEN_STRIP) for token in text.lower().split())
    return [t for t in stripped if t]


def encode_text(text: str, cache: AtomCache) -> np.ndarray:
    words = tokens(text)
    if not words:
        return cache.phase(EMPTY_TEXT)
    return bundle_phasors(cache.phasor(w) for w in words)


def encode_fact(content: str, entity_names: Iterable[str], cache: AtomCache) -> np.ndarray:
    """Content bound to the content role, each linked entity bound to the entity role, bundled."""
    components = [bind(encode_text(content, cache), cache.phase(ROLE_CONTENT))]
    role_entity = cache.phase(ROLE_ENTITY)
    components.extend(bind(cache.phase(name.lower()), role_entity) for name in entity_names)
    return bundle(*components)


class BankAccumulator:
    """One category's bank: the sum of its fact vectors' unit phasors, fed a block of decoded
    vectors at a time (vectorised, bounded memory); the bank is the sum's angle."""

    def __init__(self, dim: int):
        self.dim = dim
        self.total = np.zeros(dim, dtype=np.complex128)
        self.count = 0

    def add_rows(self, phases: np.ndarray) -> None:
        """Add an (n, dim) block of phase vectors."""
        if len(phases):
            # exp(i·x) = cos x + i·sin x; two real passes are several times faster than complex exp.
            self.total += np.cos(phases).sum(axis=0) + 1j * np.sin(phases).sum(axis=0)
            self.count += len(phases)

    def add(self, vector: np.ndarray) -> None:
        self.add_rows(np.asarray(vector, dtype=np.float64).reshape(1, -1))

    def sum(self) -> np.ndarray:
        return self.total

    def vector(self) -> np.ndarray:
        return np.angle(self.total) % TWO_PI
