"""A sync's Dagster run on the pipeline's instance storage (one SQLAlchemy engine kept per database)
against Dagster's own SQLite storage (an engine per statement), on the same instance directory.

    .venv/bin/python benchmarks/bench_run_storage.py [--rounds 10]

On a copy of the demo home, synced once: each round appends one entry to MEMORY.md and runs the
default profile's sync job (`run_sync`, as `memory-pipeline sync` runs it), alternating the two
instances round by round so both see the machine in the same state; then a run of the re-tag
assets alone (nothing changed); and opening the instance on its directory, as each command does
once (its first query answered). Prints a Markdown table of medians and their ratio.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import dagster as dg
from dagster._core.instance.ref import InstanceRef

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory_pipeline import environment  # noqa: E402
from memory_pipeline.defs.backfills import RETAG_ASSETS  # noqa: E402
from memory_pipeline.launch.execute import run_sync  # noqa: E402
from memory_pipeline.launch.instance import local_instance  # noqa: E402
from memory_pipeline.launch.sqlite_storage import with_kept_engines  # noqa: E402
from memory_pipeline.lib.choices import ExtractorMode  # noqa: E402
from memory_pipeline.runs.options import SyncOptions  # noqa: E402
from memory_pipeline_tests.support.repository import DEMO_HERMES_HOME, DEMO_KEYWORDS  # noqa: E402

RULES = SyncOptions(extractor=ExtractorMode.RULES).run_config()  # as `sync --extractor rules`


def _home(where: Path) -> Path:
    home = where / "hermes_home"
    shutil.copytree(DEMO_HERMES_HOME, home, ignore=shutil.ignore_patterns("memory_store.db*", "memory-pipeline"))
    (home / "memory-pipeline").mkdir(mode=0o700)
    shutil.copyfile(DEMO_KEYWORDS, home / "memory-pipeline" / "privacy_keywords.txt")
    return home


def _timed(instance: dg.DagsterInstance, home: Path, assets: list[str] | None = None) -> float:
    started = time.perf_counter()
    (run,) = run_sync(instance, home, ["default"], RULES, assets)
    if not run.success:
        raise SystemExit(f"a benchmark run failed: {run.error}")
    return time.perf_counter() - started


def _opened(open_instance: Callable[[], dg.DagsterInstance]) -> float:
    started = time.perf_counter()
    instance = open_instance()
    instance.get_runs(limit=1)
    elapsed = time.perf_counter() - started
    instance.dispose()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = _home(Path(tmp))
        ours = local_instance(home)
        dagsters = dg.DagsterInstance.from_config(str(environment.dagster_home(home)))
        instances = {"kept engines (the pipeline's)": ours, "Dagster's SQLite storage": dagsters}
        _timed(ours, home)  # the first sync: every entry new, the encoder and the job loaded
        memory = home / "memories" / "MEMORY.md"
        edit: dict[str, list[float]] = {name: [] for name in instances}
        retag: dict[str, list[float]] = {name: [] for name in instances}
        retag_assets = [key.to_user_string() for key in RETAG_ASSETS]
        where = str(environment.dagster_home(home))
        openers = {
            "kept engines (the pipeline's)": lambda: dg.DagsterInstance.from_ref(with_kept_engines(InstanceRef.from_dir(where))),
            "Dagster's SQLite storage": lambda: dg.DagsterInstance.from_config(where),
        }
        opened: dict[str, list[float]] = {name: [] for name in instances}
        for n in range(args.rounds):
            for name, instance in instances.items() if n % 2 else reversed(instances.items()):
                with memory.open("a", encoding="utf-8") as file:
                    file.write(f"\n§\nBenchmark round {n}: the nightly build ran on two cores ({name[:4]}).")
                edit[name].append(_timed(instance, home))
                retag[name].append(_timed(instance, home, retag_assets))
                opened[name].append(_opened(openers[name]))
    peer, mine = "Dagster's SQLite storage", "kept engines (the pipeline's)"
    columns = (edit, retag, opened)
    print(f"| demo profile, median of {args.rounds} | one-entry edit: whole run | re-tag assets alone | opening the instance |")
    print("|---|---:|---:|---:|")
    for name in (peer, mine):
        print(f"| {name} | " + " | ".join(f"{statistics.median(column[name]):.2f} s" for column in columns) + " |")
    ratios = [statistics.median(column[peer]) / statistics.median(column[mine]) for column in columns]
    print("| speed-up | " + " | ".join(f"{ratio:.2f}×" for ratio in ratios) + " |")


if __name__ == "__main__":
    main()
