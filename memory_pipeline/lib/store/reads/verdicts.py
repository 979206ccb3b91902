"""The privacy stage's verdicts, kept in the store beside the facts they judge: one per fact (its
text's SHA-256, the keyword list's and the detectors' it was judged with, the outcome), and the
judge in force (which list, where). The agent's surfaces read them (`fact_search`); the privacy
stage has `FactStore` write them, inside its own transactions."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from memory_pipeline.lib.in_hermes.fact_search import JUDGE_TABLE, SHOWN, VERDICTS_TABLE

# The outcomes: the agent may see the fact, or it is withheld and why.
PRIVATE, UNSAFE, UNREADABLE = "private", "unsafe", "unreadable"
OUTCOMES = (SHOWN, PRIVATE, UNSAFE, UNREADABLE)


@dataclass(frozen=True)
class Verdict:
    content_sha256: str
    keywords_sha256: str
    detectors: str
    outcome: str


def verdicts(conn: sqlite3.Connection) -> dict[int, Verdict]:
    """Every fact's verdict (none before the first judgement)."""
    try:
        rows = conn.execute(f"SELECT fact_id, content_sha256, keywords_sha256, detectors, outcome FROM {VERDICTS_TABLE}").fetchall()
    except sqlite3.OperationalError:
        return {}
    return {fact_id: Verdict(*rest) for fact_id, *rest in rows}


def judge_in_force(conn: sqlite3.Connection) -> tuple[str | None, str, str, str | None, str | None] | None:
    """(keywords path, its keyed digest, detectors, detector switches' digest, the digest key's
    path) of the judge in force."""
    try:
        row: tuple[str | None, str, str, str | None, str | None] | None = conn.execute(
            f"SELECT keywords_path, keywords_sha256, detectors, settings_sha256, key_path FROM {JUDGE_TABLE} WHERE id = 1"
        ).fetchone()
        return row
    except sqlite3.OperationalError:
        return None


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    """How many facts have each outcome (for checks and status: counts only)."""
    try:
        return dict(conn.execute(f"SELECT outcome, count(*) FROM {VERDICTS_TABLE} GROUP BY outcome").fetchall())
    except sqlite3.OperationalError:
        return {}


def verdict_of(conn: sqlite3.Connection, fact_id: int) -> Verdict | None:
    """One fact's verdict (None: never judged)."""
    try:
        row = conn.execute(
            f"SELECT content_sha256, keywords_sha256, detectors, outcome FROM {VERDICTS_TABLE} WHERE fact_id = ?", (fact_id,)
        ).fetchone()
    except sqlite3.OperationalError:
        return None
    return Verdict(*row) if row else None


def orphan_count(conn: sqlite3.Connection) -> int:
    """Verdicts whose fact is gone."""
    return int(conn.execute(f"SELECT count(*) FROM {VERDICTS_TABLE} WHERE fact_id NOT IN (SELECT fact_id FROM facts)").fetchone()[0])
