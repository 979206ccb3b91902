"""The six cross-layer audits and the extra checks, as plain functions.

Layer 1 (the entries as read now), the ledger and layer 2 (the facts) are loaded through pandas
into DuckDB, and every cross-layer comparison is one SQL query there. Details carry counts and
ids only, never an entry's or a fact's text.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path

import duckdb
import pandas as pd

from memory_pipeline.lib.audit.checks import CHECK_REGISTRY, CHECK_SPECS, ERROR, WARN, AuditResult
from memory_pipeline.lib.extraction.health import extraction_checks, last_recorded_calls
from memory_pipeline.lib.hermes.hashing import SHORT_HASH_CHARS, entry_identities
from memory_pipeline.lib.hermes.memory_files import SourceReading, fact_pointers
from memory_pipeline.lib.privacy.matching import (
    DETECTOR_GATE_RE2,
    PRIVATE_TAG,
    KeywordList,
    normalise_tags,
    private_reasons,
)
from memory_pipeline.lib.store.database import IS_PIPELINE_FACT_SQL, HolographicSettings, connect, store_error
from memory_pipeline.lib.store.quarantine import quarantined_entries
from memory_pipeline.lib.store.search_index import HolographicFtsHealth, holographic_fts_health
from memory_pipeline.lib.store.vector_codec import VectorState, false_hrr1_sql, size_state_sql, state_sql
from memory_pipeline.lib.sync.ledger import LEDGER_ROW_COLUMNS, ledger_problems, ledger_rows

CAP_TARGET = 0.85


@dataclass
class AuditInputs:
    readings: list[SourceReading]
    conn: sqlite3.Connection | None  # None: the store does not exist yet
    settings: HolographicSettings
    keywords: KeywordList | None  # None: no check that needs it is run
    data_dir: Path | None = None  # the pipeline's data directory: its history feeds the extraction checks
    profile: str = ""


def _table(conn: sqlite3.Connection, sql: str, columns: list[str], params: dict | tuple = ()) -> pd.DataFrame:
    # fetchall + from_records is about twice as fast as pandas.read_sql_query on wide scans.
    return pd.DataFrame.from_records(conn.execute(sql, params).fetchall(), columns=columns)


_FACT_COLUMNS = ["fact_id", "content", "category", "person_tags", "person_trust", "vector_state", "pipeline"]
_BANK_COLUMNS = ["bank_name", "dim", "fact_count", "vector_state"]
_EMPTY_STORE = {"ledger": LEDGER_ROW_COLUMNS, "facts": _FACT_COLUMNS, "banks": _BANK_COLUMNS}


def _facts_sql(dim: int) -> str:
    """What SQLite decides per fact while the GIL is free, so Python builds fewer objects: tags
    and trust only where the tags mention `person` (the only facts privacy_coverage reads them
    for), `vector_state` (a `VectorState`: which dialect, if any, decodes it), `pipeline` whether
    it is a fact the pipeline synced. The vector state is by size alone (reading no blob); the
    HRR1-sized blobs without the prefix are counted store-side (`_index_store_side`). Content
    crosses as its UTF-8 bytes, which DuckDB decodes: no
    Python string is decoded only to be encoded back, and bytes that are not UTF-8 (which Hermes
    itself cannot read) become NULL, a finding of `fact_links`."""
    return f"""SELECT fact_id, CAST(content AS BLOB), category,
        CASE WHEN tags LIKE '%person%' THEN tags END, CASE WHEN tags LIKE '%person%' THEN trust_score END,
        {size_state_sql('hrr_vector', dim)}, {IS_PIPELINE_FACT_SQL} FROM facts"""


def _entries_frame(readings: list[SourceReading]) -> pd.DataFrame:
    sources = [r.source for r in readings for _ in r.entries]
    _, shorts, _ = entry_identities(sources, [text for r in readings for text in r.entries])
    return pd.DataFrame({"source": pd.Series(sources, dtype=object), "short_hash": pd.Series(shorts, dtype=object)})


def _store_frames(conn: sqlite3.Connection | None, hrr_dim: int = 0) -> dict[str, pd.DataFrame]:
    """Ledger, facts and banks, read in one transaction: one snapshot even while Hermes writes."""
    if conn is None:
        return {name: pd.DataFrame(columns=columns) for name, columns in _EMPTY_STORE.items()}
    conn.execute("BEGIN")
    try:
        ledger = ledger_rows(conn)
        facts = _table(conn, _facts_sql(hrr_dim), _FACT_COLUMNS)
        banks = _table(conn, f"SELECT bank_name, dim, fact_count, {state_sql('vector', hrr_dim)} FROM memory_banks", _BANK_COLUMNS)
    finally:
        conn.execute("COMMIT")
    return {"ledger": ledger, "facts": facts, "banks": banks}


def _copy_frame(db: duckdb.DuckDBPyConnection, table: str, frame: pd.DataFrame, derived: str = "") -> None:
    db.register(f"{table}_frame", frame)
    try:
        db.execute(f"CREATE TABLE {table} AS SELECT *{derived} FROM {table}_frame")
    finally:
        db.unregister(f"{table}_frame")


def _without_white_space(column: str) -> str:
    """The column with ASCII white space removed (what `\\s` folds, and \\v): a chain of replace()
    is about three times faster than translate() in DuckDB."""
    for code in (32, 9, 10, 11, 12, 13):
        column = f"replace({column}, chr({code}), '')"
    return column


def _count(db: duckdb.DuckDBPyConnection, sql: str) -> int:
    return int(db.execute(sql).fetchall()[0][0])


def _index_store_side(conn: sqlite3.Connection, settings: HolographicSettings) -> tuple[HolographicFtsHealth, dict[str, int]]:
    """facts_fts's health, and per category the HRR1-sized vectors that lack the prefix (they
    decode in no dialect): reading those blobs is the costly part of classifying vectors."""
    false_hrr1 = dict(conn.execute(
        f"SELECT category, count(*) FROM facts WHERE {false_hrr1_sql('hrr_vector', settings.hrr_dim)} GROUP BY category").fetchall())
    return holographic_fts_health(conn), false_hrr1


def _dangling_links(conn: sqlite3.Connection, settings: HolographicSettings) -> int:
    """Entity links whose fact or entity is gone: a lookup per link on the two primary keys."""
    return conn.execute("""SELECT count(*) FROM fact_entities fe
        WHERE NOT EXISTS (SELECT 1 FROM facts f WHERE f.fact_id = fe.fact_id)
           OR NOT EXISTS (SELECT 1 FROM entities e WHERE e.entity_id = fe.entity_id)""").fetchone()[0]


# Store-side checks that are pure SQLite work: run on their own connection in a thread while the
# frames load (sqlite3 releases the GIL while a statement runs), so on two cores they cost little.
_STORE_SIDE = {"index_consistency": _index_store_side, "fact_links": _dangling_links}
# Checks that need nothing of the store but the ledger (the blocking one runs alone, before any write).
_LEDGER_ONLY = {"ledger_integrity"}


def _on_own_connection(path, fn):
    conn = connect(path, create=False)
    try:
        return fn(conn)
    except sqlite3.DatabaseError as exc:  # a table missing or damaged: one line naming the file
        raise store_error(path, exc) from None
    finally:
        conn.close()


class Audit:
    """One profile's three layers, loaded into DuckDB on first use. Checks are looked up by name
    in CHECKS, so one (a Dagster asset check) or all of them (the report, the CLI) can run; the
    store-side work of the checks named up front starts at once, beside the loading."""

    def __init__(self, inputs: AuditInputs, names: Iterable[str] | None = None):
        self.inputs = inputs
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="audit")
        self._store_side: dict[str, Future] = {}
        self._store_frames: Future | None = None
        self._lock = threading.Lock()
        self._database: duckdb.DuckDBPyConnection | None = None
        self._entries_lock = threading.Lock()  # its own: hashing must not hold up other checks' cursors
        self._entries_loaded = False
        self._cursors = threading.local()
        wanted = set(CHECKS if names is None else names)
        # Whether the store's frames are read: for every check but the blocking one alone.
        self.loads_store = inputs.conn is not None and bool(wanted - _LEDGER_ONLY)
        if self.loads_store:
            self._store_frames = self._pool.submit(
                _on_own_connection, inputs.settings.db_path, lambda conn: _store_frames(conn, inputs.settings.hrr_dim))
        if inputs.conn is not None:
            for name in _STORE_SIDE.keys() & wanted:
                self._store_side[name] = self._pool.submit(
                    _on_own_connection, inputs.settings.db_path, partial(_STORE_SIDE[name], settings=inputs.settings))

    def store_side(self, name: str):
        """The result of a store-side check: from its thread when started, else computed now (on
        a connection of its own: the caller's belongs to another thread)."""
        if name in self._store_side:
            return self._store_side[name].result()
        return _on_own_connection(self.inputs.settings.db_path, partial(_STORE_SIDE[name], settings=self.inputs.settings))

    @property
    def db(self) -> duckdb.DuckDBPyConnection:
        """This thread's cursor on the audit's DuckDB database, holding the ledger and the facts
        (a cursor per thread: checks run on two at once)."""
        with self._lock:
            if self._database is None:
                self._database = self._load_store()
        cursor = getattr(self._cursors, "cursor", None)
        if cursor is None:
            cursor = self._cursors.cursor = self._database.cursor()
        return cursor

    @property
    def db_with_entries(self) -> duckdb.DuckDBPyConnection:
        """`db`, with the entries of the files (hashed on first use) beside the store's tables."""
        db = self.db
        with self._entries_lock:
            if not self._entries_loaded:
                _copy_frame(db, "entries", _entries_frame(self.inputs.readings))
                self._entries_loaded = True
        return db

    def _load_store(self) -> duckdb.DuckDBPyConnection:
        store = self._store_frames.result() if self._store_frames is not None else _store_frames(None)
        # Once copied, the frames' Python objects (about 100 MB at 100k facts) are let go.
        self._store_frames = None
        db = duckdb.connect()
        # Tables, not views on the frames: a query scanning a frame converts its Python strings
        # again, and tables are what other threads' cursors see. Derived columns come along.
        derived = {"ledger": f", substr(entry_sha256, 1, {SHORT_HASH_CHARS}) AS short_hash",
                   "facts": " REPLACE (try(decode(CAST(content AS BLOB))) AS content, pipeline::BOOLEAN AS pipeline)"}
        for name in list(store):  # popped: each frame is let go as soon as it is copied
            _copy_frame(db, name, store.pop(name), derived.get(name, ""))
        unreadable = [r.source for r in self.inputs.readings if r.held]
        db.execute("CREATE TABLE active AS SELECT * FROM ledger WHERE status = 'active' AND NOT list_contains(?::VARCHAR[], source)",
                   [unreadable])
        return db

    @cached_property
    def quarantined(self) -> set[str]:
        return quarantined_entries(self.inputs.conn)

    @cached_property
    def extraction(self) -> dict[str, AuditResult]:
        inputs = self.inputs
        calls = last_recorded_calls(inputs.data_dir, inputs.profile) if inputs.data_dir is not None else []
        return {r.name: r for r in extraction_checks(calls, scope="the last run that called a model")}

    def run(self, name: str) -> AuditResult:
        return CHECKS[name](self)

    def run_many(self, names: Iterable[str]) -> list[AuditResult]:
        """Several checks, two at a time: DuckDB and SQLite release the GIL, so one check's
        queries run beside another's Python work (hashing the entries, the privacy rules).
        The heaviest start first."""
        names = list(names)
        if len(names) < 2 or not self.loads_store:
            return [self.run(name) for name in names]
        # Both read through the caller's connections, which belong to its thread: read them here.
        _ = self.quarantined, self.extraction
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="audit-check") as pool:
            futures = {name: pool.submit(self.run, name) for name in sorted(names, key=lambda n: CHECK_SPECS[n].start)}
            return [futures[name].result() for name in names]

    def run_all(self) -> list[AuditResult]:
        return self.run_many(CHECKS)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._database is not None:
            self._database.close()

    def __enter__(self) -> Audit:
        return self

    def __exit__(self, *_) -> None:
        self.close()


