"""Plain logic of the pipeline, one package per domain. Nothing under lib/ imports dagster or
reads the environment. Below every package: `choices` (the enums every layer shares) and
`history` (the pipeline's DuckDB history database, whose tables the audit and the extraction
write)."""
