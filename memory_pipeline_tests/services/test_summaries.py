"""A run's outputs are read from its metadata by name (`runs.outputs`): every name read is one the
assets write, so a renamed key fails here instead of printing zeros."""

import dagster as dg

from memory_pipeline.launch.execute import run_sync
from memory_pipeline.runs.outputs import READ_METADATA
from memory_pipeline.runs.summary import summary_of_run
from memory_pipeline_tests.support.run_metadata import run_metadata


def test_every_metadata_name_read_is_written_by_a_real_run(demo_home):
    with dg.instance_for_test() as instance:
        (run,) = run_sync(instance, demo_home, ["default"])
        written = {(asset, name) for asset, metadata in run_metadata(instance, run.run_id).items() for name in metadata}
    assert run.success, run.error
    assert READ_METADATA - written == set()
    summary = summary_of_run(run)
    assert summary.added > 0 and summary.facts_total > 0 and summary.extractor and summary.store.endswith("memory_store.db")