def run_audits(inputs: AuditInputs) -> list[AuditResult]:
    with Audit(inputs) as audit:
        return audit.run_all()


def _layer_counts(audit: Audit) -> AuditResult:
    db = audit.db_with_entries
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
    db, quarantined = audit.db_with_entries, audit.quarantined
    pending = db.execute("""SELECT e.source || ':' || e.short_hash FROM entries e WHERE NOT EXISTS
                            (SELECT 1 FROM active a WHERE a.source = e.source AND a.short_hash = e.short_hash)""").fetchall()
    stuck = [p for (p,) in pending if p not in quarantined]
    return AuditResult(
        "hashes_fresh", not stuck, ERROR,
        f"{len(stuck)} entries pending outside quarantine, {len(pending) - len(stuck)} quarantined",
        {"pending": float(len(stuck)), "quarantined": float(len(pending) - len(stuck))},
    )


def _ledger_integrity(audit: Audit) -> AuditResult:
    # With the other checks, from the ledger already in DuckDB; alone (the blocking check), from
    # the ledger only, read from the store.
    if audit.loads_store:
        problems = ledger_problems(audit.db)
    else:
        problems = ledger_problems(audit.inputs.conn) if audit.inputs.conn is not None else []
    return AuditResult("ledger_integrity", not problems, ERROR, "; ".join(problems) or "ledger rows well-formed",
                       {"problems": float(len(problems))})


