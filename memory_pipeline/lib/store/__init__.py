"""Hermes' `memory_store.db` and everything the pipeline keeps in it, in three rooms:

- `schema/`: the tables (Hermes' and the pipeline's own), opening a store safely beside a running
  Hermes, which Holographic made it, and what an older store gains when next opened to write.
- `writes/`: every write, one part per group of tables, reached only through
  `FactStore.transaction()` (`writes.transaction.StoreWrites`).
- `reads/`: every read other packages make, through `reads.reader.StoreReader`, built with the
  ledger owner whose rows it reads.

Around them: `fact_store.FactStore` (a store opened once, the one owner of every write),
`profile_store` (a profile's store before it is opened), `settings` (the provider's), `owner`
(whose ledger rows a profile reads and writes), `sync_report`, the HRR maths (`hrr`) and the one
codec for its two vector dialects (`vector_codec`). No module outside this package holds SQL on
these tables, a store's connection or a transaction's part (`test_store_owner.py`). Imports nothing
from sync, extraction, privacy or audit."""
