"""The entries of the files, the ledger and the facts against each other: `layer_counts`,
`hashes_fresh`, `ledger_integrity`, `fact_links` and `mirrors_adopted`."""

from __future__ import annotations

import hashlib

import duckdb

from memory_pipeline.lib.audit.checks import ERROR, WARN, AuditResult
from memory_pipeline.lib.audit.layers import AuditInputs, count
from memory_pipeline.lib.audit.loaded_layers import LoadedLayers
from memory_pipeline.lib.hermes.hashing import SHORT_HASH_CHARS
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.reads.ledger import copied_ledger_problems
from memory_pipeline.lib.store.reads.mirror_rows import MirrorRow
from memory_pipeline.lib.sync.journal import Journal, journal_path, read_journal
from memory_pipeline.lib.sync.mirror import EntryEvidence, unexplained_mirrors, vanished_mirrors


def layer_counts(layers: LoadedLayers) -> AuditResult:
    db = layers.db_with_entries
    entries = count(db, "SELECT count(*) FROM entries")
    active = count(db, "SELECT count(DISTINCT entry_id) FROM active")
    facts = count(db, "SELECT count(*) FROM loaded_facts WHERE pipeline")
    without_rows = count(
        db,
        """SELECT count(*) FROM entries e WHERE NOT EXISTS
                                (SELECT 1 FROM active a WHERE a.source = e.source AND a.short_hash = e.short_hash)""",
    )
    without_entry = count(
        db,
        """SELECT count(DISTINCT entry_id) FROM active a WHERE NOT EXISTS
                                 (SELECT 1 FROM entries e WHERE e.source = a.source AND e.short_hash = a.short_hash)""",
    )
    # Entries still waiting for the ledger are hashes_fresh's concern; this one fails when the
    # ledger holds entries the files no longer have (a removal or edit not synced).
    passed = without_entry == 0
    sharers = layers.inputs.owner.sharers
    shared = f"; the store is shared with profile {', '.join(sharers)} (their entries are counted in their audit)" if sharers else ""
    return AuditResult(
        "layer_counts",
        passed,
        ERROR,
        f"{entries} entries, {active} entries with active ledger rows, {facts} pipeline facts; "
        f"{without_rows} entries without ledger rows, {without_entry} active ledger entries without an entry{shared}",
        {"entries": float(entries), "active_ledger_entries": float(active), "pipeline_facts": float(facts)},
    )


def hashes_fresh(layers: LoadedLayers) -> AuditResult:
    db, quarantined = layers.db_with_entries, layers.quarantined
    pending = db.execute("""SELECT e.source || ':' || e.short_hash FROM entries e WHERE NOT EXISTS
                            (SELECT 1 FROM active a WHERE a.source = e.source AND a.short_hash = e.short_hash)""").fetchall()
    stuck = [p for (p,) in pending if p not in quarantined]
    return AuditResult(
        "hashes_fresh",
        not stuck,
        ERROR,
        f"{len(stuck)} entries pending outside quarantine, {len(pending) - len(stuck)} quarantined",
        {"pending": float(len(stuck)), "quarantined": float(len(pending) - len(stuck))},
    )


def ledger_integrity(layers: LoadedLayers) -> AuditResult:
    # With the other checks, from the ledger already in DuckDB; alone (the blocking check), from
    # the ledger only, read from the store.
    if layers.loads_store:
        problems = copied_ledger_problems(layers.db)
    else:
        problems = layers.inputs.reads.ledger_problems() if layers.inputs.reads is not None else []
    return AuditResult(
        "ledger_integrity", not problems, ERROR, "; ".join(problems) or "ledger rows well-formed", {"problems": float(len(problems))}
    )


def _without_white_space(column: str) -> str:
    """The column with ASCII white space removed (what `\\s` folds, and \\v): a chain of replace()
    is about three times faster than translate() in DuckDB."""
    for code in (32, 9, 10, 11, 12, 13):
        column = f"replace({column}, chr({code}), '')"
    return column


def dangling_links(store: FactStore) -> int:
    """Entity links whose fact or entity is gone."""
    return store.reads.dangling_link_count()


def _ids_of(named: list[str]) -> str:
    """` (#3/#9, #12)`: the facts a person removes by hand, named by id (never by content)."""
    return f" ({', '.join(named[:_NAMED_IDS])}{' …' if len(named) > _NAMED_IDS else ''})" if named else ""