def _fact_links(audit: Audit) -> AuditResult:
    db = audit.db
    orphans = _count(db, """SELECT count(*) FROM ledger l WHERE l.fact_id IS NOT NULL
                            AND l.fact_id NOT IN (SELECT fact_id FROM facts)""")
    ghosts = _count(db, """SELECT count(*) FROM facts f WHERE pipeline AND f.fact_id NOT IN
                           (SELECT fact_id FROM ledger WHERE fact_id IS NOT NULL)""")
    # Contents are UNIQUE, so a duplicate is the seed's near-copy: equal once case and runs of
    # white space are folded. A cheap key without any white space finds the few candidates first;
    # only they get the exact folding.
    coarse_key = f"lower({_without_white_space('content')})"
    duplicates = 0
    if _count(db, f"SELECT count(*) FROM (SELECT {coarse_key} AS k FROM facts GROUP BY k HAVING count(*) > 1)"):
        duplicates = _count(db, f"""WITH candidates AS (SELECT content FROM facts WHERE {coarse_key} IN
                                        (SELECT {coarse_key} FROM facts GROUP BY 1 HAVING count(*) > 1))
                                    SELECT count(*) FROM (SELECT lower(regexp_replace(trim(content), '\\s+', ' ', 'g')) AS c
                                    FROM candidates GROUP BY c HAVING count(*) > 1)""")
    undecodable = _count(db, "SELECT count(*) FROM facts WHERE content IS NULL")
    dangling = audit.store_side("fact_links") if audit.inputs.conn is not None else 0
    passed = not (orphans or ghosts or duplicates or undecodable or dangling)
    return AuditResult(
        "fact_links", passed, ERROR,
        f"{orphans} ledger rows pointing at no fact, {ghosts} pipeline facts without a ledger row, "
        f"{duplicates} duplicated contents, {undecodable} contents that are not UTF-8 text, {dangling} dangling entity links",
        {"orphans": float(orphans), "ghosts": float(ghosts), "duplicates": float(duplicates),
         "undecodable_contents": float(undecodable), "dangling_links": float(dangling)},
    )


