"""Bulk first sync against the real Holographic `add_fact` loop, no-change resync, peak memory.

    .venv/bin/python benchmarks/bench_store.py [--sizes 1000 10000 100000] [--holographic-max 10000]

Each measurement runs in a fresh subprocess (so peak memory is its own) on synthetic entries
(90% MEMORY.md, 10% USER.md). The pipeline side is the real `memory_sync_job`, in-process, as
`memory-pipeline sync` runs it. The peer is hermes-agent 0.19.0's `MemoryStore.add_fact` called
once per fact with the same content and category, which is how Holographic grows its store.
Then the same incremental sync on an all-legacy store and on a copy with half its vectors and
every bank in current Hermes' HRR1 dialect, side by side in rounds. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def _home(base: Path, count: int) -> Path:
    from memory_pipeline_tests.support.store_helpers import write_entries
    from memory_pipeline_tests.support.synthetic import synthetic_entries

    home = base / f"home-{count}"
    user = count // 10
    write_entries(home / "memories" / "MEMORY.md", synthetic_entries(count - user, seed=11))
    write_entries(home / "memories" / "USER.md", synthetic_entries(user, seed=12, start=10 * count))
    return home


def _peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def measure_pipeline(count: int) -> dict:
    import dagster as dg

    from memory_pipeline.launch.execute import run_sync
    from memory_pipeline.lib.hermes.entries import hashed_frame, parsed_frame
    from memory_pipeline.lib.hermes.profiles import Profile, read_profile
    from memory_pipeline.lib.store.reads.ledger import active_ledger
    from memory_pipeline.lib.store.schema.database import connect
    from memory_pipeline.lib.sync.diff import diff_entries
    from memory_pipeline_tests.support.store_helpers import table_checksums

    with tempfile.TemporaryDirectory() as tmp, dg.instance_for_test() as instance:
        home = _home(Path(tmp), count)
        started = time.perf_counter()
        (first,) = run_sync(instance, home, ["default"])
        first_s = time.perf_counter() - started
        peak_mb = _peak_mb()  # the sync's own peak, before this script's checks below
        assert first.success, first.error
        db = home / "memory_store.db"
        rows, raw = table_checksums(db), db.read_bytes()

        # No-change resync: the stages' own work (read, hash, diff; nothing to write)...
        started = time.perf_counter()
        hashed = hashed_frame(parsed_frame("default", read_profile(Profile("default", home))))
        conn = connect(db, create=False)
        diff = diff_entries(hashed, active_ledger(conn))
        conn.close()
        work_s = time.perf_counter() - started
        assert set(diff["status"]) == {"unchanged"}
        # ...and the whole in-process Dagster run around them.
        started = time.perf_counter()
        (again,) = run_sync(instance, home, ["default"])
        rerun_s = time.perf_counter() - started
        unchanged = table_checksums(db) == rows and db.read_bytes() == raw
        stored = again.outputs.report
        return {
            "first_s": first_s,
            "facts": first.outputs.report.facts_total,
            "resync_work_s": work_s,
            "resync_run_s": rerun_s,
            "resync_writes": stored.added + stored.updated + (0 if unchanged else 1),
            "peak_mb": peak_mb,
        }


def measure_holographic(count: int) -> dict:
    from memory_pipeline.lib.extraction.rule_based import rules_category
    from memory_pipeline_tests.support.hermes_oracle import holographic_store
    from memory_pipeline_tests.support.store_helpers import read_entries

    with tempfile.TemporaryDirectory() as tmp:
        home = _home(Path(tmp), count)
        facts = [
            (e, rules_category(s, e))
            for s, n in (("memory", "MEMORY.md"), ("user", "USER.md"))
            for e in read_entries(home / "memories" / n)
        ]
        store = holographic_store(home / "memory_store.db")
        started = time.perf_counter()
        for content, category in facts:
            store.add_fact(content, category=category)
        elapsed = time.perf_counter() - started
        store.close()
        return {"seconds": elapsed, "facts": len(facts), "peak_mb": _peak_mb()}


def measure_dialects(count: int, rounds: int) -> dict:
    """The same incremental sync (1% of MEMORY.md edited, 1% added) and no-change resync on two
    copies of one store: all vectors legacy, and half the vectors and every bank in HRR1 as current
    Hermes leaves them. Each round times both copies back to back on fresh copies."""
    import shutil

    import dagster as dg
    from hrr1_stores import dialect_counts, half_hrr1_copy

    from memory_pipeline.launch.execute import run_sync
    from memory_pipeline_tests.support.store_helpers import read_entries, write_entries
    from memory_pipeline_tests.support.synthetic import mutate

    with tempfile.TemporaryDirectory() as tmp, dg.instance_for_test() as instance:
        base = _home(Path(tmp), count)
        (first,) = run_sync(instance, base, ["default"])
        assert first.success, first.error
        mixed = half_hrr1_copy(base, Path(tmp) / "half-hrr1")
        memory = read_entries(base / "memories" / "MEMORY.md")
        edited = mutate(memory, seed=5, edit=0.01, remove=0.0, add=0.01)
        results = {"legacy": [], "half HRR1": []}
        for number in range(rounds):
            for label, template in (("legacy", base), ("half HRR1", mixed)):
                home = Path(tmp) / f"round-{number}-{label.replace(' ', '-')}"
                shutil.copytree(template, home)
                write_entries(home / "memories" / "MEMORY.md", edited)
                started = time.perf_counter()
                (run,) = run_sync(instance, home, ["default"])
                sync_s = time.perf_counter() - started
                # The synthetic files are far over Hermes' caps (cap_usage); every other check must pass.
                failing = [c for c in run.failing_errors if c != "cap_usage"]
                assert run.success and not failing, (label, run.error, failing)
                started = time.perf_counter()
                (again,) = run_sync(instance, home, ["default"])
                resync_s = time.perf_counter() - started
                assert again.success
                results[label].append((sync_s, resync_s))
                shutil.rmtree(home)
        return {"results": results, "counts": dialect_counts(mixed), "facts": first.outputs.report.facts_total}


def print_dialects(count: int, rounds: int) -> None:
    from statistics import median

    out = _in_subprocess("dialects", count, rounds)
    legacy, mixed = out["results"]["legacy"], out["results"]["half HRR1"]
    print(f"\n| {out['facts']:,} facts, 1% edited + 1% added | incremental sync | no-change resync |")
    print("|---|---:|---:|")
    print(f"| every vector legacy float64 | {median(r[0] for r in legacy):.2f} s | {median(r[1] for r in legacy):.2f} s |")
    sync_ratios = sorted(new[0] / old[0] for old, new in zip(legacy, mixed, strict=True))
    resync_ratios = sorted(new[1] / old[1] for old, new in zip(legacy, mixed, strict=True))
    print(
        f"| {out['counts']['hrr1']:,} vectors and every bank HRR1 float32 | {median(r[0] for r in mixed):.2f} s "
        f"({median(sync_ratios):.2f}×; rounds {', '.join(f'{x:.2f}×' for x in sync_ratios)}) "
        f"| {median(r[1] for r in mixed):.2f} s ({median(resync_ratios):.2f}×; rounds {', '.join(f'{x:.2f}×' for x in resync_ratios)}) |"
    )


def _in_subprocess(kind: str, count: int, rounds: int = 1) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", kind, str(count), "--rounds", str(rounds)], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{kind} {count} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000, 100000])
    parser.add_argument("--holographic-max", type=int, default=10000, help="largest size to run the add_fact loop at (it is quadratic)")
    parser.add_argument("--dialect-size", type=int, default=100000, help="entries of the legacy-versus-half-HRR1 comparison (0: skip it)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the dialect comparison")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "COUNT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, count = args.child[0], int(args.child[1])
        measure = {
            "pipeline": measure_pipeline,
            "holographic": measure_holographic,
            "dialects": lambda n: measure_dialects(n, args.rounds),
        }[kind]
        print(json.dumps(measure(count)))
        return

    print(
        "| entries | pipeline first sync | Holographic add_fact loop | speed-up | no-change resync: work / whole run / writes | peak RSS |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    for count in args.sizes:
        mine = _in_subprocess("pipeline", count)
        peer = _in_subprocess("holographic", count) if count <= args.holographic_max else None
        peer_cell = f"{peer['seconds']:.2f} s ({peer['facts'] / peer['seconds']:.0f} facts/s)" if peer else "not run (quadratic)"
        ratio = f"{peer['seconds'] / mine['first_s']:.0f}×" if peer else "—"
        print(
            f"| {count:,} | {mine['first_s']:.2f} s ({mine['facts'] / mine['first_s']:.0f} facts/s) | {peer_cell} | {ratio} "
            f"| {mine['resync_work_s']:.3f} s / {mine['resync_run_s']:.2f} s / {mine['resync_writes']} | {mine['peak_mb']:.0f} MB |",
            flush=True,
        )
    if args.dialect_size:
        print_dialects(args.dialect_size, args.rounds)


if __name__ == "__main__":
    main()
