import dagster as dg

memory_sync_job = dg.define_asset_job(
    name="memory_sync_job",
    selection=dg.AssetSelection.all(),
    description="Keep one profile's fact store in step with its MEMORY.md and USER.md.",
    # Step events belong in the UI (the event log keeps every level); a terminal running
    # `memory-pipeline ui` shows only warnings and errors.
    config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
    # A retry (an instance with `run_retries`, e.g. deploy/dagster.yaml) re-runs every step: a sync
    # is idempotent, and its steps hand each other values that a run in another container or
    # process could not load from the failed run's storage.
    tags={"dagster/retry_strategy": "ALL_STEPS"},
)
