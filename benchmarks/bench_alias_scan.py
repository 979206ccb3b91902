"""How the entity extractor's alias scan (`X aka Y`) grows with the text, on its worst case (words
ending in a dangling "aka"): linear, against the quadratic growth of Holographic's own regex.

    .venv/bin/python benchmarks/bench_alias_scan.py

Prints a Markdown table: seconds per scan at each length, and the ratio to the shortest.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory_pipeline.lib.store.writes.entities import extract_entities  # noqa: E402

# Holographic 0.19.0's own pattern for "X aka Y" (its extractor runs it over the whole text).
HOLOGRAPHIC_AKA = re.compile(r"(\w+(?:\s+\w+)*)\s+(?:aka|also known as)\s+(\w+(?:\s+\w+)*)", re.IGNORECASE)


def seconds(scan, chars: int, repeat: int = 3) -> float:
    text = ("word " * (chars // 5))[:chars] + " aka"
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        scan(text)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    lengths = (1_000, 2_000, 4_000, 8_000)
    ours = {n: seconds(extract_entities, n) for n in lengths}
    theirs = {n: seconds(lambda t: list(HOLOGRAPHIC_AKA.finditer(t)), n, repeat=1) for n in lengths}
    print("| characters | memory-pipeline | ratio | Holographic's regex | ratio |")
    print("|---:|---:|---:|---:|---:|")
    for n in lengths:
        mine, holographic = ours[n] / ours[lengths[0]], theirs[n] / theirs[lengths[0]]
        print(f"| {n:,} | {ours[n] * 1000:.2f} ms | {mine:.1f}× | {theirs[n] * 1000:.1f} ms | {holographic:.1f}× |")


if __name__ == "__main__":
    main()
