"""The unsafe scan against Hermes' own threat scan on the labelled corpus, side by side.

    .venv/bin/python benchmarks/bench_threat_scan.py

For each form of the corpus (payloads and their obfuscations, benign look-alikes in Chinese and
English): how many entries Hermes 0.19.0's `scan_for_threats(scope="strict")` flags, how many the
pipeline's `unsafe_kinds` flags, and how many Hermes flags that the pipeline does not (the floor:
always 0). The benign rows are each scan's false positives. Prints a Markdown table.
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.threat_patterns import scan_for_threats  # noqa: E402

from memory_pipeline.lib.privacy.unsafe import unsafe_kinds  # noqa: E402
from memory_pipeline_tests.support.threat_corpus import corpus  # noqa: E402


def main() -> None:
    rows: dict[tuple[bool, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    spent = {"hermes": 0.0, "ours": 0.0}
    # Each scan's one-time costs (compiling its patterns, loading Unicode and Chinese tables) are
    # paid before the clock runs: the figure is a scan's cost per entry.
    scan_for_threats("ｗａｒｍ 忽略", scope="strict")
    unsafe_kinds("ｗａｒｍ 忽略")
    for entry in corpus():
        started = time.perf_counter()
        hermes = bool(scan_for_threats(entry.text, scope="strict"))
        spent["hermes"] += time.perf_counter() - started
        started = time.perf_counter()
        ours = bool(unsafe_kinds(entry.text))
        spent["ours"] += time.perf_counter() - started
        row = rows[(entry.payload, entry.form)]
        row[0] += 1
        row[1] += hermes
        row[2] += ours
        row[3] += hermes and not ours
    print("| set | form | entries | Hermes flags | memory-pipeline flags | Hermes only |")
    print("|---|---|---:|---:|---:|---:|")
    for (payload, form), (entries, hermes, ours, only) in sorted(rows.items(), key=lambda item: (not item[0][0], item[0][1])):
        print(f"| {'payloads' if payload else 'benign'} | {form} | {entries} | {hermes} | {ours} | {only} |")
    for payload in (True, False):
        total = [sum(r[i] for (p, _), r in rows.items() if p == payload) for i in range(4)]
        print(f"| **{'payloads' if payload else 'benign'}** | all | {total[0]} | {total[1]} | {total[2]} | {total[3]} |")
    n = sum(r[0] for r in rows.values())
    print(f"\nPer entry: Hermes {spent['hermes'] / n * 1e6:.1f} µs, memory-pipeline {spent['ours'] / n * 1e6:.1f} µs.")


if __name__ == "__main__":
    main()