def fact_links(layers: LoadedLayers) -> AuditResult:
    db = layers.db
    orphans = count(
        db,
        """SELECT count(*) FROM ledger l WHERE l.fact_id IS NOT NULL
                           AND l.fact_id NOT IN (SELECT fact_id FROM loaded_facts)
                           AND l.fact_id NOT IN (SELECT CAST(fact_id AS BIGINT) FROM archived)""",
    )
    ghosts = count(
        db,
        """SELECT count(*) FROM loaded_facts f WHERE pipeline AND f.fact_id NOT IN
                          (SELECT fact_id FROM ledger WHERE fact_id IS NOT NULL)""",
    )
    # Contents are UNIQUE, so a duplicate is a near-copy: equal once case and runs of
    # white space are folded. A cheap key without any white space finds the few candidates first;
    # only they get the exact folding.
    coarse_key = f"lower({_without_white_space('content')})"
    groups: list[list[int]] = []
    if count(db, f"SELECT count(*) FROM (SELECT {coarse_key} AS k FROM loaded_facts GROUP BY k HAVING count(*) > 1)"):
        groups = [
            sorted(ids)
            for (ids,) in db.execute(
                f"""WITH candidates AS (SELECT fact_id, content FROM loaded_facts WHERE {coarse_key} IN
                                           (SELECT {coarse_key} FROM loaded_facts GROUP BY 1 HAVING count(*) > 1))
                    SELECT list(fact_id) FROM candidates GROUP BY lower(regexp_replace(trim(content), '\\s+', ' ', 'g'))
                    HAVING count(*) > 1 ORDER BY min(fact_id)"""
            ).fetchall()
        ]
    duplicates = len(groups)
    foreign = _rows_naming_anothers_fact(db)
    undecodable_ids = [r[0] for r in db.execute("SELECT fact_id FROM loaded_facts WHERE content IS NULL ORDER BY fact_id").fetchall()]
    undecodable = len(undecodable_ids)
    dangling = layers.store_side("fact_links") if layers.inputs.reads is not None else 0
    passed = not (orphans or ghosts or foreign or duplicates or undecodable or dangling)
    return AuditResult(
        "fact_links",
        passed,
        ERROR,
        f"{orphans} ledger rows pointing at no fact, {ghosts} pipeline facts without a ledger row, "
        f"{len(foreign)} ledger rows naming a fact that is not their entry's{_ids_of([f'#{i}' for i in foreign])}, "
        f"{duplicates} duplicated contents{_ids_of(['/'.join(f'#{i}' for i in g) for g in groups])}, "
        f"{undecodable} contents that are not UTF-8 text{_ids_of([f'#{i}' for i in undecodable_ids])}, {dangling} dangling entity links",
        {
            "orphans": float(orphans),
            "ghosts": float(ghosts),
            "foreign_facts": float(len(foreign)),
            "duplicates": float(duplicates),
            "undecodable_contents": float(undecodable),
            "dangling_links": float(dangling),
        },
    )


_NAMED_IDS = 20


def _rows_naming_anothers_fact(db: duckdb.DuckDBPyConnection) -> list[int]:
    """The facts named by the profile's active rows that are not their entry's: not written by the
    pipeline, and neither the entry's text nor text of the entry's hash (a ledger carried from
    another store names Hermes' own unrelated facts by the same ids)."""
    rows = db.execute(
        "SELECT DISTINCT a.fact_id, a.short_hash, f.content FROM active a JOIN loaded_facts f ON f.fact_id = a.fact_id WHERE NOT f.pipeline"
    ).fetchall()
    return sorted(
        fact_id
        for fact_id, short, content in rows
        if content is None or hashlib.sha256(content.strip().encode("utf-8")).hexdigest()[:SHORT_HASH_CHARS] != short
    )


def mirror_facts(store: FactStore) -> tuple[list[MirrorRow], set[str]]:
    """The mirror rows, and every entry hash any ledger row recorded (what shows a row's text was an entry)."""
    rows = store.reads.mirror_rows()
    return rows, store.reads.known_entry_hashes() if rows else set()


def mirrors_adopted(layers: LoadedLayers) -> AuditResult:
    inputs = layers.inputs
    rows, known = layers.store_side("mirrors_adopted") if inputs.reads is not None else ([], set())
    own = unexplained_mirrors(rows, inputs.readings)
    ids = vanished_mirrors(rows, inputs.readings, _evidence(inputs, known)) if own else []
    named = ", ".join(str(i) for i in ids[:_NAMED_IDS]) + (f" and {len(ids) - _NAMED_IDS} more" if len(ids) > _NAMED_IDS else "")
    waiting, agents = len(rows) - len(own), len(own) - len(ids)
    detail = (
        f"{len(ids)} facts are Holographic's mirrors of entries gone from the files (fact ids {named}): the next sync retires them"
        if ids
        else f"{waiting} mirror rows waiting for their entry's sync; {agents} facts the agent wrote itself, kept as they are"
    )
    metadata = {"unexplained_mirrors": float(len(ids)), "agents_own_facts": float(agents)}
    return AuditResult("mirrors_adopted", not ids, WARN, detail, metadata)


def _evidence(inputs: AuditInputs, known: set[str]) -> EntryEvidence:
    """What shows a mirror row's text was an entry: the ledger, the drift backups, the journal,
    Hermes' session store."""
    journal = read_journal(journal_path(inputs.data_dir, inputs.profile)) if inputs.data_dir else Journal()
    return EntryEvidence.gathered(known, {r.source: r.path for r in inputs.readings}, journal, inputs.profile_home)


RULES = {
    "layer_counts": layer_counts,
    "hashes_fresh": hashes_fresh,
    "ledger_integrity": ledger_integrity,
    "fact_links": fact_links,
    "mirrors_adopted": mirrors_adopted,
}
STORE_SIDE = {"fact_links": dangling_links, "mirrors_adopted": mirror_facts}
