"""The re-tag backfill: `privacy_tags` → `fts_index` → `audit_report` over a set of profiles, as
one Dagster backfill (the Backfills view shows it with each profile's status)."""

import dagster as dg

# Dagster 1.13 (pinned) has no public constructor for a sensor's backfill request: its own
# automation sensor builds one this way. `test_sensors` pins the shape it relies on.
from dagster._core.definitions.assets.graph.asset_graph_subset import AssetGraphSubset

from memory_pipeline.defs.partitions import hermes_profiles

RETAG_ASSETS = [dg.AssetKey(name) for name in ("privacy_tags", "fts_index", "audit_report")]
RETAG_TAG = "memory_pipeline/retag"  # the keyword list's short hash: which version a backfill applied


def retag_backfill(profiles: list[str], keywords_sha256: str) -> dg.RunRequest:
    """A request the sensor daemon turns into one backfill (not one run per profile)."""
    partitions = hermes_profiles.empty_subset().with_partition_keys(profiles)
    subset = AssetGraphSubset(partitions_subsets_by_asset_key={key: partitions for key in RETAG_ASSETS}, non_partitioned_asset_keys=set())
    return dg.RunRequest.for_asset_graph_subset(subset, tags={RETAG_TAG: keywords_sha256[:16]})
