"""Looking into stores and running syncs from tests."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from memory_pipeline.cli import main
from memory_pipeline.lib.hermes.memory_files import ENTRY_DELIMITER


def table_checksums(db: Path) -> dict[str, str]:
    """A digest of every row of every table: equal digests mean nothing was written."""
    conn = sqlite3.connect(db)
    try:
        digests = {}
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        for table in tables:
            # Row order is not part of the contents: digest each row, then the sorted row digests.
            rows = sorted(hashlib.sha256(repr(r).encode()).digest() for r in conn.execute(f'SELECT * FROM "{table}"'))
            digests[table] = hashlib.sha256(b"".join(rows)).hexdigest()
        return digests
    finally:
        conn.close()


def sync_json(capsys, home: Path, *args: str) -> dict:
    code = main(["sync", "--hermes-home", str(home), "--json", *args])
    out = capsys.readouterr()
    payload = json.loads(out.out)
    assert code == (0 if payload["ok"] else 1), out.err
    return payload


def profile_result(payload: dict, profile: str = "default") -> dict:
    return next(p for p in payload["profiles"] if p["profile"] == profile)


def write_entries(path: Path, entries: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(ENTRY_DELIMITER.join(entries), encoding="utf-8")


def read_entries(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split(ENTRY_DELIMITER)


def query(db: Path, sql: str, params=()) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def active_facts(db: Path) -> list[tuple[str, str]]:
    """(source, content) of every fact the ledger holds active."""
    return query(db, "SELECT l.source, f.content FROM memory_pipeline_ledger l JOIN facts f USING (fact_id) WHERE l.status = 'active'")


def consistency_problems(db: Path) -> list[str]:
    """What a sync must never leave behind, however it ended."""
    problems = []
    if query(db, "SELECT content FROM facts GROUP BY content HAVING count(*) > 1"):
        problems.append("duplicate fact content")
    orphans = query(
        db,
        """SELECT l.fact_id FROM memory_pipeline_ledger l LEFT JOIN facts f ON f.fact_id = l.fact_id
           WHERE f.fact_id IS NULL AND l.fact_id NOT IN (SELECT fact_id FROM memory_pipeline_archive)""",
    )  # a retired fact waits in the archive
    if orphans:
        problems.append(f"ledger rows without a fact: {orphans}")
    ghosts = query(
        db,
        """SELECT f.fact_id FROM facts f WHERE f.tags LIKE '%synced-from-memory%'
                          AND NOT EXISTS (SELECT 1 FROM memory_pipeline_ledger l WHERE l.fact_id = f.fact_id)""",
    )
    if ghosts:
        problems.append(f"pipeline facts without a ledger row: {ghosts}")
    fts = query(db, "SELECT count(*) FROM facts_fts")[0][0]
    facts = query(db, "SELECT count(*) FROM facts")[0][0]
    if fts != facts:
        problems.append(f"FTS rows {fts} != facts {facts}")
    for category, count in query(db, "SELECT category, count(*) FROM facts WHERE hrr_vector IS NOT NULL GROUP BY category"):
        bank = query(db, "SELECT fact_count FROM memory_banks WHERE bank_name = ?", (f"cat:{category}",))
        if not bank or bank[0][0] != count:
            problems.append(f"bank cat:{category} count {bank} != {count}")
    return problems


def said(err: str) -> list[str]:
    """The lines a command wrote on stderr, but the `Hermes home: …` line every text-mode command starts with."""
    return [line for line in err.splitlines() if not line.startswith("Hermes home: ")]


def sync_runs(home: Path) -> int:
    """How many runs of the sync job the home's local Dagster instance holds."""
    import dagster as dg

    from memory_pipeline.launch.instance import local_instance

    instance = local_instance(home)
    try:
        return len(instance.get_runs(filters=dg.RunsFilter(job_name="memory_sync_job")))
    finally:
        instance.dispose()


def judge_of(keywords, policy: str = "hide", categories=None):
    """A privacy judge over a loaded keyword list: the default detectors, `policy`."""
    from memory_pipeline.lib.choices import PrivacyPolicy
    from memory_pipeline.lib.privacy.choice import PrivacyJudge
    from memory_pipeline.lib.privacy.detectors import DEFAULT_CATEGORIES

    return PrivacyJudge(keywords, categories if categories is not None else DEFAULT_CATEGORIES, PrivacyPolicy(policy))
