"""The six cross-layer audits and the extra checks (DESIGN §9), as plain functions.

Layer 1 (the entries as read now), the ledger and layer 2 (the facts) are loaded through pandas
into DuckDB, and every cross-layer comparison is one SQL query there. Details carry counts and
ids only, never an entry's or a fact's text.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field

import duckdb
import pandas as pd

from memory_pipeline.lib.entries import hashed_frame, parsed_frame
from memory_pipeline.lib.hashing import SHORT_HASH_CHARS
from memory_pipeline.lib.ledger import LEDGER_TABLE, ledger_exists, ledger_problems
from memory_pipeline.lib.memory_files import SourceReading
from memory_pipeline.lib.privacy import DETECTOR_GATE_RE2, PRIVATE_TAG, KeywordList, normalise_tags, private_reasons
from memory_pipeline.lib.search_index import holographic_fts_health
from memory_pipeline.lib.store import PIPELINE_TAG, HolographicSettings

ERROR, WARN = "ERROR", "WARN"
CAP_TARGET = 0.85
QUARANTINE_TABLE = "memory_pipeline_quarantine"
# `fact_store#34`, and the seed's grouped form `fact_store#16/27/33`.
_POINTER = re.compile(r"fact_store#(\d+(?:/\d+)*)")


@dataclass(frozen=True)
class AuditResult:
    name: str
    passed: bool
    severity: str  # what a failure means: ERROR or WARN
    detail: str
    metrics: dict[str, float] = field(default_factory=dict)


@dataclass
class AuditInputs:
    readings: list[SourceReading]
    conn: sqlite3.Connection | None  # None: the store does not exist yet
    settings: HolographicSettings
    keywords: KeywordList


def _frames(inputs: AuditInputs) -> dict[str, pd.DataFrame]:
    entries = hashed_frame(parsed_frame("", inputs.readings))[["source", "short_hash"]]
    unreadable = pd.DataFrame([(r.source,) for r in inputs.readings if not r.readable], columns=["source"])
    conn = inputs.conn
    if conn is not None and ledger_exists(conn):
        ledger = pd.read_sql_query(
            f"SELECT entry_id, source, substr(entry_sha256, 1, {SHORT_HASH_CHARS}) AS short_hash, "
            f"CAST(fact_id AS TEXT) AS fact_id_text, typeof(fact_id) AS fact_id_type, status FROM {LEDGER_TABLE}",
            conn,
        )
    else:
        ledger = pd.DataFrame(columns=["entry_id", "source", "short_hash", "fact_id_text", "fact_id_type", "status"])
    if conn is not None:
        facts = pd.read_sql_query(
            "SELECT fact_id, content, category, coalesce(tags, '') AS tags, trust_score, "
            "coalesce(length(hrr_vector), -1) AS vector_bytes FROM facts",
            conn,
        )
        links = pd.read_sql_query("SELECT fact_id, entity_id FROM fact_entities", conn)
        entities = pd.read_sql_query("SELECT entity_id FROM entities", conn)
        banks = pd.read_sql_query("SELECT bank_name, dim, fact_count FROM memory_banks", conn)
    else:
        facts = pd.DataFrame(columns=["fact_id", "content", "category", "tags", "trust_score", "vector_bytes"])
        links, entities = pd.DataFrame(columns=["fact_id", "entity_id"]), pd.DataFrame(columns=["entity_id"])
        banks = pd.DataFrame(columns=["bank_name", "dim", "fact_count"])
    facts["pipeline"] = facts["tags"].map(lambda t: PIPELINE_TAG in t.split(","))
    return {"entries": entries, "unreadable": unreadable, "ledger": ledger, "facts": facts, "links": links,
            "entities": entities, "banks": banks}


def _count(db: duckdb.DuckDBPyConnection, sql: str) -> int:
    return int(db.execute(sql).fetchone()[0])


class Audit:
    """One profile's three layers loaded once into DuckDB. Checks are looked up by name in
    CHECKS, so one (a Dagster asset check) or all of them (the report, the CLI) can run."""

    def __init__(self, inputs: AuditInputs):
        self.inputs = inputs
        self.frames = _frames(inputs)
        self.db = duckdb.connect()
        for name, frame in self.frames.items():
            self.db.register(name, frame)
        self.db.execute("""CREATE TEMP VIEW active AS SELECT * FROM ledger WHERE status = 'active'
                           AND source NOT IN (SELECT source FROM unreadable)""")
        self.quarantined = _quarantined(inputs.conn)

    def run(self, name: str) -> AuditResult:
        return CHECKS[name](self)

    def run_all(self) -> list[AuditResult]:
        return [self.run(name) for name in CHECKS]

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Audit:
        return self

    def __exit__(self, *_) -> None:
        self.close()


def run_audits(inputs: AuditInputs) -> list[AuditResult]:
    with Audit(inputs) as audit:
        return audit.run_all()


def _layer_counts(audit: Audit) -> AuditResult:
    db = audit.db
    entries = _count(db, "SELECT count(*) FROM entries")
    active = _count(db, "SELECT count(DISTINCT entry_id) FROM active")
    facts = _count(db, "SELECT count(*) FROM facts WHERE pipeline")
    without_rows = _count(db, """SELECT count(*) FROM entries e WHERE NOT EXISTS
                                 (SELECT 1 FROM active a WHERE a.source = e.source AND a.short_hash = e.short_hash)""")
    without_entry = _count(db, """SELECT count(DISTINCT entry_id) FROM active a WHERE NOT EXISTS
                                  (SELECT 1 FROM entries e WHERE e.source = a.source AND e.short_hash = a.short_hash)""")
    # Entries still waiting for the ledger are hashes_fresh's concern; this one fails when the
    # ledger holds entries the files no longer have (a removal or edit not synced).
    passed = without_entry == 0
    return AuditResult(
        "layer_counts", passed, ERROR,
        f"{entries} entries, {active} entries with active ledger rows, {facts} pipeline facts; "
        f"{without_rows} entries without ledger rows, {without_entry} active ledger entries without an entry",
        {"entries": float(entries), "active_ledger_entries": float(active), "pipeline_facts": float(facts)},
    )


def _hashes_fresh(audit: Audit) -> AuditResult:
    db, quarantined = audit.db, audit.quarantined
    pending = db.execute("""SELECT e.source || ':' || e.short_hash FROM entries e WHERE NOT EXISTS
                            (SELECT 1 FROM active a WHERE a.source = e.source AND a.short_hash = e.short_hash)""").fetchall()
    stuck = [p for (p,) in pending if p not in quarantined]
    return AuditResult(
        "hashes_fresh", not stuck, ERROR,
        f"{len(stuck)} entries pending outside quarantine, {len(pending) - len(stuck)} quarantined",
        {"pending": float(len(stuck)), "quarantined": float(len(pending) - len(stuck))},
    )


def _ledger_integrity(audit: Audit) -> AuditResult:
    conn = audit.inputs.conn
    problems = ledger_problems(conn) if conn is not None else []
    return AuditResult("ledger_integrity", not problems, ERROR, "; ".join(problems) or "ledger rows well-formed",
                       {"problems": float(len(problems))})


def _fact_links(audit: Audit) -> AuditResult:
    db = audit.db
    orphans = _count(db, """SELECT count(*) FROM ledger l WHERE l.fact_id_type = 'integer'
                            AND CAST(l.fact_id_text AS BIGINT) NOT IN (SELECT fact_id FROM facts)""")
    ghosts = _count(db, """SELECT count(*) FROM facts f WHERE pipeline AND f.fact_id NOT IN
                           (SELECT CAST(fact_id_text AS BIGINT) FROM ledger WHERE fact_id_type = 'integer')""")
    # Contents are UNIQUE, so a duplicate is the seed's near-copy: equal once case and runs of
    # white space are folded.
    duplicates = _count(db, """SELECT count(*) FROM (SELECT lower(regexp_replace(trim(content), '\\s+', ' ', 'g')) AS c
                               FROM facts GROUP BY c HAVING count(*) > 1)""")
    dangling = _count(db, """SELECT count(*) FROM links WHERE fact_id NOT IN (SELECT fact_id FROM facts)
                             OR entity_id NOT IN (SELECT entity_id FROM entities)""")
    passed = not (orphans or ghosts or duplicates or dangling)
    return AuditResult(
        "fact_links", passed, ERROR,
        f"{orphans} ledger rows pointing at no fact, {ghosts} pipeline facts without a ledger row, "
        f"{duplicates} duplicated contents, {dangling} dangling entity links",
        {"orphans": float(orphans), "ghosts": float(ghosts), "duplicates": float(duplicates), "dangling_links": float(dangling)},
    )


def _index_consistency(audit: Audit) -> AuditResult:
    db, inputs = audit.db, audit.inputs
    if inputs.conn is None:
        return AuditResult("index_consistency", True, ERROR, "no store yet")
    health = holographic_fts_health(inputs.conn)
    expected = 8 * inputs.settings.hrr_dim
    bad_vectors = _count(db, f"SELECT count(*) FROM facts WHERE vector_bytes != {expected}")
    bank_off = _count(db, """SELECT count(*) FROM (
            SELECT coalesce(b.bank_name, 'cat:' || v.category) AS name FROM banks b
            FULL OUTER JOIN (SELECT category, count(*) AS n FROM facts WHERE vector_bytes > 0 GROUP BY category) v
              ON b.bank_name = 'cat:' || v.category
            WHERE b.fact_count IS DISTINCT FROM v.n)""")
    passed = health.healthy and bad_vectors == 0 and bank_off == 0
    return AuditResult(
        "index_consistency", passed, ERROR,
        f"facts_fts {'ok' if health.integrity_ok else 'FAILED integrity-check'}, {health.indexed} indexed for "
        f"{health.facts} facts, {health.probe_misses} of {health.probes} probes missed; {bad_vectors} facts without a "
        f"{expected}-byte HRR vector; {bank_off} banks whose fact_count is off",
        {"fts_rows": float(health.indexed), "probe_misses": float(health.probe_misses),
         "bad_vectors": float(bad_vectors), "banks_off": float(bank_off)},
    )


def _privacy_candidates(audit: Audit) -> set[int]:
    """Facts that could be private, so the Python detectors run on few: DuckDB's vectorised RE2
    pass with the detectors' gate (and, for a list of plain terms, the keyword pattern). A list with
    `re:` terms is matched by Python's own engine on every fact: RE2's syntax and classes differ."""
    keywords = audit.inputs.keywords
    literal = keywords.literal_expression
    conditions, params = ["regexp_matches(content, ?)"], [DETECTOR_GATE_RE2]
    if literal is not None:
        conditions.append("regexp_matches(content, ?, 'i')")
        params.append(literal)
    try:
        found = {r[0] for r in audit.db.execute(f"SELECT fact_id FROM facts WHERE {' OR '.join(conditions)}", params).fetchall()}
    except duckdb.Error:  # a term RE2 refuses: fall back to Python for the keywords
        found, literal = {r[0] for r in audit.db.execute(
            "SELECT fact_id FROM facts WHERE regexp_matches(content, ?)", [DETECTOR_GATE_RE2]).fetchall()}, None
    if literal is None and keywords.terms:
        facts = audit.frames["facts"]
        found |= {i for i, c in zip(facts["fact_id"], facts["content"], strict=True) if keywords.matches(c)}
    return found


def _privacy_coverage(audit: Audit) -> AuditResult:
    facts, inputs = audit.frames["facts"], audit.inputs
    normal = facts["tags"].map(normalise_tags)
    variants = int(sum(folded for _, folded in normal))
    tagged = normal.map(lambda n: PRIVATE_TAG in n[0].split(","))
    visible = int((tagged & (facts["trust_score"] >= inputs.settings.min_trust)).sum())
    candidates = _privacy_candidates(audit)
    untagged = private = 0
    for fact_id, content, is_tagged in zip(facts["fact_id"], facts["content"], tagged, strict=True):
        if fact_id in candidates and private_reasons(content, inputs.keywords):
            private += 1
            untagged += not is_tagged
    passed = untagged == 0 and variants == 0
    return AuditResult(
        "privacy_coverage", passed, ERROR,
        f"{private} facts match the keyword list or a detector, {untagged} of them without `{PRIVATE_TAG}`; "
        f"{variants} tag variants; {visible} private facts visible to prefetch (trust ≥ {inputs.settings.min_trust})",
        {"private_facts": float(private), "untagged_private": float(untagged), "tag_variants": float(variants),
         "private_visible_to_prefetch": float(visible)},
    )


def _cap_usage(audit: Audit) -> AuditResult:
    """Both files within the 85% target (WARN above it); ERROR once a file is over its cap."""
    readings = audit.inputs.readings
    over = any(r.cap_usage > 1.0 for r in readings)
    return AuditResult(
        "cap_usage", all(r.cap_usage <= CAP_TARGET for r in readings), ERROR if over else WARN,
        "; ".join(f"{r.path.name} {r.chars}/{r.limit} chars ({100 * r.cap_usage:.0f}%)" for r in readings)
        + f"; target ≤ {100 * CAP_TARGET:.0f}%",
        {f"{r.source}_usage_pct": round(100.0 * r.cap_usage, 2) for r in readings},
    )


def _format_parity(audit: Audit) -> AuditResult:
    readings = audit.inputs.readings
    differs = [r.path.name for r in readings if "hermes_parse_differs" in r.finding_codes]
    unreadable = [r.path.name for r in readings if not r.readable]
    return AuditResult(
        "format_parity", not differs and not unreadable, WARN,
        (f"Hermes reads {', '.join(differs)} differently from the pipeline" if differs else "Hermes and the pipeline read the same entries")
        + (f"; unreadable: {', '.join(unreadable)}" if unreadable else ""),
        {"files_differing": float(len(differs)), "files_unreadable": float(len(unreadable))},
    )


def _pointers_resolve(audit: Audit) -> AuditResult:
    readings, fact_ids = audit.inputs.readings, set(audit.frames["facts"]["fact_id"].astype(int))
    pointers = [int(n) for r in readings for t in r.entries for m in _POINTER.finditer(t) for n in m.group(1).split("/")]
    dangling = sorted({p for p in pointers if p not in fact_ids})
    return AuditResult(
        "pointers_resolve", not dangling, WARN,
        f"{len(pointers)} fact_store#N pointers in the memory files, {len(dangling)} name no fact"
        + (f" (#{', #'.join(map(str, dangling[:20]))})" if dangling else ""),
        {"pointers": float(len(pointers)), "dangling_pointers": float(len(dangling))},
    )


def _quarantined(conn) -> set[str]:
    if conn is None or conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (QUARANTINE_TABLE,)).fetchone() is None:
        return set()
    return {r[0] for r in conn.execute(f"SELECT DISTINCT entry_id FROM {QUARANTINE_TABLE}")}


def _quarantine_empty(audit: Audit) -> AuditResult:
    quarantined = audit.quarantined
    return AuditResult("quarantine_empty", not quarantined, WARN, f"{len(quarantined)} entries in quarantine",
                       {"quarantined": float(len(quarantined))})


CHECKS = {
    "layer_counts": _layer_counts,
    "hashes_fresh": _hashes_fresh,
    "ledger_integrity": _ledger_integrity,
    "fact_links": _fact_links,
    "index_consistency": _index_consistency,
    "privacy_coverage": _privacy_coverage,
    "cap_usage": _cap_usage,
    "format_parity": _format_parity,
    "pointers_resolve": _pointers_resolve,
    "quarantine_empty": _quarantine_empty,
}
