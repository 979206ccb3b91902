"""Receipts: what each removal took away, content-free. Every fact a removed entry's policy
retires, archives or deletes leaves one receipt per entry: the file the entry was in, the fact
ids, and the derived rows that went with them (entity links, index rows, the category banks
rebuilt), the run and the time. Written in the removal's own transaction.

No hash of the removed entry: a short entry ("Door PIN: 4821") is found from its hash in a moment
by trying every text of its shape, so a receipt (and the run's metadata that shows it) would give
back what was removed. Receipts written before keep their file and lose their hashes when the
store is next opened to write."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from memory_pipeline.lib.store.schema.pipeline_tables import RECEIPTS_TABLE


@dataclass(frozen=True)
class Receipt:
    action: str  # archived (the pipeline's fact, out of Hermes' tables), retired (Hermes' own, in place), deleted
    source: str | None  # the file the removed entry was in (`memory`, `user`), when known
    fact_ids: tuple[int, ...]
    links: int  # entity links removed
    index_rows: int  # rows of Hermes' facts_fts and the pipeline's index that went with the facts
    banks: tuple[str, ...]  # category banks rebuilt
    run_id: str | None = None
    at: str | None = None
    receipt_id: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "receipt_id": self.receipt_id,
            "at": self.at,
            "run_id": self.run_id,
            "action": self.action,
            "source": self.source,
            "fact_ids": list(self.fact_ids),
            "links": self.links,
            "index_rows": self.index_rows,
            "banks": list(self.banks),
        }


def read_receipts(conn: sqlite3.Connection, *, run_id: str | None = None, limit: int = 1000) -> list[Receipt]:
    """The newest receipts first (a run's alone when named); none before the first removal."""
    where, params = ("WHERE run_id = ?", (run_id,)) if run_id else ("", ())
    try:
        rows = conn.execute(
            f"""SELECT receipt_id, at, run_id, action, source, fact_ids, links, index_rows, banks
                FROM {RECEIPTS_TABLE} {where} ORDER BY receipt_id DESC LIMIT ?""",
            (*params, limit),
        ).fetchall()
    except sqlite3.OperationalError:
        return []
    return [
        Receipt(
            action,
            source,
            tuple(int(i) for i in fact_ids.split(",") if i),
            links,
            index_rows,
            tuple(b for b in banks.split(",") if b),
            run,
            at,
            receipt_id,
        )
        for receipt_id, at, run, action, source, fact_ids, links, index_rows, banks in rows
    ]
