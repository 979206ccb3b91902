"""Entries saying the same thing, found by their facts' vectors: the pairs the cosine matrix holds,
read a block of rows at a time (memory flat whatever the file's size), grouped as the whole matrix
would group them; a file with more entries than are ever compared is not compared."""

from pathlib import Path

import numpy as np

from memory_pipeline.lib.hermes.duplicates import DUPLICATE_COSINE, MOST_COMPARED, duplicate_groups, too_many_to_compare
from memory_pipeline.lib.hermes.hashing import entry_sha256, short_hash
from memory_pipeline.lib.hermes.memory_files import SourceReading


def _file(vectors: list[np.ndarray]) -> tuple[SourceReading, dict, dict]:
    entries = [f"entry {n}" for n in range(len(vectors))]
    reading = SourceReading("memory", Path("MEMORY.md"), 2200, True, entries)
    synced = {("memory", short_hash(entry_sha256(text))): [n + 1] for n, text in enumerate(entries)}
    stored = {n + 1: np.clip(np.round(v / np.linalg.norm(v) * 127), -127, 127).astype(np.int8).tobytes() for n, v in enumerate(vectors)}
    return reading, synced, stored


def _whole_matrix_groups(vectors: list[np.ndarray]) -> set[tuple[int, ...]]:
    unit = np.stack([v / np.linalg.norm(v) for v in vectors])
    linked = unit @ unit.T >= DUPLICATE_COSINE
    seen, groups = set(), set()
    for start in range(len(vectors)):
        if start in seen:
            continue
        group, frontier = {start}, [start]
        while frontier:
            i = frontier.pop()
            for j in np.nonzero(linked[i])[0]:
                if int(j) not in group:
                    group.add(int(j))
                    frontier.append(int(j))
        seen |= group
        if len(group) > 1:
            groups.add(tuple(sorted(group)))
    return groups


def test_groups_across_blocks_are_the_whole_matrixs_groups():
    rng = np.random.default_rng(7)
    vectors = [rng.normal(size=64) for _ in range(700)]  # random directions: no two alike
    for a, b in ((3, 650), (255, 256), (300, 301), (300, 699)):  # across and within blocks of 256, one chain of three
        vectors[b] = vectors[a] + rng.normal(scale=0.05, size=64)
    reading, synced, stored = _file(vectors)
    found = {g.positions for g in duplicate_groups([reading], synced, stored)}
    assert found == _whole_matrix_groups(vectors) == {(3, 650), (255, 256), (300, 301, 699)}


def test_a_file_with_more_entries_than_are_compared_is_not_compared():
    vectors = [np.ones(8)] * (MOST_COMPARED + 1)  # every entry alike: compared, it would be one huge group
    reading, synced, stored = _file(vectors)
    assert too_many_to_compare(reading) and duplicate_groups([reading], synced, stored) == []
