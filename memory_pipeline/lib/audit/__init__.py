"""The cross-layer audits: the one check registry and the results (`checks`), what is read of the
three layers (`layers`), those layers loaded into DuckDB once as the rules see them (`loaded`), the
engine that runs the rules on them (`engine`), the rules one module per group of checks
(`rules/`), the extraction checks (`extraction_health`), the report and its rows in the history
database, the mechanical repairs, and the metric summaries the assets plot. The top layer of
`lib`: it may read every package."""
