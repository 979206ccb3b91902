"""The pipeline's archive of retired facts: an entry removed from the files takes its facts out of
Hermes' tables (so no Hermes tool returns them at any trust) into this table, row and entity
links' ids kept, until the entry comes back and `FactStore.facts.restore` puts them back with their own
ids. `FactStore.facts.archive` and `restore` are its only writers."""

ARCHIVE_TABLE = "memory_pipeline_archive"
ARCHIVE_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {ARCHIVE_TABLE} (
    fact_id         INTEGER PRIMARY KEY,
    content         TEXT NOT NULL,
    category        TEXT,
    tags            TEXT,
    trust_score     REAL,
    retrieval_count INTEGER,
    helpful_count   INTEGER,
    created_at      TIMESTAMP,
    updated_at      TIMESTAMP,
    hrr_vector      BLOB,
    entity_ids      TEXT NOT NULL DEFAULT '',
    archived_at     TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
"""
