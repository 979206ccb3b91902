"""What starts runs, above `defs/`: in-process execution, the re-tag backfill on a daemon, the local
instance and the pipeline's own state checked before a run writes."""
