"""The Dagster layer: thin wrappers over memory_pipeline.lib, split by kind."""
