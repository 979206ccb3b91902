"""The cross-layer audits: the one check registry and the results (`checks`), what is read of the
three layers (`layers`), the engine that loads them into DuckDB once and runs the rules
(`engine`), the rules one module per group of checks (`rules/`), the extraction checks and their
call history (`extraction_health`), the report and its DuckDB history, the mechanical repairs,
and the metric summaries the assets plot. The top layer of `lib`: it may read every package."""
