"""Wall-clock time of whole CLI commands, as a person types them, side by side in one run.

    .venv/bin/python benchmarks/bench_cli.py [--repeat 7]

The interactive commands (`--help`, `search`, `status`, `entries`) against `python -c "import
dagster"` (what every command cost while it imported Dagster and pandas); a one-profile `sync` with
one edited entry (a whole Dagster run) against the same import and against the floor of any run in
the CLI's process (importing Dagster, its SQLite storages and pandas, which the stages hand on); and a no-change `sync` of a
four-profile home, one of whose profiles is over its cap (a standing problem), against a no-change
`sync` of one of its profiles. Each round runs every command once, in turn, so the machine's drift
hits all of them alike; the table gives medians. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory_pipeline_tests.support.repository import DEMO_HERMES_HOME  # noqa: E402

CLI = [sys.executable, "-c", "import sys; from memory_pipeline.cli import main; sys.exit(main(sys.argv[1:]))"]
# What any Dagster run in the CLI's process imports before it does anything: the local instance's
# storages (SQLAlchemy, Alembic) and pandas.
FLOOR = (
    "import dagster, pandas, dagster._core.storage.runs.sqlite, dagster._core.storage.event_log.sqlite, "
    "dagster._core.storage.schedules.sqlite"
)


def _home(base: Path) -> Path:
    """The demo home with two more profiles: four in all, English and Chinese entries."""
    home = base / "hermes_home"
    shutil.copytree(DEMO_HERMES_HOME, home, ignore=shutil.ignore_patterns("memory_store.db*", "memory-pipeline"))
    for name, source in (("research", "profiles/work"), ("family", "")):
        shutil.copytree(home / source / "memories", home / "profiles" / name / "memories")
    family = home / "profiles" / "family" / "memories" / "MEMORY.md"
    family.write_text(family.read_text(encoding="utf-8") + "\n§\n**Overflow**: " + "家庭日程 " * 60, encoding="utf-8")  # over its cap
    return home


def _edit_one_entry(home: Path, round_: int) -> None:
    """A different last line each round: the next sync of `default` has one changed entry."""
    memory = home / "memories" / "MEMORY.md"
    text = memory.read_text(encoding="utf-8").rsplit("\n§\n", 1)[0]
    memory.write_text(f"{text}\n§\n**Round**: edited in round {round_}", encoding="utf-8")


def _timed(command: list[str], env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[3:])} failed:\n{done.stderr[-1500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="rounds (each runs every command once)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = _home(Path(tmp))
        env = {**os.environ, "HERMES_HOME": str(home), "OLLAMA_HOST": "http://127.0.0.1:9"}
        subprocess.run([*CLI, "sync", "--quiet"], env=env, check=False)  # the last clean sync the next ones compare with
        commands = {
            'python -c "import dagster"': [sys.executable, "-c", "import dagster"],
            "floor of an in-process run (import dagster, its SQLite storages, pandas)": [sys.executable, "-c", FLOOR],
            "memory-pipeline --help": [*CLI, "--help"],
            "memory-pipeline search 部署": [*CLI, "search", "部署"],
            "memory-pipeline status": [*CLI, "status"],
            "memory-pipeline entries": [*CLI, "entries"],
            "memory-pipeline sync --profile default (one edited entry)": [*CLI, "sync", "--profile", "default"],
            "memory-pipeline sync --profile default (no change)": [*CLI, "sync", "--profile", "default"],
            "memory-pipeline sync (4 profiles, no change, 1 over its cap)": [*CLI, "sync"],
        }
        times: dict[str, list[float]] = {label: [] for label in commands}
        for round_ in range(args.repeat):
            for label, command in commands.items():
                if "edited" in label:
                    _edit_one_entry(home, round_)
                times[label].append(_timed(command, env))
    medians = {label: median(values) for label, values in times.items()}
    dagster = medians['python -c "import dagster"']
    single = medians["memory-pipeline sync --profile default (no change)"]
    print(f"| command | median wall time ({args.repeat} rounds) | vs `import dagster` | vs one-profile no-change sync |")
    print("|---|---:|---:|---:|")
    for label, seconds in medians.items():
        sync_ratio = f"{seconds / single:.2f}×" if "sync" in label else "–"
        print(f"| `{label}` | {seconds:.2f} s | {seconds / dagster:.2f}× | {sync_ratio} |")


if __name__ == "__main__":
    main()
