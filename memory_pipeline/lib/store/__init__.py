"""Hermes' `memory_store.db` as the Holographic provider keeps it: the schema and every table name
(`database`), opening it beside a running Hermes and one write transaction, the provider's
settings, HRR maths (`hrr`) and the one codec for its two vector dialects (`vector_codec`),
entities resolved its way, the writes a fact change needs (links, vector, banks), the trigram
search index and the quarantine table. Imports nothing from sync, extraction, privacy or audit."""
