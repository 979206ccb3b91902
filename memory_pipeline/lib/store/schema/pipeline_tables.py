"""The pipeline's own tables beside Hermes' (each module that reads one names it from here):

- `memory_pipeline_written`: the text the pipeline last wrote into each of its facts (what tells a
  fact the agent changed from the one its entry made; a row goes when its fact leaves Hermes' tables).
- `memory_pipeline_receipts`: what each removal took away, content-free (no hash of the removed entry:
  a short entry is found from its hash by trying every text of its shape).
- the privacy verdicts, one per fact, and the judge in force.
- `memory_pipeline_archive`: retired facts taken out of Hermes' tables (so no Hermes tool returns them),
  row and entity links' ids kept, until the entry comes back and they are restored with their own ids.
- `memory_pipeline_entry_runs`: which Dagster run wrote each version of an entry (what `why` names)."""

from __future__ import annotations

from memory_pipeline.lib.in_hermes.fact_search import JUDGE_TABLE, VERDICTS_TABLE

WRITTEN_TABLE = "memory_pipeline_written"
WRITTEN_SCHEMA = f"""CREATE TABLE IF NOT EXISTS {WRITTEN_TABLE} (
    fact_id INTEGER PRIMARY KEY,
    content TEXT NOT NULL
);
"""

RECEIPTS_TABLE = "memory_pipeline_receipts"
RECEIPTS_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {RECEIPTS_TABLE} (
    receipt_id   INTEGER PRIMARY KEY AUTOINCREMENT,
    at           TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    run_id       TEXT,
    action       TEXT NOT NULL,
    entry_id     TEXT,
    entry_sha256 TEXT,
    fact_ids     TEXT NOT NULL,
    links        INTEGER NOT NULL,
    index_rows   INTEGER NOT NULL,
    banks        TEXT NOT NULL,
    source       TEXT
);
"""

VERDICT_SCHEMA = (
    f"""CREATE TABLE IF NOT EXISTS {VERDICTS_TABLE} (
    fact_id         INTEGER PRIMARY KEY,
    content_sha256  TEXT NOT NULL,
    keywords_sha256 TEXT NOT NULL,
    detectors       TEXT NOT NULL,
    outcome         TEXT NOT NULL,
    judged_at       TIMESTAMP DEFAULT CURRENT_TIMESTAMP
)""",
    f"""CREATE TABLE IF NOT EXISTS {JUDGE_TABLE} (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    keywords_path   TEXT,
    keywords_sha256 TEXT NOT NULL,
    detectors       TEXT NOT NULL,
    judged_at       TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    settings_sha256 TEXT,
    key_path        TEXT
)""",
)

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

RUNS_TABLE = "memory_pipeline_entry_runs"
RUNS_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {RUNS_TABLE} (
    entry_id     TEXT NOT NULL,
    entry_sha256 TEXT NOT NULL,
    run_id       TEXT NOT NULL,
    written_at   TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (entry_id, entry_sha256)
);
"""
