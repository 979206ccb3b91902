import dagster as dg

from memory_pipeline.defs.jobs import memory_sync_job
from memory_pipeline.defs.partitions import PROFILE_PARTITIONS
from memory_pipeline.defs.resources import HermesHomeResource
from memory_pipeline.lib.sync.state import config_digest
from memory_pipeline.runs.skip_rule import CONFIG_TAG, unchanged_since_last_sync


@dg.schedule(
    name="memory_sync_schedule",
    job=memory_sync_job,
    cron_schedule="*/30 * * * *",
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="Every 30 minutes, one memory_sync_job run per Hermes profile partition where something changed since its last sync.",
)
def memory_sync_schedule(context: dg.ScheduleEvaluationContext, hermes: HermesHomeResource):
    """A run per known profile where something can have changed since its last clean sync (the
    CLI's own skip rule: the files, the store, the keyword list, config.yaml), so a quiet home costs
    no runs; the run key carries the tick's time, so a re-evaluated tick launches nothing twice."""
    known = context.instance.get_dynamic_partitions(PROFILE_PARTITIONS)
    if not known:
        return dg.SkipReason("no Hermes profiles discovered yet")
    served = hermes.home().served()
    changed = [name for name in known if name in served and not unchanged_since_last_sync(hermes.path(), served[name].profile)]
    if not changed:
        return dg.SkipReason("every profile unchanged since its last sync")
    tick = context.scheduled_execution_time.strftime("%Y%m%dT%H%M")
    return [
        dg.RunRequest(
            run_key=f"schedule-{tick}-{name}",
            partition_key=name,
            tags={CONFIG_TAG: config_digest(served[name].profile, hermes.data_dir())},
        )
        for name in changed
    ]
