import dagster as dg

from memory_pipeline.defs.assets import audit_report, fts_index, privacy_tags
from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.resources import HermesHomeResource, PrivacyResource
from memory_pipeline.lib.privacy import KeywordListError

RETAG_ASSETS = [privacy_tags, fts_index, audit_report]


@dg.sensor(
    name="privacy_keywords_sensor",
    description="Re-tags every profile when the privacy keyword list's SHA-256 changes.",
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    asset_selection=RETAG_ASSETS,
)
def privacy_keywords_sensor(
    context: dg.SensorEvaluationContext, hermes: HermesHomeResource, privacy: PrivacyResource
) -> dg.SensorResult | dg.SkipReason:
    """The cursor is the list's hash (never its terms): a new hash requests `privacy_tags`,
    `fts_index` and `audit_report` for every profile partition, one run each, keyed by the hash so
    none repeats."""
    try:
        digest = privacy.keywords(hermes.path()).sha256
    except KeywordListError as exc:
        return dg.SkipReason(str(exc))
    if digest == context.cursor:
        return dg.SkipReason("privacy keyword list unchanged")
    profiles = context.instance.get_dynamic_partitions(hermes_profiles.name)
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(run_key=f"retag-{digest[:16]}-{profile}", partition_key=profile) for profile in profiles
        ],
        cursor=digest,
    )
