"""The services that read and repair a synced store, called as services: audit and repair,
compaction, the TSV ledger out and back in, Holographic's unexplained mirror rows, and reading
(search and facts by id) with what it withholds."""

import sqlite3

from memory_pipeline.services.audit import audit_profile, repair_profile
from memory_pipeline.services.compaction import apply_compaction, facts_gone, propose_compaction
from memory_pipeline.services.ledger import export_profile, import_into
from memory_pipeline.services.mirrors import profile_mirrors
from memory_pipeline.services.reading import facts_of_profile, search_profiles
from memory_pipeline_tests.support.store_fixture import context_of
from memory_pipeline_tests.support.store_helpers import consistency_problems, query


def _failing(context) -> set[str]:
    return {r.name for r in audit_profile(context, context.judge) if not r.passed}


def test_audit_finds_dangling_links_and_the_repair_deletes_them(synced_home):
    context = context_of(synced_home)
    assert _failing(context) == {"cap_usage"}
    with sqlite3.connect(synced_home / "memory_store.db") as conn:
        conn.execute("INSERT INTO fact_entities (fact_id, entity_id) VALUES (999999, 1)")
    assert _failing(context) == {"cap_usage", "fact_links"}
    done, failed = repair_profile(context, context.judge, {"fact_links"})
    assert "deleted 1 dangling entity links" in done and failed == []
    assert _failing(context) == {"cap_usage"}


def test_compaction_proposes_then_applies_and_the_sync_adds_no_fact(synced_home):
    context = context_of(synced_home)
    proposals = [p.proposal for p in propose_compaction(context, 0.8) if p.proposal is not None]
    assert [p.path.name for p in proposals] == ["MEMORY.md"] and proposals[0].rewrites
    assert facts_gone(context, proposals[0]) == []
    written = []
    applied = apply_compaction(context, proposals, lock_timeout_s=10, on_written=lambda p, backup: written.append(backup))
    assert applied.sync_error is None and applied.added == 0 and applied.compacted == len(proposals[0].rewrites)
    assert len(written) == 1 and written[0].is_file()
    assert consistency_problems(synced_home / "memory_store.db") == []


def test_the_ledger_goes_out_and_comes_back_row_for_row(synced_context):
    db = synced_context.store.path
    rows = "SELECT entry_id, source, entry_sha256, fact_id FROM memory_pipeline_ledger WHERE status = 'active' ORDER BY entry_id"
    before = query(db, rows)
    lines = export_profile(synced_context)
    assert len(lines) == len(before) == 23
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM memory_pipeline_ledger")
    report = import_into(synced_context, "".join(lines))
    assert (report.imported, report.matched_current, report.not_its_fact) == (23, 23, 0)
    assert query(db, rows) == before


def test_an_unexplained_mirror_row_is_named_then_retired_with_a_receipt(synced_context):
    db = synced_context.store.path
    with sqlite3.connect(db) as conn:  # what Holographic's add-mirror writes for an entry the files no longer have
        fact_id = conn.execute("INSERT INTO facts (content, category) VALUES ('Standup moved to 09:45', 'general')").lastrowid
    found = profile_mirrors(synced_context)
    assert [row.fact_id for row in found.unexplained] == [fact_id] and found.settled == []
    settled = profile_mirrors(synced_context, apply=True)
    assert settled.settled == [fact_id] and profile_mirrors(synced_context).unexplained == []
    assert query(db, "SELECT tags, trust_score < 0.3 FROM facts WHERE fact_id = ?", (fact_id,)) == [("retired", 1)]
    assert query(db, "SELECT action, fact_ids FROM memory_pipeline_receipts") == [("retired", str(fact_id))]


def test_reading_finds_what_is_shown_and_withholds_the_private_fact_alike(synced_context):
    db = synced_context.store.path
    ((private_id,),) = query(db, "SELECT fact_id FROM facts WHERE tags LIKE '%private-person%'")
    shown = search_profiles([synced_context], "部署", limit=10, include_private=False, refresh_index=False)
    assert shown.facts and all(f["profile"] == "default" and "部署" in f["content"] for f in shown.facts)
    named = search_profiles([synced_context], "张伟", limit=10, include_private=False, refresh_index=False)
    assert private_id not in {f["fact_id"] for f in named.facts}
    asked = facts_of_profile(synced_context, [private_id, 999999], include_private=False)
    assert asked.facts == [] and sorted(asked.unavailable_ids) == [private_id, 999999]  # withheld and missing, alike
    assert [f["fact_id"] for f in facts_of_profile(synced_context, [private_id], include_private=True).facts] == [private_id]
