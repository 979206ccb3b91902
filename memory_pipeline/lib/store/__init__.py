"""Hermes' `memory_store.db` and everything the pipeline keeps in it. `fact_store.FactStore` is a
profile's store opened once and the one owner of every write to it, Hermes' tables and the
pipeline's own; its parts (`fact_writes`, `entry_writes`, `ledger_writes`, `record_writes`,
`search_index`) each write one group of tables. Around it: the schema and opening beside a
running Hermes (`database`, `ledger_schema`), the provider's settings, HRR maths (`hrr`) and the
one codec for its two vector dialects (`vector_codec`), entities resolved its way, and the typed
reads other packages make, all through `reader.StoreReader` (over `store_reads`, `store_frames`,
`ledger`, `mirror_rows`, `story`, `verdicts`, `quarantine`, `receipts`, `fact_search`). No module
outside this package holds SQL on these tables or a store's connection (`test_store_owner.py`).
Imports nothing from sync, extraction, privacy or audit."""