def _index_consistency(audit: Audit) -> AuditResult:
    db, inputs = audit.db, audit.inputs
    if inputs.conn is None:
        return AuditResult("index_consistency", True, ERROR, "no store yet")
    health, false_hrr1 = audit.store_side("index_consistency")
    dim = inputs.settings.hrr_dim
    states = dict(db.execute("SELECT vector_state, count(*) FROM facts GROUP BY vector_state").fetchall())
    counts = {kind: int(states.get(int(kind), 0)) for kind in VectorState}
    counts[VectorState.HRR1] -= sum(false_hrr1.values())  # HRR1-sized, but without the prefix
    counts[VectorState.MALFORMED] += sum(false_hrr1.values())
    bad_vectors = counts[VectorState.MISSING] + counts[VectorState.MALFORMED]
    # A bank is the bundle of its category's decodable vectors, whichever dialect, at the store's dim.
    false_rows = " UNION ALL ".join(f"SELECT {_sql_text(c)} AS category, {int(n)} AS n" for c, n in false_hrr1.items())
    decodable = (f"""SELECT category, sum(n) AS n FROM (SELECT category, count(*) AS n FROM facts WHERE vector_state > 0
                 GROUP BY category UNION ALL SELECT category, -n FROM ({false_rows})) GROUP BY category HAVING sum(n) > 0""" if false_rows
                 else "SELECT category, count(*) AS n FROM facts WHERE vector_state > 0 GROUP BY category")
    bank_off = _count(db, f"""SELECT count(*) FROM (
            SELECT coalesce(b.bank_name, 'cat:' || v.category) AS name FROM banks b
            FULL OUTER JOIN ({decodable}) v
              ON b.bank_name = 'cat:' || v.category
            WHERE b.fact_count IS DISTINCT FROM v.n OR b.dim IS DISTINCT FROM {int(dim)} OR b.vector_state <= 0)""")
    bank_dims = _count(db, f"SELECT count(*) FROM banks WHERE dim IS DISTINCT FROM {int(dim)}")
    passed = health.healthy and bad_vectors == 0 and bank_off == 0
    return AuditResult(
        "index_consistency", passed, ERROR,
        f"facts_fts {health.integrity}, {health.indexed} indexed for "
        f"{health.facts} facts, {health.probe_misses} of {health.probes} probes missed; HRR vectors at dim {dim}: "
        f"{counts[VectorState.LEGACY]} legacy float64, {counts[VectorState.HRR1]} HRR1 float32, "
        f"{counts[VectorState.MALFORMED]} malformed, {counts[VectorState.MISSING]} missing; "
        f"{bank_off} banks off (count, dim or vector), {bank_dims} of them of another dim",
        {"fts_rows": float(health.indexed), "probe_misses": float(health.probe_misses),
         "bad_vectors": float(bad_vectors), "banks_off": float(bank_off), "bank_dim_mismatch": float(bank_dims),
         **{f"{kind.name.lower()}_vectors": float(n) for kind, n in counts.items()}},
    )


