import datetime

import dagster as dg

from memory_pipeline.definitions import defs
from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.schedules import memory_sync_schedule


def test_every_30_minutes_one_run_per_profile():
    assert memory_sync_schedule.cron_schedule == "*/30 * * * *"
    assert memory_sync_schedule.default_status == dg.DefaultScheduleStatus.RUNNING
    assert defs.resolve_schedule_def("memory_sync_schedule").job_name == "memory_sync_job"
    with dg.instance_for_test() as instance:
        tick = datetime.datetime(2026, 12, 3, 10, 30, tzinfo=datetime.UTC)
        empty = memory_sync_schedule(dg.build_schedule_context(instance=instance, scheduled_execution_time=tick))
        assert isinstance(empty, dg.SkipReason)
        instance.add_dynamic_partitions(hermes_profiles.name, ["default", "work", "research"])
        requests = memory_sync_schedule(dg.build_schedule_context(instance=instance, scheduled_execution_time=tick))
        assert sorted(r.partition_key for r in requests) == ["default", "research", "work"]
        assert len({r.run_key for r in requests}) == 3 and all("20261203T1030" in r.run_key for r in requests)
