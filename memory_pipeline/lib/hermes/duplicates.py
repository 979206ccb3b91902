"""Entries of one memory file that say the same thing, found by meaning: each entry's facts'
sentence vectors (recall by meaning's, so only facts the agent may see take part) averaged into
one, and entries whose vectors stand within `DUPLICATE_COSINE` of each other grouped. An entry that
already points into the store (`fact_store#N`) is a summary or a merge, and is left out."""

from __future__ import annotations

from dataclasses import dataclass

from memory_pipeline.lib.hermes.hashing import entry_sha256, short_hash
from memory_pipeline.lib.hermes.memory_files import SourceReading, fact_pointers

# Set on the real memory files' labelled pairs (`benchmarks/duplicates_real_set.py`): above it, the
# pairs read as one fact written twice; the closest pairs of different facts score 0.69.
DUPLICATE_COSINE = 0.75
# A file within Hermes' cap holds a few hundred entries at most. Past this many, comparing every pair
# would take minutes and gigabytes, so such a file (far over its cap) is not compared, and said so.
MOST_COMPARED = 2000
_BLOCK = 256  # rows of the cosine matrix held at once: memory stays flat whatever the file's size


def too_many_to_compare(reading: SourceReading) -> bool:
    return len(reading.entries) > MOST_COMPARED


@dataclass(frozen=True)
class DuplicateGroup:
    """Entries of one file saying the same thing: their 0-based positions, in file order, and each one's facts."""

    source: str
    positions: tuple[int, ...]
    fact_ids: tuple[tuple[int, ...], ...]
    closest: float  # the highest cosine between two of them

    def numbers(self) -> str:
        """The entries as `entries` numbers them (1-based): `1, 3 and 5`."""
        shown = [str(p + 1) for p in self.positions]
        return f"{', '.join(shown[:-1])} and {shown[-1]}"


def duplicate_groups(
    readings: list[SourceReading], synced: dict[tuple[str, str], list[int]], vectors: dict[int, bytes]
) -> list[DuplicateGroup]:
    """The groups in each file. `synced` maps an entry's (source, short hash) to its facts;
    `vectors`, a fact's int8 vector (the store's `shown_vectors`)."""
    import numpy as np

    groups = []
    for reading in (r for r in readings if not too_many_to_compare(r)):
        items = []
        for position, text in enumerate(reading.entries):
            ids = tuple(synced.get((reading.source, short_hash(entry_sha256(text))), ()))
            rows = [np.frombuffer(vectors[i], dtype=np.int8).astype(np.float32) for i in ids if i in vectors]
            if rows and not fact_pointers(text) and len({len(r) for r in rows}) == 1:
                mean = np.mean(rows, axis=0)
                items.append((position, ids, mean / (np.linalg.norm(mean) or 1.0)))
        if len(items) < 2:
            continue
        unit = np.stack([v for _, _, v in items])
        links = []
        for start in range(0, len(items), _BLOCK):
            block = unit[start : start + _BLOCK] @ unit.T
            for i, j in zip(*np.nonzero(block >= DUPLICATE_COSINE), strict=True):
                if start + int(i) < int(j):
                    links.append((start + int(i), int(j), float(block[i, j])))
        closest = {(i, j): cosine for i, j, cosine in links}
        for group in (g for g in _joined(len(items), [(i, j) for i, j, _ in links]) if len(g) > 1):
            nearest = max(closest.get((a, b), 0.0) for a in group for b in group if a < b)
            groups.append(
                DuplicateGroup(reading.source, tuple(items[i][0] for i in group), tuple(items[i][1] for i in group), round(nearest, 3))
            )
    return groups


def _joined(count: int, links: list[tuple[int, int]]) -> list[list[int]]:
    """The groups the links join (a union-find), each in order."""
    parent = list(range(count))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in links:
        parent[root(i)] = root(j)
    members: dict[int, list[int]] = {}
    for i in range(count):
        members.setdefault(root(i), []).append(i)
    return list(members.values())