def _sql_text(value) -> str:
    return "NULL" if value is None else "'" + str(value).replace("'", "''") + "'"


def _private_tagging(audit: Audit) -> tuple[dict[int, bool], int, int]:
    """Which facts carry `private-person` (after folding variants), how many variants, how many
    tagged facts prefetch still sees. Only facts whose tags mention `person` can hold either."""
    rows = audit.db.execute("SELECT fact_id, person_tags, person_trust FROM facts WHERE person_tags IS NOT NULL").fetchall()
    tagged, variants, visible = {}, 0, 0
    for fact_id, tags, trust in rows:
        normal, folded = normalise_tags(tags)
        variants += folded
        tagged[fact_id] = PRIVATE_TAG in normal.split(",")
        visible += tagged[fact_id] and trust >= audit.inputs.settings.min_trust
    return tagged, variants, visible


def _untagged_matches(audit: Audit, tagged: dict[int, bool]) -> int:
    """How many untagged facts the keyword list or a detector matches. One vectorised RE2 pass in
    DuckDB (the detectors' gate, and the list itself: its patterns are RE2 already) leaves few
    candidates; the code that tags confirms them."""
    keywords, db = audit.inputs.keywords, audit.db
    conditions, params = ["regexp_matches(content, ?)"], [DETECTOR_GATE_RE2]
    if keywords.re2_prefilter is not None:
        conditions.append("regexp_matches(content, ?, 'i')")
        params.append(keywords.re2_prefilter)
    candidates = db.execute(f"SELECT fact_id, content FROM facts WHERE {' OR '.join(conditions)}", params).fetchall()
    return sum(1 for fact_id, content in candidates if not tagged.get(fact_id) and private_reasons(content, keywords))


