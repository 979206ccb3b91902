"""The persistent local Dagster instance that CLI runs and the UI share, so runs show in one history."""

import fcntl
import os
import shutil
from pathlib import Path

import dagster as dg
from dagster._core.instance.ref import InstanceRef

from memory_pipeline import environment
from memory_pipeline.defs.partitions import PROFILE_PARTITIONS
from memory_pipeline.launch.own_state import RESET_HINT, OutOfSpace, OwnStateDamaged, damaged_state, move_aside, state_identity
from memory_pipeline.launch.sqlite_storage import with_kept_engines
from memory_pipeline.lib.files.writing import out_of_space, private_directory
from memory_pipeline.lib.history import history_path

INSTANCE_TEMPLATE = Path(__file__).parent.parent / "dagster.yaml"  # shipped at the package root
# Instances a long-lived process (the warm worker) keeps open between syncs, by Dagster home, with
# the identity of the files they opened.
_KEPT: dict[Path, tuple[tuple, dg.DagsterInstance]] = {}
_KEEPING: list[bool] = [False]


def keep_instances_open() -> None:
    """From now on in this process, each home's instance is opened once and handed out again while
    its files are the ones it opened (`sync --reset-state` elsewhere, or a file replaced, opens it anew)."""
    _KEEPING[0] = True


def prepared_dagster_home(hermes_home: Path) -> Path:
    """The instance directory, created with the project's `dagster.yaml` when new (a user's own
    edits to an existing one are kept)."""
    home = environment.dagster_home(hermes_home)
    # The instance's storage/ holds each step's value (entry text): its owner's alone.
    private_directory(home)
    private_directory(home / "storage")
    config = home / "dagster.yaml"
    if not config.exists():
        shutil.copyfile(INSTANCE_TEMPLATE, config)
    return home


def local_instance(hermes_home: Path, *, reset_damaged: bool = False, on_reset=None) -> dg.DagsterInstance:
    """The instance, its SQLite storages created under an exclusive lock: two first syncs started
    together would otherwise both create them and one die on `alembic_version`. The pipeline's own
    files are checked first: a damaged one raises `OwnStateDamaged` (one line, the way out), or,
    with `reset_damaged`, is moved aside (`on_reset` hears each new name) and started afresh."""
    where, history = environment.dagster_home(hermes_home), history_path(environment.data_dir(hermes_home))
    kept = _KEPT.get(where)
    if kept is not None and not reset_damaged and kept[0] == state_identity(where, history):
        return kept[1]
    damaged = damaged_state(where, history)
    if damaged and not reset_damaged:
        raise OwnStateDamaged(damaged[0].line())
    for moved in move_aside(damaged):
        if on_reset is not None:
            on_reset(moved)
    home = prepared_dagster_home(hermes_home)
    fd = os.open(home / ".storage-lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            instance = dg.DagsterInstance.from_ref(with_kept_engines(InstanceRef.from_dir(str(home))))
            # Touch every storage while the lock is held, so none is created later by two at once.
            instance.get_runs(limit=1)
            instance.get_dynamic_partitions(PROFILE_PARTITIONS)
            instance.all_instigator_state()
        except Exception as exc:  # noqa: BLE001 - whatever Dagster raises on its own files, one line and the way out
            if out_of_space(exc):
                raise OutOfSpace(home, "the pipeline's Dagster instance could not be opened") from None
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
            raise OwnStateDamaged(
                f"{home}: the pipeline's Dagster instance cannot be opened ({type(exc).__name__}: {first}); nothing was written; "
                f"check {home / 'dagster.yaml'}, or {RESET_HINT.replace('it aside', 'its files aside')}"
            ) from None
    finally:
        os.close(fd)
    if _KEEPING[0]:
        _KEPT[where] = (state_identity(where, history), instance)
    return instance
