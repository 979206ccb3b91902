"""Keeping a store in step with the files: the SHA-256 ledger (`ledger`) and the diff of entries against it (`diff`,
edits found by `hermes.similarity`), the writer that applies a diff and its facts in one transaction,
the values the stages hand each other, the TSV ledger of the shell era, the per-profile sync
lock and the fingerprint a no-change sync is skipped by."""
