"""A run's asset metadata as the UI shows it (asset -> name -> plain value), read back from the
instance that recorded it: what the tests of the assets' metadata compare."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from memory_pipeline.launch.instance import local_instance
from memory_pipeline.runs.result import materialized_metadata


def run_metadata(instance: dg.DagsterInstance, run_id: str) -> dict[str, dict[str, object]]:
    events = [entry.dagster_event for entry in instance.all_logs(run_id) if entry.dagster_event is not None]
    return materialized_metadata(events)


def home_run_metadata(home: Path, run_id: str) -> dict[str, dict[str, object]]:
    """The same, from the home's own local instance (where the sync service's runs are recorded)."""
    instance = local_instance(home)
    try:
        return run_metadata(instance, run_id)
    finally:
        instance.dispose()
