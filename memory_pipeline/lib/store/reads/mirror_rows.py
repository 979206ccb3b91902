"""Holographic's mirror rows as the store holds them: the untagged copy Holographic adds of each
entry Hermes' memory tool writes, which no ledger row names and the user did not keep as the
agent's own, and the entry hashes a profile's ledger ever recorded (what a mirror row is matched
against)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
from memory_pipeline.lib.store.schema.database import KEPT_TABLE, LEDGER_TABLE, SOURCE_CATEGORY, table_exists
from memory_pipeline.lib.store.schema.ledger_table import profile_sql

_SOURCE_OF_CATEGORY = {category: source for source, category in SOURCE_CATEGORY.items()}


@dataclass(frozen=True)
class MirrorRow:
    fact_id: int
    source: str  # the file whose entries Holographic mirrors into this fact's category
    content: str


def mirror_rows(conn: sqlite3.Connection) -> list[MirrorRow]:
    """Every mirror-shaped fact no ledger row names and the user did not keep as the agent's own."""
    categories = ", ".join(f"'{c}'" for c in _SOURCE_OF_CATEGORY)
    conditions = ["coalesce(f.tags, '') = ''", f"f.category IN ({categories})"]
    if table_exists(conn, LEDGER_TABLE):
        conditions.append(f"NOT EXISTS (SELECT 1 FROM {LEDGER_TABLE} l WHERE l.fact_id = f.fact_id)")
    if table_exists(conn, KEPT_TABLE):
        conditions.append(f"f.fact_id NOT IN (SELECT fact_id FROM {KEPT_TABLE})")
    # As bytes: a content that is not UTF-8 is fact_links' finding, not a reason to stop here.
    rows = conn.execute(
        f"SELECT f.fact_id, f.category, CAST(f.content AS BLOB) FROM facts f WHERE {' AND '.join(conditions)} ORDER BY f.fact_id"
    )
    found = []
    for fact_id, category, raw in rows:
        try:
            found.append(MirrorRow(fact_id, _SOURCE_OF_CATEGORY[category], bytes(raw or b"").decode("utf-8")))
        except UnicodeDecodeError:
            continue
    return found


def known_entry_hashes(conn: sqlite3.Connection, owner: LedgerOwner = SOLE_OWNER) -> set[str]:
    """Every entry hash the owner's ledger ever recorded (active or retired; full or short form)."""
    if not table_exists(conn, LEDGER_TABLE):
        return set()
    scope, params = owner.rows_sql(profile_sql(conn))
    return {str(h) for (h,) in conn.execute(f"SELECT DISTINCT entry_sha256 FROM {LEDGER_TABLE} WHERE {scope}", params)}
