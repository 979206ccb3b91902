"""The persistent local Dagster instance that CLI runs and the UI share, so runs show in one history."""

import fcntl
import os
import shutil
from pathlib import Path

import dagster as dg

from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.lib.hermes.profiles import pipeline_data_dir
from memory_pipeline.lib.hermes.safe_files import private_directory

INSTANCE_TEMPLATE = Path(__file__).with_name("dagster.yaml")


def dagster_home(hermes_home: Path) -> Path:
    """`DAGSTER_HOME` when set, else `dagster_home/` in the pipeline's data directory."""
    override = os.environ.get("DAGSTER_HOME")
    return Path(override).expanduser().resolve() if override else pipeline_data_dir(hermes_home) / "dagster_home"


def prepared_dagster_home(hermes_home: Path) -> Path:
    """The instance directory, created with the project's `dagster.yaml` when new (a user's own
    edits to an existing one are kept)."""
    home = dagster_home(hermes_home)
    # The instance's storage/ holds each step's value (entry text): its owner's alone.
    private_directory(home)
    private_directory(home / "storage")
    config = home / "dagster.yaml"
    if not config.exists():
        shutil.copyfile(INSTANCE_TEMPLATE, config)
    return home


def local_instance(hermes_home: Path) -> dg.DagsterInstance:
    """The instance, its SQLite storages created under an exclusive lock: two first syncs started
    together would otherwise both create them and one die on `alembic_version`."""
    home = prepared_dagster_home(hermes_home)
    fd = os.open(home / ".storage-lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        instance = dg.DagsterInstance.from_config(str(home))
        # Touch every storage while the lock is held, so none is created later by two at once.
        instance.get_runs(limit=1)
        instance.get_dynamic_partitions(hermes_profiles.name)
        instance.all_instigator_state()
    finally:
        os.close(fd)
    return instance
