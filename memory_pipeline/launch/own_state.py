"""The pipeline's own state beside the stores (the local Dagster instance's files, the DuckDB
history), checked before a run writes anything: a damaged file is named in one line with the way
out, and `memory-pipeline sync --reset-state` moves it aside (never deletes it) so the next run
starts that file afresh. Nothing of Hermes' is ever looked at here, let alone moved."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from memory_pipeline.lib.files.reading import UnreadableFile, read_text_file
from memory_pipeline.lib.files.writing import out_of_space

RESET_HINT = "`memory-pipeline sync --reset-state` moves it aside and starts it afresh"
# The local instance's SQLite storages (Dagster's default layout under DAGSTER_HOME).
_DAGSTER_DATABASES = {
    "history/runs.db": "run history",
    "history/runs/index.db": "event log index",
    "schedules/schedules.db": "schedule and sensor state",
}


@dataclass(frozen=True)
class Damaged:
    path: Path
    what: str  # what the file holds, in words
    problem: str

    def line(self) -> str:
        return f"{self.path}: the pipeline's {self.what} is damaged ({self.problem}); nothing was written; {RESET_HINT}"


class OwnStateDamaged(Exception):
    """One of the pipeline's own files cannot be used; the message is `Damaged.line()`."""


class OutOfSpace(OwnStateDamaged):
    """A write of the pipeline's own state hit a full disk. One line naming where."""

    def __init__(self, where: Path, what: str):
        super().__init__(f"{where}: No space left on device ({what}); free some space there, then sync again")


def _sqlite_problem(path: Path) -> str | None:
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or out_of_space(exc):
            return None  # in use by a live writer, or a full disk (said when the instance opens): not damaged
        return str(exc).splitlines()[0]
    except sqlite3.DatabaseError as exc:
        return str(exc).splitlines()[0]
    return None


def _duckdb_problem(path: Path) -> str | None:
    import duckdb  # only when a history database is there to check: `--help` stays quick

    try:
        with duckdb.connect(str(path), read_only=True) as db:
            db.execute("SELECT count(*) FROM duckdb_tables()").fetchall()
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            return None  # another run writes it right now
        return str(exc).splitlines()[0][:160]
    except duckdb.Error as exc:
        return str(exc).splitlines()[0][:160]
    return None


def _yaml_problem(path: Path) -> str | None:
    import yaml  # only when a command checks its own state

    try:
        config = yaml.safe_load(read_text_file(path) or "")
    except (UnreadableFile, yaml.YAMLError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return f"not readable YAML: {first}"
    return None if config is None or isinstance(config, dict) else "not a YAML mapping"


def damaged_state(dagster_home: Path, history: Path) -> list[Damaged]:
    """Every damaged file among the instance's config and storages and the history database."""
    found = []
    config = dagster_home / "dagster.yaml"
    if config.exists() and (problem := _yaml_problem(config)):
        found.append(Damaged(config, "Dagster instance config", problem))
    for relative, what in _DAGSTER_DATABASES.items():
        path = dagster_home / relative
        if path.exists() and (problem := _sqlite_problem(path)):
            found.append(Damaged(path, f"Dagster {what}", problem))
    if history.exists() and (problem := _duckdb_problem(history)):
        found.append(Damaged(history, "audit and extraction history", problem))
    return found


def state_identity(dagster_home: Path, history: Path) -> tuple:
    """Which files the instance's config, storages and the history are (device and inode of each,
    None when missing): another tuple means one was created, replaced or moved aside."""
    paths = [dagster_home / "dagster.yaml", *(dagster_home / relative for relative in _DAGSTER_DATABASES), history]
    found: list[tuple[int, int] | None] = []
    for path in paths:
        try:
            st = path.stat()
            found.append((st.st_dev, st.st_ino))
        except OSError:
            found.append(None)
    return tuple(found)


def move_aside(damaged: list[Damaged]) -> list[Path]:
    """Each damaged file (with its SQLite journal files) renamed `<name>.damaged-<time>`; the new names."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    moved = []
    for item in damaged:
        for path in (item.path, *(item.path.with_name(item.path.name + s) for s in ("-wal", "-shm", "-journal", ".wal"))):
            if path.exists():
                target = path.with_name(f"{path.name}.damaged-{stamp}")
                path.rename(target)
                moved.append(target)
    return moved
