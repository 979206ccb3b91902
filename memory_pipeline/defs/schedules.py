import dagster as dg

from memory_pipeline.defs.jobs import memory_sync_job
from memory_pipeline.defs.partitions import hermes_profiles


@dg.schedule(
    name="memory_sync_schedule",
    job=memory_sync_job,
    cron_schedule="*/30 * * * *",
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="Every 30 minutes, one memory_sync_job run per Hermes profile partition.",
)
def memory_sync_schedule(context: dg.ScheduleEvaluationContext):
    """A run per known profile (the discovery sensor keeps the partitions in step with the home);
    the run key carries the tick's time, so a re-evaluated tick launches nothing twice."""
    profiles = context.instance.get_dynamic_partitions(hermes_profiles.name)
    if not profiles:
        return dg.SkipReason("no Hermes profiles discovered yet")
    tick = context.scheduled_execution_time.strftime("%Y%m%dT%H%M")
    return [dg.RunRequest(run_key=f"schedule-{tick}-{profile}", partition_key=profile) for profile in profiles]
