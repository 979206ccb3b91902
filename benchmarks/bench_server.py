"""How many profiles one team server keeps in step: the deployment from `deploy/` against the
local SQLite instance, side by side in one run.

    .venv/bin/python benchmarks/bench_server.py [--profiles 50 200] [--queues 1 2 4] [--entries 30]

For each N: a Hermes home of N synthetic profiles (a few dozen entries each), synced once. Then,
per configuration, one entry of every profile is edited (a tick's worth of change) and every
profile is synced again:
- the local SQLite instance, one profile after another in process (`memory-pipeline sync
  --all-profiles`, what the CLI and Hermes' cron run);
- the Postgres instance of `deploy/dagster.yaml` (only the run launcher swapped for Dagster's
  default: a subprocess per run), its code server and daemon, the file sensor requesting every
  changed profile, the run queue holding 1, 2 or 4 runs at once.
Prints profiles synced per minute, the time one run takes, and how many profiles each keeps in
step at a 30-minute schedule. Not a test: it takes tens of minutes at N = 200.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dagster as dg  # noqa: E402

from memory_pipeline.cli import main as cli  # noqa: E402
from memory_pipeline.defs.partitions import hermes_profiles  # noqa: E402
from memory_pipeline_tests.support.servers import free_port, wait_for  # noqa: E402
from memory_pipeline_tests.support.store_helpers import read_entries, write_entries  # noqa: E402
from memory_pipeline_tests.support.synthetic import synthetic_entries  # noqa: E402
from memory_pipeline_tests.support.team_server import Server, create_database, deployment_files, postgres_cluster  # noqa: E402

CONCURRENCY = (1, 2, 4)
SCHEDULE_MIN = 30


def build_home(home: Path, profiles: int, entries: int) -> list[str]:
    """The root profile `default` and `profiles/pNNN/`, each with its own MEMORY.md and USER.md."""
    names = ["default"] + [f"p{i:03d}" for i in range(1, profiles)]
    for i, name in enumerate(names):
        base = home if name == "default" else home / "profiles" / name
        base.mkdir(parents=True, exist_ok=True)  # caps these files fit: the checks speak of the sync alone
        (base / "config.yaml").write_text("memory:\n  memory_char_limit: 100000\n  user_char_limit: 100000\n", encoding="utf-8")
        write_entries(base / "memories" / "MEMORY.md", synthetic_entries(entries, seed=i, start=1000 * i))
        write_entries(base / "memories" / "USER.md", synthetic_entries(3, seed=10_000 + i, start=1000 * i + 900))
    return names


def edit_one_entry_each(home: Path, names: list[str], tick: int) -> None:
    for name in names:
        path = (home if name == "default" else home / "profiles" / name) / "memories" / "MEMORY.md"
        entries = read_entries(path)
        entries[tick % len(entries)] += f" (edited at tick {tick})"
        write_entries(path, entries)


def sqlite_in_process(home: Path) -> float:
    started = time.perf_counter()
    assert cli(["sync", "--hermes-home", str(home), "--all-profiles", "--quiet"]) == 0
    return time.perf_counter() - started


def postgres_server(home: Path, names: list[str], workdir: Path, pg_env: dict, concurrency: int) -> tuple[float, list[float]]:
    """Seconds from the first run requested to the last run ended, and each run's own seconds.
    Each configuration gets a database of its own and the schedule stopped: a :00 or :30 tick
    inside a measurement, or a run left over from the one before, would add runs to the queue."""
    code_port = free_port()
    directory = workdir / f"queue-{concurrency}"
    directory.mkdir(parents=True)
    dagster_home = deployment_files(directory, code_port, max_concurrent_runs=concurrency)
    pg_env = {**pg_env, "DAGSTER_POSTGRES_DB": create_database(pg_env, f"bench_{len(names)}_{concurrency}")}
    env = {**os.environ, **pg_env, "DAGSTER_HOME": str(dagster_home), "HERMES_HOME": str(home)}
    os.environ.update(pg_env)
    instance = dg.DagsterInstance.from_config(str(dagster_home))
    instance.add_dynamic_partitions(hermes_profiles.name, names)
    server = Server(directory, env)
    try:
        server.start_code_server(code_port)
        server.run("dagster", "schedule", "stop", "memory_sync_schedule", "-w", "workspace.yaml")
        server.start_daemon()  # its file sensor's first look requests every changed profile

        def ended():
            records = instance.get_run_records()
            done = [r for r in records if r.dagster_run.is_finished and r.end_time]
            return records if len(done) >= len(names) and len(done) == len(records) else None

        records = wait_for(ended, 3600, f"{len(names)} runs at concurrency {concurrency}: {server.log('daemon')}")
    finally:
        server.kill_all()
        instance.dispose()
    failed = [r.dagster_run.run_id for r in records if r.dagster_run.status != dg.DagsterRunStatus.SUCCESS]
    if failed:
        raise SystemExit(f"runs failed at concurrency {concurrency}: {failed[:5]}")
    others = [r.dagster_run.run_id for r in records if r.dagster_run.tags.get("dagster/sensor_name") != "memory_files_sensor"]
    if others or len(records) != len(names):
        raise SystemExit(f"{len(records)} runs at concurrency {concurrency}, {len(others)} not the file sensor's: not a clean measurement")
    first = min(r.create_timestamp.timestamp() for r in records)
    return max(r.end_time for r in records) - first, [r.end_time - r.start_time for r in records]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--queues", type=int, nargs="+", default=list(CONCURRENCY), help="runs at once on the server")
    parser.add_argument("--entries", type=int, default=30)
    args = parser.parse_args()
    for name in ("DAGSTER_HOME", "HERMES_HOME", "MEMORY_PIPELINE_DATA_DIR", "MEMORY_PIPELINE_PRIVACY_KEYWORDS"):
        os.environ.pop(name, None)
    os.environ["OLLAMA_HOST"] = "http://127.0.0.1:9"  # nothing answers: the rules extractor, as on a server without a model
    rows = []
    with tempfile.TemporaryDirectory() as tmp, postgres_cluster() as pg_env:
        for n in args.profiles:
            home = Path(tmp) / f"home-{n}"
            names = build_home(home, n, args.entries)
            first_s = sqlite_in_process(home)
            print(f"N={n}: first sync of {n} profiles in process: {first_s:.0f} s", flush=True)
            edit_one_entry_each(home, names, tick=1)
            local_s = sqlite_in_process(home)
            rows.append((n, "local SQLite instance, in process, one at a time", local_s, [local_s / n] * n))
            print(f"N={n}: local {local_s:.1f} s", flush=True)
            for tick, concurrency in enumerate(args.queues, start=2):
                edit_one_entry_each(home, names, tick=tick)
                seconds, per_run = postgres_server(home, names, Path(tmp) / f"server-{n}", pg_env, concurrency)
                rows.append((n, f"Postgres instance, a subprocess per run, {concurrency} at once", seconds, per_run))
                print(f"N={n}: queue of {concurrency}: {seconds:.1f} s", flush=True)
    print(
        f"\n| profiles, one entry edited in each | how they run | seconds for all | profiles per minute | seconds per run (median) "
        f"| profiles kept in step at a {SCHEDULE_MIN}-minute schedule | vs local |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|")
    local = {n: seconds for n, label, seconds, _ in rows if label.startswith("local")}
    for n, label, seconds, per_run in rows:
        per_minute = 60.0 * n / seconds
        print(
            f"| {n} | {label} | {seconds:.1f} | {per_minute:.0f} | {median(per_run):.2f} | {per_minute * SCHEDULE_MIN:,.0f} | "
            f"{local[n] / seconds:.2f}× |"
        )


if __name__ == "__main__":
    main()
