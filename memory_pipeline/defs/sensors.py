import json
import time

import dagster as dg

from memory_pipeline.defs.backfills import RETAG_ASSETS, retag_backfill, retag_submitted_since
from memory_pipeline.defs.jobs import memory_sync_job
from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.privacy import keyword_list_metadata
from memory_pipeline.defs.resources import HermesHomeResource, PrivacyResource
from memory_pipeline.lib.hermes.profiles import discover_profiles, memory_files_digest
from memory_pipeline.lib.privacy.choice import lists_digest


@dg.sensor(
    name="privacy_keywords_sensor",
    description="Launches one backfill re-tagging every profile when a profile's privacy keyword list (its SHA-256) changes.",
    # Hashing one small file: cheap enough that an edited list is acted on within seconds.
    minimum_interval_seconds=15,
    default_status=dg.DefaultSensorStatus.RUNNING,
    asset_selection=RETAG_ASSETS,
)
def privacy_keywords_sensor(
    context: dg.SensorEvaluationContext, hermes: HermesHomeResource, privacy: PrivacyResource
) -> dg.SensorResult | dg.SkipReason:
    """The cursor holds the lists' combined hash (never a term): a new hash launches one backfill of
    `privacy_tags` → `fts_index` → `audit_report` over every profile partition, shown in the UI's
    Backfills view with each profile's status. A list that returns to an earlier version is
    re-applied too: only the hash seen last counts. A list that cannot be read changes the hash
    too: its profile's re-tag then fails closed, with the list's one line."""
    lists = privacy.lists(hermes.path())
    digest = lists_digest(lists)
    # Each new version of the list is an observation of `privacy_keywords`: the UI shows when the
    # list last changed, and its data version is the hash (never a term).
    observed = [
        dg.AssetObservation(
            asset_key=dg.AssetKey("privacy_keywords"),
            tags={"dagster/data_version": digest},
            metadata=keyword_list_metadata(lists),
        )
    ]
    # The cursor also says when the hash was recorded: a `sync --retag` backfill of the new list
    # submitted since then already re-tagged every profile it names.
    cursor = json.dumps({"sha256": digest, "at": time.time()})
    if context.cursor is None:
        # First look: every sync run tags against the current list anyway; only later edits need a re-tag.
        return dg.SensorResult(skip_reason="privacy keyword list recorded", asset_events=observed, cursor=cursor)
    seen = json.loads(context.cursor)
    if digest == seen["sha256"]:
        return dg.SkipReason("privacy keyword list unchanged")
    if by_cli := retag_submitted_since(context.instance, digest, float(seen.get("at", 0.0))):
        return dg.SensorResult(skip_reason=f"already re-tagged by `sync --retag` (backfill {by_cli})", asset_events=observed, cursor=cursor)
    profiles = context.instance.get_dynamic_partitions(hermes_profiles.name)
    return dg.SensorResult(
        run_requests=[retag_backfill(profiles, digest)] if profiles else [],
        skip_reason=None if profiles else "no profiles to re-tag",
        asset_events=observed,
        cursor=cursor,
    )


@dg.sensor(
    name="memory_files_sensor",
    description="Syncs a profile soon after its MEMORY.md or USER.md changes (by content hash, not mtime).",
    job=memory_sync_job,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
)
def memory_files_sensor(context: dg.SensorEvaluationContext, hermes: HermesHomeResource) -> dg.SensorResult:
    """The cursor maps each profile to the SHA-256 of its two memory files: a profile whose hash
    moved (or that the cursor has not seen) gets one run. A touched but unchanged file is no change."""
    cursor = json.loads(context.cursor) if context.cursor else {}
    seen: dict[str, str] = cursor.get("profiles", {})
    generation = int(cursor.get("generation", 0)) + 1
    now: dict[str, str] = {}
    requests = []
    present = {profile.name: profile for profile in discover_profiles(hermes.path())}  # one scan of the home per tick
    for name in context.instance.get_dynamic_partitions(hermes_profiles.name):
        if name not in present:
            continue  # gone from the home: nothing to sync
        now[name] = memory_files_digest(present[name])
        if seen.get(name) != now[name]:
            # The generation keeps the key unique when a file returns to an earlier content.
            requests.append(dg.RunRequest(run_key=f"files-{name}-{now[name][:12]}-{generation}", partition_key=name))
    return dg.SensorResult(
        run_requests=requests,
        skip_reason=None if requests else "memory files unchanged",
        cursor=json.dumps({"profiles": now, "generation": generation if requests else generation - 1}),
    )


@dg.sensor(
    name="profile_discovery_sensor",
    description="Adds every Hermes profile found in the home (the root one and profiles/<name>/) as a partition.",
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
)
def profile_discovery_sensor(context: dg.SensorEvaluationContext, hermes: HermesHomeResource):
    """New profiles only: a profile that disappears keeps its partition and run history."""
    known = set(context.instance.get_dynamic_partitions(hermes_profiles.name))
    new = [p.name for p in discover_profiles(hermes.path()) if p.name not in known]
    if not new:
        return dg.SkipReason("no new Hermes profiles")
    context.log.info(f"new Hermes profiles: {', '.join(new)}")
    return dg.SensorResult(dynamic_partitions_requests=[hermes_profiles.build_add_request(new)])
