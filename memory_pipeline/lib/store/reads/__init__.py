"""Every read another package makes of a store, through `reader.StoreReader`, built over one
connection with the ledger owner whose rows it reads; its modules read one group of tables each
and never write."""
