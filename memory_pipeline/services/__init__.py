"""What the command line, the cron wrapper and the MCP server call: each service takes a Hermes
home and plain options and returns typed values; the callers only format them. Services start
runs through `launch/` (what a run takes and gives is `runs/`) and read `lib`; they print nothing.
`sync` keeps every profile in step (skipping the unchanged, running or backfilling the rest,
recording what each run read), `compaction` shortens full memory files, `audit` runs a profile's checks and repairs, `ledger`
exports and imports the TSV ledger, `mirrors` settles Holographic's unexplained mirror rows;
`reading` (search and facts by id across profiles) and `status` read back what the pipeline
keeps, for people and for the agent: reads only, handing out a private fact only when asked,
never one the privacy stage has not judged."""
