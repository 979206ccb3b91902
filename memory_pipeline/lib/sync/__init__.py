"""Keeping a store in step with the files: the diff of entries against the ledger (`diff`, edits
found by `hermes.similarity` and the agent's journal), Holographic's mirror rows placed in that
diff (`mirror`), the writer that applies a diff and its facts through the profile's `FactStore` in
one transaction, the values the stages hand each other, the per-profile sync lock and the
fingerprint a no-change sync is skipped by."""
