"""Every write to a store, one part per group of tables (`part.StorePart`). The parts are reachable
only through `FactStore.transaction()`'s `StoreWrites`, so no write happens outside a transaction
(the search index's upkeep, which takes its own, is `FactStore.index`)."""