def _privacy_coverage(audit: Audit) -> AuditResult:
    inputs = audit.inputs
    tagged, variants, visible = _private_tagging(audit)
    untagged = _untagged_matches(audit, tagged)  # a tagged fact is covered, whatever it holds
    private = sum(tagged.values())
    passed = untagged == 0 and variants == 0
    return AuditResult(
        "privacy_coverage", passed, ERROR,
        f"{private} facts tagged `{PRIVATE_TAG}`, {untagged} untagged facts match the keyword list or a detector; "
        f"{variants} tag variants; {visible} private facts visible to prefetch (trust ≥ {inputs.settings.min_trust})",
        {"private_facts": float(private), "untagged_private": float(untagged), "tag_variants": float(variants),
         "private_visible_to_prefetch": float(visible)},
    )


def _cap_usage(audit: Audit) -> AuditResult:
    """Both files within the 85% target (WARN above it); ERROR once a file is over its cap."""
    usage = [(r, r.chars) for r in audit.inputs.readings]
    share = {r.source: chars / r.limit if r.limit > 0 else 0.0 for r, chars in usage}
    return AuditResult(
        "cap_usage", all(s <= CAP_TARGET for s in share.values()), ERROR if any(s > 1.0 for s in share.values()) else WARN,
        "; ".join(f"{r.path.name} {chars}/{r.limit} chars ({100 * share[r.source]:.0f}%)" for r, chars in usage)
        + f"; target ≤ {100 * CAP_TARGET:.0f}%",
        {f"{source}_usage_pct": round(100.0 * s, 2) for source, s in share.items()},
    )


def _format_parity(audit: Audit) -> AuditResult:
    readings = audit.inputs.readings
    differs = [f.detail for r in readings for f in r.findings if f.code == "hermes_parse_differs"]
    unreadable = [r.path.name for r in readings if not r.readable]
    return AuditResult(
        "format_parity", not differs and not unreadable, WARN,
        ("; ".join(differs) if differs else "Hermes (0.19.0 and current) and the pipeline read the same entries")
        + (f"; unreadable: {', '.join(unreadable)}" if unreadable else ""),
        {"files_differing": float(len(differs)), "files_unreadable": float(len(unreadable))},
    )


def _pointers_resolve(audit: Audit) -> AuditResult:
    pointers = [n for r in audit.inputs.readings for t in r.entries for n in fact_pointers(t)]
    existing = set()
    if pointers:
        audit.db.register("pointers", pd.DataFrame({"fact_id": sorted(set(pointers))}))
        existing = {r[0] for r in audit.db.execute("SELECT fact_id FROM facts WHERE fact_id IN (SELECT fact_id FROM pointers)").fetchall()}
    dangling = sorted({p for p in pointers if p not in existing})
    return AuditResult(
        "pointers_resolve", not dangling, WARN,
        f"{len(pointers)} fact_store#N pointers in the memory files, {len(dangling)} name no fact"
        + (f" (#{', #'.join(map(str, dangling[:20]))})" if dangling else ""),
        {"pointers": float(len(pointers)), "dangling_pointers": float(len(dangling))},
    )


def _quarantine_empty(audit: Audit) -> AuditResult:
    quarantined = audit.quarantined
    return AuditResult("quarantine_empty", not quarantined, WARN, f"{len(quarantined)} entries in quarantine",
                       {"quarantined": float(len(quarantined))})


def _extraction_latency(audit: Audit) -> AuditResult:
    return audit.extraction["extraction_latency"]


def _extraction_json_valid(audit: Audit) -> AuditResult:
    return audit.extraction["extraction_json_valid"]


_RULES: dict[str, Callable[[Audit], AuditResult]] = {
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
    "extraction_latency": _extraction_latency,
    "extraction_json_valid": _extraction_json_valid,
}
# Every check of the registry, in its order (a check without a rule fails here, at import).
CHECKS: dict[str, Callable[[Audit], AuditResult]] = {spec.name: _RULES[spec.name] for spec in CHECK_REGISTRY}
