"""The Dagster layer: one module per stage and asset group (`ingest`, `sync`, `extract`, `privacy`,
`search`, `audit`, each with its assets and checks), the checks' assets (`checks`), the resources,
the IO manager, the partitions, the job, the schedule, the sensors and the re-tag backfill; each a
thin wrapper over `memory_pipeline.lib`."""

import warnings

import dagster as dg

# Dagster 1.13 (pinned) calls two features used here a preview and a beta: partitioned asset checks
# and observable source assets. Those warnings say nothing new, so they are filtered once, here,
# by their messages (Dagster attributes some to its own modules); any other warning still shows.
warnings.filterwarnings("ignore", "Specifying a partitions_def on an AssetCheckSpec is currently in preview", dg.PreviewWarning)
warnings.filterwarnings("ignore", "Function `observable_source_asset` is currently in beta", dg.BetaWarning)
