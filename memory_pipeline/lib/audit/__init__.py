"""The cross-layer audits: the one check registry and the results (`checks`), the engine that
loads the three layers into DuckDB and runs the rules (`engine`), the report and its DuckDB
history, the mechanical repairs, and the metric summaries the assets plot."""
