"""The services that read and repair a synced store, called as services: audit and repair,
compaction, the TSV ledger out and back in, Holographic's unexplained mirror rows, and reading
(search and facts by id) with what it withholds."""

import sqlite3

from memory_pipeline.context.home import privacy_judge
from memory_pipeline.lib.hermes.profiles import get_profile
from memory_pipeline.services.audit import audit_profile, repair_profile
from memory_pipeline.services.compaction import apply_compaction, facts_gone, propose_compaction
from memory_pipeline.services.ledger import export_profile, import_into
from memory_pipeline.services.mirrors import profile_mirrors
from memory_pipeline.services.reading import facts_of_profile, search_profiles
from memory_pipeline_tests.support.store_helpers import consistency_problems, query


def _failing(home, profile) -> set[str]:
    judge = privacy_judge(profile, home)
    return {r.name for r in audit_profile(profile, home, judge) if not r.passed}


def test_audit_finds_dangling_links_and_the_repair_deletes_them(synced_home):
    profile = get_profile(synced_home, "default")
    assert _failing(synced_home, profile) == {"cap_usage"}
    with sqlite3.connect(synced_home / "memory_store.db") as conn:
        conn.execute("INSERT INTO fact_entities (fact_id, entity_id) VALUES (999999, 1)")
    assert _failing(synced_home, profile) == {"cap_usage", "fact_links"}
    done, failed = repair_profile(profile, synced_home, privacy_judge(profile, synced_home), {"fact_links"})
    assert "deleted 1 dangling entity links" in done and failed == []
    assert _failing(synced_home, profile) == {"cap_usage"}


def test_compaction_proposes_then_applies_and_the_sync_adds_no_fact(synced_home):
    profile = get_profile(synced_home, "default")
    proposals = [p.proposal for p in propose_compaction(profile, synced_home, 0.8) if p.proposal is not None]
    assert [p.path.name for p in proposals] == ["MEMORY.md"] and proposals[0].rewrites
    assert facts_gone(profile, proposals[0]) == []
    written = []
    applied = apply_compaction(synced_home, profile, proposals, lock_timeout_s=10, on_written=lambda p, backup: written.append(backup))
    assert applied.sync_error is None and applied.added == 0 and applied.compacted == len(proposals[0].rewrites)
    assert len(written) == 1 and written[0].is_file()
    assert consistency_problems(synced_home / "memory_store.db") == []


def test_the_ledger_goes_out_and_comes_back_row_for_row(synced_home):
    profile = get_profile(synced_home, "default")
    db = synced_home / "memory_store.db"
    rows = "SELECT entry_id, source, entry_sha256, fact_id FROM memory_pipeline_ledger WHERE status = 'active' ORDER BY entry_id"
    before = query(db, rows)
    lines = export_profile(profile, synced_home)
    assert len(lines) == len(before) == 23
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM memory_pipeline_ledger")
    report = import_into(profile, "".join(lines), synced_home)
    assert (report.imported, report.matched_current, report.not_its_fact) == (23, 23, 0)
    assert query(db, rows) == before


def test_an_unexplained_mirror_row_is_named_then_retired_with_a_receipt(synced_home):
    profile = get_profile(synced_home, "default")
    db = synced_home / "memory_store.db"
    with sqlite3.connect(db) as conn:  # what Holographic's add-mirror writes for an entry the files no longer have
        fact_id = conn.execute("INSERT INTO facts (content, category) VALUES ('Standup moved to 09:45', 'general')").lastrowid
    found = profile_mirrors(profile)
    assert [row.fact_id for row in found.unexplained] == [fact_id] and found.settled == []
    settled = profile_mirrors(profile, apply=True)
    assert settled.settled == [fact_id] and profile_mirrors(profile).unexplained == []
    assert query(db, "SELECT tags, trust_score < 0.3 FROM facts WHERE fact_id = ?", (fact_id,)) == [("retired", 1)]
    assert query(db, "SELECT action, fact_ids FROM memory_pipeline_receipts") == [("retired", str(fact_id))]


def test_reading_finds_what_is_shown_and_withholds_the_private_fact_alike(synced_home):
    profile = get_profile(synced_home, "default")
    db = synced_home / "memory_store.db"
    ((private_id,),) = query(db, "SELECT fact_id FROM facts WHERE tags LIKE '%private-person%'")
    shown = search_profiles([profile], "部署", limit=10, include_private=False, refresh_index=False)
    assert shown.facts and all(f["profile"] == "default" and "部署" in f["content"] for f in shown.facts)
    named = search_profiles([profile], "张伟", limit=10, include_private=False, refresh_index=False)
    assert private_id not in {f["fact_id"] for f in named.facts}
    asked = facts_of_profile(profile, [private_id, 999999], include_private=False)
    assert asked.facts == [] and sorted(asked.unavailable_ids) == [private_id, 999999]  # withheld and missing, alike
    assert [f["fact_id"] for f in facts_of_profile(profile, [private_id], include_private=True).facts] == [private_id]
