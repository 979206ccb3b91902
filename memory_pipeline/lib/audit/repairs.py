"""What `memory-pipeline audit --repair` may fix mechanically: the ledger's malformed and
superseded rows (saved first), links and facts no entry backs, indexes, vectors, banks and tags.
A fact an entry backs is never deleted; pending entries are re-synced by the caller. Every
write goes through the profile's `FactStore`."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.lib.privacy.choice import PrivacyJudge
from memory_pipeline.lib.privacy.tagging import retag_store
from memory_pipeline.lib.store.fact_store import FactStore


def repair_indexes(store: FactStore) -> list[str]:
    """facts_fts rebuilt when off; a fact stored with no vector (Hermes without NumPy) given the
    one Holographic computes; the pipeline's own facts whose vector no dialect decodes recomputed
    from content and links, in the store's dialect (a decodable vector, and any other fact Hermes
    wrote, is left byte for byte); the banks that are off rebuilt from their vectors."""
    done = []
    if not store.index.holographic_fts_health().healthy:
        store.index.rebuild_holographic_fts()
        done.append("rebuilt facts_fts")
    with store.transaction() as writes:
        added = writes.facts.add_missing_vectors()
        bad = store.reads.undecodable_pipeline_facts(store.settings.hrr_dim)
        for fact_id, content in bad:
            writes.facts.relink(fact_id, content, writes.facts.resolve(store.reads.linked_entity_names(fact_id)))
        stale = store.reads.banks_off(store.settings.hrr_dim)
        writes.facts.rebuild_banks_in_full(stale)
    if added:
        done.append(f"added {added} HRR vectors to facts Hermes stored without one")
    if bad:
        done.append(f"recomputed {len(bad)} HRR vectors ({writes.facts.vector_format.value})")
    if stale:
        done.append(f"rebuilt {len(stale)} category banks")
    synced = store.index.sync_search_index()
    if synced.changed:
        done.append(f"brought the search index in step ({synced.changed} rows)")
    return done


def repair_tags(store: FactStore, judge: PrivacyJudge) -> list[str]:
    report = retag_store(store, judge)
    if not report.wrote:
        return []
    return [f"re-tagged: {report.tagged} tagged, {report.untagged} untagged, {report.normalised} tag variants folded"]


def repair_ledger(store: FactStore, saved_to: Path) -> list[str]:
    """Rows breaking a row rule deleted, and the active rows of an entry's older versions retired,
    once every such row is saved as it was (table `ledger_rows` of the SQLite file `saved_to`,
    private: a leaked value may be entry text). The entries they stood for are synced afresh."""
    found_malformed = set(store.reads.malformed_ledger_rows())
    found_superseded = set(store.reads.superseded_ledger_rows()) - found_malformed
    if not (found_malformed or found_superseded):
        return []
    store.reads.save_ledger_rows(sorted(found_malformed | found_superseded), saved_to)
    with store.transaction() as writes:
        # Only rows saved and still as found: a writer may have come between.
        malformed = [r for r in store.reads.malformed_ledger_rows() if r in found_malformed]
        superseded = [r for r in store.reads.superseded_ledger_rows() if r in found_superseded]
        writes.ledger.delete_ledger_rows(malformed)
        writes.ledger.retire_ledger_rows(superseded)
    done = [f"deleted {len(malformed)} malformed ledger rows"] if malformed else []
    done += [f"retired {len(superseded)} ledger rows of an entry's older versions"] if superseded else []
    return [*done, f"saved the rows as they were to {saved_to}"]


def repair_links(store: FactStore) -> list[str]:
    """Entity links whose fact or entity is gone deleted; ledger rows pointing at no fact deleted
    (their entries are synced afresh); the pipeline's facts that no ledger row names (ghosts of
    entries gone) deleted, and the banks they were in rebuilt."""
    with store.transaction() as writes:
        links = writes.records.delete_dangling_links()
        orphans = writes.ledger.delete_rows_naming_no_fact()
        foreign = writes.ledger.delete_rows_naming_anothers_fact()
        ghosts = store.reads.unbacked_pipeline_facts()
        for ghost in ghosts:
            writes.facts.delete(ghost)
        writes.facts.rebuild_banks()
    done = [f"deleted {links} dangling entity links"] if links else []
    done += [f"deleted {orphans} ledger rows pointing at no fact"] if orphans else []
    done += [f"deleted {foreign} ledger rows naming a fact that is not their entry's (those entries sync afresh)"] if foreign else []
    done += [f"deleted {len(ghosts)} pipeline facts no entry backs (#{', #'.join(map(str, ghosts[:20]))})"] if ghosts else []
    return done
