import dagster as dg

memory_sync_job = dg.define_asset_job(
    name="memory_sync_job",
    selection=dg.AssetSelection.all(),
    description="Keep one profile's fact store in step with its MEMORY.md and USER.md.",
)
