"""The re-tag backfill: `privacy_tags` → `fts_index` → `audit_report` over a set of profiles, as
one Dagster backfill (the Backfills view shows it with each profile's status). The keyword-list
sensor requests it; `memory-pipeline sync --retag` submits it when a daemon is there to run it."""

import time
from datetime import UTC, datetime

import dagster as dg

# Dagster 1.13 (pinned) has no public constructor for a backfill of an asset subset: its own
# automation sensor and `launchPartitionBackfill` build one from these. `test_sensors` and the UI
# end-to-end test pin the shape relied on.
from dagster._core.definitions.assets.graph.asset_graph_subset import AssetGraphSubset
from dagster._core.execution.backfill import BulkActionsFilter, BulkActionStatus, PartitionBackfill
from dagster._core.utils import make_new_backfill_id

from memory_pipeline.defs.partitions import hermes_profiles

RETAG_ASSETS = [dg.AssetKey(name) for name in ("privacy_tags", "fts_index", "audit_report")]
RETAG_TAG = "memory_pipeline/retag"  # the keyword list's short hash: which version a backfill applied
RETAG_BY_TAG = "memory_pipeline/retag_by"  # `sensor` (the list changed) or `cli` (`sync --retag`)


def _retag_subset(profiles: list[str]) -> AssetGraphSubset:
    partitions = hermes_profiles.empty_subset().with_partition_keys(profiles)
    subsets = {key: partitions for key in RETAG_ASSETS}
    return AssetGraphSubset(partitions_subsets_by_asset_key=subsets, non_partitioned_asset_keys=set())  # type: ignore[call-arg]  # typed without its defaults


def retag_backfill(profiles: list[str], lists_digest: str) -> dg.RunRequest:
    """A request the sensor daemon turns into one backfill (not one run per profile)."""
    return dg.RunRequest.for_asset_graph_subset(_retag_subset(profiles), tags={RETAG_TAG: lists_digest[:16], RETAG_BY_TAG: "sensor"})


def submit_retag_backfill(instance: dg.DagsterInstance, profiles: list[str], lists_digest: str, run_config: dict) -> str:
    """The same backfill, added to the instance for its daemon to run (as the UI's launch does); its id."""
    backfill_id = make_new_backfill_id()
    instance.add_backfill(
        PartitionBackfill.from_asset_graph_subset(
            backfill_id=backfill_id,
            backfill_timestamp=time.time(),
            tags={RETAG_TAG: lists_digest[:16], RETAG_BY_TAG: "cli"},
            dynamic_partitions_store=instance,
            asset_graph_subset=_retag_subset(profiles),
            title=None,
            description=None,
            run_config=run_config,
        )
    )
    return backfill_id


def cancel_untaken(instance: dg.DagsterInstance, backfill_id: str) -> None:
    """A backfill no daemon took, canceled (its re-tag runs elsewhere): the Backfills view says so."""
    backfill = instance.get_backfill(backfill_id)
    if backfill is not None and backfill.status == BulkActionStatus.REQUESTED:
        instance.update_backfill(backfill.with_status(BulkActionStatus.CANCELED))


def retag_in_progress(instance: dg.DagsterInstance, lists_digest: str, profiles: list[str]) -> str | None:
    """An unfinished re-tag backfill of this list version covering these profiles (the keyword
    sensor's, say), which `sync --retag` waits for instead of submitting an identical one."""
    filters = BulkActionsFilter(tags={RETAG_TAG: lists_digest[:16]}, statuses=[BulkActionStatus.REQUESTED])
    for backfill in instance.get_backfills(filters=filters):
        target = (
            backfill.asset_backfill_data.target_subset.partitions_subsets_by_asset_key.get(RETAG_ASSETS[0])
            if backfill.asset_backfill_data
            else None
        )
        if target is not None and set(profiles) <= set(target.get_partition_keys()):
            return backfill.backfill_id
    return None


def retag_submitted_since(instance: dg.DagsterInstance, lists_digest: str, since: float) -> str | None:
    """A re-tag backfill of this list version `sync --retag` submitted after `since` (a timestamp):
    the keyword sensor then launches no second one."""
    filters = BulkActionsFilter(
        tags={RETAG_TAG: lists_digest[:16], RETAG_BY_TAG: "cli"}, created_after=datetime.fromtimestamp(since, tz=UTC)
    )
    found = instance.get_backfills(filters=filters, limit=1)
    return found[0].backfill_id if found else None
