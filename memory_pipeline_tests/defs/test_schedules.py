import datetime

import dagster as dg

from memory_pipeline.cli import main
from memory_pipeline.definitions import defs
from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.resources import HermesHomeResource
from memory_pipeline.defs.schedules import memory_sync_schedule
from memory_pipeline.runs.skip_rule import CONFIG_TAG


def _tick(instance, home, tick):
    resources = {"hermes": HermesHomeResource(hermes_home=str(home))}
    with dg.build_schedule_context(instance=instance, scheduled_execution_time=tick, resources=resources) as context:
        return memory_sync_schedule(context)


def test_every_30_minutes_a_run_per_profile_that_changed_since_its_last_sync(demo_home, capsys):
    assert memory_sync_schedule.cron_schedule == "*/30 * * * *"
    assert memory_sync_schedule.default_status == dg.DefaultScheduleStatus.RUNNING
    assert defs.resolve_schedule_def("memory_sync_schedule").job_name == "memory_sync_job"
    tick = datetime.datetime(2026, 12, 3, 10, 30, tzinfo=datetime.UTC)
    with dg.instance_for_test() as instance:
        assert isinstance(_tick(instance, demo_home, tick), dg.SkipReason)
        instance.add_dynamic_partitions(hermes_profiles.name, ["default", "work", "research"])  # research: gone from the home
        requests = _tick(instance, demo_home, tick)
        assert sorted(r.partition_key for r in requests) == ["default", "work"]
        assert len({r.run_key for r in requests}) == 2 and all("20261203T1030" in r.run_key for r in requests)
        assert all(r.tags[CONFIG_TAG] for r in requests)  # their success is recorded for the next skip
        # The CLI's own skip rule: after a default sync nothing is left to run; an edit runs its profile.
        assert main(["sync", "--hermes-home", str(demo_home), "--quiet"]) in (0, 1)  # a default sync, as cron runs it
        skipped = _tick(instance, demo_home, tick)
        assert isinstance(skipped, dg.SkipReason) and "unchanged" in skipped.skip_message
        memory = demo_home / "profiles" / "work" / "memories" / "MEMORY.md"
        memory.write_text(memory.read_text(encoding="utf-8") + "\n§\nA new entry", encoding="utf-8")
        assert [r.partition_key for r in _tick(instance, demo_home, tick)] == ["work"]
