import json
import time

import dagster as dg

from memory_pipeline.defs.backfills import RETAG_ASSETS, retag_backfill, retag_submitted_since
from memory_pipeline.defs.jobs import memory_sync_job
from memory_pipeline.defs.partitions import PROFILE_PARTITIONS, hermes_profiles
from memory_pipeline.defs.privacy import keyword_list_metadata
from memory_pipeline.defs.resources import HermesHomeResource, PrivacyResource
from memory_pipeline.lib.hermes.profiles import memory_files_digest
from memory_pipeline.lib.privacy.choice import lists_digest
from memory_pipeline.lib.sync.state import config_digest
from memory_pipeline.runs.result import run_result
from memory_pipeline.runs.skip_rule import CONFIG_TAG, record_daemon_run


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
    """The cursor holds the lists' combined keyed digest (never a term): a new one launches one backfill of
    `privacy_tags` → `fts_index` → `audit_report` over every profile partition, shown in the UI's
    Backfills view with each profile's status. A list that returns to an earlier version is
    re-applied too: only the hash seen last counts. A list that cannot be read changes the hash
    too: its profile's re-tag then fails closed, with the list's one line."""
    lists, key = privacy.lists(hermes.path()), hermes.digest_key()
    digest = lists_digest(lists, key)
    # Each new version of the list is an observation of `privacy_keywords`: the UI shows when the
    # list last changed, and its data version is the keyed digest (never a term).
    observed = [
        dg.AssetObservation(
            asset_key=dg.AssetKey("privacy_keywords"),
            tags={"dagster/data_version": digest},
            metadata=keyword_list_metadata(lists, key),
        )
    ]
    # The cursor also says when the digest was recorded: a `sync --retag` backfill of the new list
    # submitted since then already re-tagged every profile it names.
    cursor = json.dumps({"digest": digest, "at": time.time()})
    if context.cursor is None:
        # First look: every sync run tags against the current list anyway; only later edits need a re-tag.
        return dg.SensorResult(skip_reason="privacy keyword list recorded", asset_events=observed, cursor=cursor)
    seen = json.loads(context.cursor)
    if digest == seen.get("digest"):  # a cursor from before the digest was keyed differs: one re-tag
        return dg.SkipReason("privacy keyword list unchanged")
    if by_cli := retag_submitted_since(context.instance, digest, float(seen.get("at", 0.0))):
        return dg.SensorResult(skip_reason=f"already re-tagged by `sync --retag` (backfill {by_cli})", asset_events=observed, cursor=cursor)
    profiles = context.instance.get_dynamic_partitions(PROFILE_PARTITIONS)
    return dg.SensorResult(
        run_requests=[retag_backfill(list(profiles), digest)] if profiles else [],
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
    # One scan of the home per tick; a profile whose agent reads per-user stores is not synced.
    served = hermes.home().served()
    for name in context.instance.get_dynamic_partitions(PROFILE_PARTITIONS):
        if name not in served:
            continue  # gone from the home: nothing to sync
        now[name] = memory_files_digest(served[name].profile)
        if seen.get(name) != now[name]:
            # The generation keeps the key unique when a file returns to an earlier content.
            tags = {CONFIG_TAG: config_digest(served[name].profile, hermes.data_dir())}  # its success is recorded for the next skip
            requests.append(dg.RunRequest(run_key=f"files-{name}-{now[name][:12]}-{generation}", partition_key=name, tags=tags))
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
    known = set(context.instance.get_dynamic_partitions(PROFILE_PARTITIONS))
    new = [p.name for p in hermes.home().profiles if p.name not in known]
    if not new:
        return dg.SkipReason("no new Hermes profiles")
    context.log.info(f"new Hermes profiles: {', '.join(new)}")
    return dg.SensorResult(dynamic_partitions_requests=[hermes_profiles.build_add_request(new)])


@dg.run_status_sensor(
    name="sync_recorded_sensor",
    run_status=dg.DagsterRunStatus.SUCCESS,
    monitored_jobs=[memory_sync_job],
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Records what each successful scheduled or file-sensor sync read, so the next tick skips an unchanged profile.",
)
def sync_recorded_sensor(context: dg.RunStatusSensorContext, hermes: HermesHomeResource):
    """A daemon's default run (it carries config.yaml's digest as a tag) recorded as a CLI sync's
    is: the next scheduled tick, or `memory-pipeline sync`, skips the profile while nothing changed."""
    run = context.dagster_run
    name, config = run.tags.get("dagster/partition"), run.tags.get(CONFIG_TAG)
    resources = (run.run_config or {}).get("resources") or {}
    if name is None or config is None or not isinstance(resources, dict) or resources.keys() - {"hermes"}:
        return dg.SkipReason("not a default daemon run of one profile")
    present = {p.name: p for p in hermes.home().profiles}
    if name not in present:
        return dg.SkipReason(f"profile {name} is gone")
    stats = context.instance.get_run_stats(run.run_id)
    events = [entry.dagster_event for entry in context.instance.all_logs(run.run_id) if entry.dagster_event is not None]
    duration = (stats.end_time or 0.0) - (stats.start_time or 0.0)
    record_daemon_run(hermes.path(), present[name], run_result(events, run.run_id, name, True, duration), config)
    return dg.SkipReason(f"recorded the sync of {name}")
