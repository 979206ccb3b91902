"""What a run of `memory_sync_job` takes and gives, below `defs/`: its options, its outputs read
once into a typed result, the summary each caller shows, and the skip rule that compares what a run
read. Light where it can be: only `result` imports Dagster."""
