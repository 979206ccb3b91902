"""The Dagster layer: one module per stage (`ingest`, `sync`, `privacy`, `audit`, each with its
assets and checks), the resources, the IO manager, the partitions, the job, the schedule, the
sensors and the re-tag backfill; each a thin wrapper over `memory_pipeline.lib`."""
