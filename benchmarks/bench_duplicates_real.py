"""`entries_distinct` on real memory files: the labelled pairs of `duplicates_real_set.py`, each
corpus profile synced and embedded as `bench_recall_real.py` does, its groups found by the
pipeline's own `duplicate_groups` over the store's ledger and vectors.

    .venv/bin/python benchmarks/bench_duplicates_real.py [--corpus PATH]

A pair is found when both entries stand in one group. Prints precision and recall over the
labelled pairs at the threshold in force, and each pair's cosine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import duplicates_real_set as SET
from bench_recall_real import CORPUS, corpus_home

from memory_pipeline.lib.hermes.duplicates import DUPLICATE_COSINE, duplicate_groups
from memory_pipeline.lib.hermes.profiles import discover_profiles, read_profile
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.reads.ledger import synced_facts
from memory_pipeline.lib.store.settings import holographic_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    labelled = [(p, True) for p in SET.SAME] + [(p, False) for p in SET.DIFFERENT]
    found: dict[tuple[str, str, int, int], bool] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for profile in sorted({p for (p, *_), _ in labelled}):
            home, _ = corpus_home(Path(tmp), args.corpus, profile)
            settings = holographic_settings(home)
            with FactStore.opened(settings, create=False) as store:
                synced, vectors = synced_facts(store.reads.active_ledger()), store.reads.shown_vectors()
            groups = duplicate_groups(read_profile(discover_profiles(home)[0]), synced, vectors)
            together = {(g.source, a, b) for g in groups for a in g.positions for b in g.positions if a < b}
            for (name, source, a, b), _ in labelled:
                if name == profile:
                    found[(name, source, a, b)] = (source, a, b) in together
    hits = sum(found[p] for p, same in labelled if same)
    false = sum(found[p] for p, same in labelled if not same)
    print(f"duplicates set {SET.digest()}: {len(SET.SAME)} pairs saying the same thing, {len(SET.DIFFERENT)} closest pairs that do not")
    print(f"threshold: cosine ≥ {DUPLICATE_COSINE} (bundled encoder, one fact per entry: the rules extractor)\n")
    print("| pairs found | of the same thing (recall) | of different things (false) | precision |")
    print("|---:|---:|---:|---:|")
    print(f"| {hits + false} | {hits}/{len(SET.SAME)} | {false}/{len(SET.DIFFERENT)} | {hits}/{hits + false} |")


if __name__ == "__main__":
    main()
