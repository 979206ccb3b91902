import dagster as dg

memory_sync_job = dg.define_asset_job(
    name="memory_sync_job",
    selection=dg.AssetSelection.all(),
    description="Keep one profile's fact store in step with its MEMORY.md and USER.md.",
    # Step events belong in the UI (the event log keeps every level); a terminal running
    # `memory-pipeline ui` shows only warnings and errors.
    config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
)
