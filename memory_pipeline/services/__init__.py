"""What the command line, the cron wrapper and the MCP server call: each service takes a Hermes
home and plain options and returns typed values; the callers only format them. Services may run
Dagster jobs (`memory_pipeline.runs`) and read `lib`; they print nothing. `sync` keeps every
profile in step (skipping the unchanged, running or backfilling the rest, recording what each
run read) and `summaries` says what a run did, the one place a run's metadata is read by name."""
