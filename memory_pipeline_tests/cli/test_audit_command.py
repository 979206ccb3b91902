import json
import sqlite3

from memory_pipeline.cli import main
from memory_pipeline_tests.support.store_helpers import table_checksums
from memory_pipeline_tests.support.syncing import sync_outcome, synced_profile

CHECK_NAMES = [
    "layer_counts",
    "hashes_fresh",
    "ledger_integrity",
    "fact_links",
    "mirrors_adopted",
    "facts_match_entries",
    "index_consistency",
    "embedding_coverage",
    "entries_distinct",
    "privacy_coverage",
    "memory_safe",
    "cap_usage",
    "format_parity",
    "pointers_resolve",
    "quarantine_empty",
    "extraction_latency",
    "extraction_json_valid",
]


def test_clean_demo_sync_passes_every_error_check(capsys, demo_home):
    sync_outcome(demo_home)
    assert main(["audit", "--hermes-home", str(demo_home), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["ok"] is True and [p["profile"] for p in payload["profiles"]] == ["default", "work"]
    for profile in payload["profiles"]:
        assert [c["name"] for c in profile["checks"]] == CHECK_NAMES
        for check in profile["checks"]:
            assert set(check) == {"name", "passed", "severity", "detail"} and check["severity"] in ("ERROR", "WARN")
            # the demo MEMORY.md sits at 94% of its cap on purpose: a warning, not an error
            assert check["passed"] or (profile["profile"], check["name"], check["severity"]) == ("default", "cap_usage", "WARN")
    report = json.loads((demo_home / "memory-pipeline" / "reports" / "work" / "audit.json").read_text(encoding="utf-8"))
    assert [c["name"] for c in report["checks"]] == CHECK_NAMES
    history = demo_home / "memory-pipeline" / "history.duckdb"
    import duckdb

    with duckdb.connect(str(history), read_only=True) as db:
        assert db.execute("SELECT count(*), count(DISTINCT run_id) FROM audit_history").fetchone() == (2 * len(CHECK_NAMES), 2)


def test_corrupt_ledger_blocks_the_write(capsys, demo_home):
    sync_outcome(demo_home, "work")
    db = demo_home / "profiles" / "work" / "memory_store.db"
    conn = sqlite3.connect(db)
    conn.execute("""INSERT INTO memory_pipeline_ledger (entry_id, source, entry_sha256, fact_id, status)
                    SELECT entry_id, source, entry_sha256, 'content 18 leaked', 'active' FROM memory_pipeline_ledger LIMIT 1""")
    conn.commit()
    conn.close()
    (demo_home / "profiles" / "work" / "memories" / "USER.md").write_text("a brand new entry\n§\nanother", encoding="utf-8")
    facts_before = table_checksums(db)["facts"]
    outcome = sync_outcome(demo_home, "work")
    result = outcome.profiles["work"].summary.as_json()
    assert "ledger_integrity" in result["error"] and "ledger_integrity" in [c.name for c in outcome.failing_to_report()["work"]]
    assert table_checksums(db)["facts"] == facts_before
    assert main(["audit", "--hermes-home", str(demo_home), "--profile", "work"]) == 1
    assert "FAIL ledger_integrity" in capsys.readouterr().out


def test_a_blocked_run_says_what_the_blocking_check_found(capsys, demo_home):
    sync_outcome(demo_home, "work")
    conn = sqlite3.connect(demo_home / "profiles" / "work" / "memory_store.db")
    conn.execute("UPDATE memory_pipeline_ledger SET status = 'weird' WHERE rowid = 1")
    conn.commit()
    conn.close()
    (demo_home / "profiles" / "work" / "memories" / "USER.md").write_text("a brand new entry", encoding="utf-8")
    error = synced_profile(demo_home, "work")["error"]
    assert "ledger_integrity" in error and not error.endswith(":") and "status" in error.split("ERROR severity")[-1]


def test_text_output_ends_with_a_summary_and_each_failure_with_its_fix(capsys, synced_home):
    assert main(["audit", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        lines[0],  # the cap warning, with its detail
        "  fix: memory-pipeline compact --profile default",
        "default: 16 of 17 checks pass; failing: cap_usage (WARN) (--verbose lists every check)",
    ] and lines[0].startswith("default: warn cap_usage: MEMORY.md 2078/2200 chars")
    assert main(["audit", "--hermes-home", str(synced_home), "--profile", "default", "--verbose"]) == 0
    assert sum(line.startswith("default: pass ") for line in capsys.readouterr().out.splitlines()) == 16
