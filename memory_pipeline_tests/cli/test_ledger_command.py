from memory_pipeline.cli import main
from memory_pipeline.lib.hermes.hashing import entry_sha256
from memory_pipeline_tests.support.hermes_oracle import holographic_store
from memory_pipeline_tests.support.store_helpers import active_facts, query, read_entries, said
from memory_pipeline_tests.support.syncing import sync_outcome, synced_profile


def test_export_writes_memory_sync_sh_five_columns_then_the_provenance(synced_home, tmp_path):
    demo_home = synced_home
    out = tmp_path / "ledger.tsv"
    assert main(["ledger", "export", str(out), "--hermes-home", str(demo_home), "--profile", "default"]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# profile: default"
    lines = lines[1:]
    assert len(lines) == 23
    ids = dict(query(demo_home / "memory_store.db", "SELECT content, fact_id FROM facts"))
    by_hash = {entry_sha256(c)[:16]: (c, i) for c, i in ids.items()}
    for line in lines:
        entry_id, short, fact_id, source, stamp, extractor, model, prompt = line.split("\t")
        assert entry_id == f"{source}:{short}" and by_hash[short][1] == int(fact_id)
        assert stamp.endswith("Z") and "T" in stamp and extractor == "rules"
    # A round trip changes no column.
    before = query(demo_home / "memory_store.db", "SELECT * FROM memory_pipeline_ledger ORDER BY entry_id, fact_id")
    assert main(["ledger", "import", str(out), "--hermes-home", str(demo_home), "--profile", "default"]) == 0
    assert query(demo_home / "memory_store.db", "SELECT * FROM memory_pipeline_ledger ORDER BY entry_id, fact_id") == before


def test_a_ledger_carried_to_another_store_never_maps_entries_onto_other_facts(capsys, synced_home, tmp_path):
    """The store recreated (here: its facts replaced by Hermes' own, unrelated ones, ids reused):
    rows whose fact is not their entry's are left out, said by count, and the sync writes them afresh."""
    import sqlite3

    out = tmp_path / "ledger.tsv"
    assert main(["ledger", "export", str(out), "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    db = synced_home / "memory_store.db"
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM memory_pipeline_ledger")
        hermes_own = conn.execute("UPDATE facts SET content = 'hermes own fact ' || fact_id, tags = ''").rowcount
    capsys.readouterr()
    assert main(["ledger", "import", str(out), "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    said = capsys.readouterr().out
    assert "imported 0 ledger rows" in said and "left out 23 rows whose fact is not their entry's" in said
    assert query(db, "SELECT count(*) FROM memory_pipeline_ledger") == [(0,)]
    assert main(["sync", "--hermes-home", str(synced_home), "--profile", "default", "--quiet"]) in (0, 1)
    assert query(db, "SELECT count(*) FROM facts WHERE content LIKE 'hermes own fact %'") == [(hermes_own,)]  # never rewritten


def test_import_keeps_a_memory_sync_users_fact_ids(capsys, demo_home, tmp_path):
    """A `memory-sync.sh` user: Holographic filled by add_fact, a shell-era TSV ledger with the
    memory-sync.sh ledger's pitfalls (append-only history, a leaked fact_id, an orphan)."""
    db = demo_home / "memory_store.db"
    store = holographic_store(db)
    lines, fact_ids = [], {}
    try:
        for source, name, category in (("memory", "MEMORY.md", "general"), ("user", "USER.md", "user_pref")):
            for n, entry in enumerate(read_entries(demo_home / "memories" / name)):
                fact_ids[entry] = store.add_fact(entry, category=category, tags="memory-sync")
                lines.append(f"{source[:3]}-{n:03d}\t{entry_sha256(entry)[:16]}\t{fact_ids[entry]}\t{source}\t1764600000")
    finally:
        store.close()
    first = read_entries(demo_home / "memories" / "MEMORY.md")[0]
    history = [f"mem-000\t{'0' * 16}\t{fact_ids[first]}\tmemory\t2026-09-01T10:00:00Z"]  # superseded below
    leak = [f"mem-900\t{'a' * 16}\t18 条 facts\tmemory\t2026-09-02T10:00:00Z"]
    orphan = [f"mem-901\t{'b' * 16}\t99999\tmemory\t2026-09-02T10:00:00Z"]
    tsv = tmp_path / "sync-ledger.jsonl"
    tsv.write_text("\n".join(history + lines + leak + orphan) + "\n", encoding="utf-8")

    assert main(["ledger", "import", str(tsv), "--hermes-home", str(demo_home), "--profile", "default"]) == 0
    out = capsys.readouterr().out
    assert "imported 23 ledger rows" in out and "23 matched" in out and "1 older history rows dropped" in out
    assert "rejected 2 rows: 1 non-numeric fact_id, 1 fact not in the store" in out and "18 条" not in out

    result = synced_profile(demo_home)
    assert (result["added"], result["updated"], result["unchanged"], result["facts_total"]) == (0, 0, 23, 23)
    ledger = dict(query(db, "SELECT f.content, l.fact_id FROM memory_pipeline_ledger l JOIN facts f USING (fact_id)"))
    assert ledger == fact_ids


def test_import_of_a_missing_file_is_a_clear_error(capsys, synced_home, tmp_path):
    assert main(["ledger", "import", str(tmp_path / "nope.tsv"), "--hermes-home", str(synced_home), "--profile", "default"]) == 2
    assert said(capsys.readouterr().err) == [f"memory-pipeline: {tmp_path / 'nope.tsv'}: no such ledger file"]


def test_export_before_any_sync_is_a_clear_error(capsys, demo_home, tmp_path):
    assert main(["ledger", "export", str(tmp_path / "x.tsv"), "--hermes-home", str(demo_home)]) == 2
    assert "no fact store yet for profile default, work" in capsys.readouterr().err


def test_export_covers_every_profile_and_dash_is_stdout(capsys, synced_home, tmp_path):
    assert main(["ledger", "export", "-", "--hermes-home", str(synced_home)]) == 0
    out = capsys.readouterr()
    assert not (tmp_path / "-").exists() and not (synced_home / "-").exists()
    sections = out.out.split("# profile: ")[1:]
    assert [s.splitlines()[0] for s in sections] == ["default", "work"]
    assert [len(s.splitlines()) - 1 for s in sections] == [23, 8]
    assert "exported 23 of profile default, 8 of profile work active ledger rows" in out.err


def test_import_reads_stdin_and_needs_a_profile_when_there_are_several(capsys, monkeypatch, synced_home):
    import io

    assert main(["ledger", "export", "-", "--hermes-home", str(synced_home), "--profile", "work"]) == 0
    exported = capsys.readouterr().out
    assert main(["ledger", "import", "-", "--hermes-home", str(synced_home)]) == 2
    assert "give --profile (default, work)" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO(exported))
    assert main(["ledger", "import", "-", "--hermes-home", str(synced_home), "--profile", "work"]) == 0
    assert "imported 8 ledger rows into profile work (8 matched" in capsys.readouterr().out


def test_a_whole_home_export_imports_only_the_profiles_own_section_and_changes_nothing(capsys, synced_home, tmp_path):
    from memory_pipeline_tests.support.store_helpers import query

    def ledger(db):  # what the ledger says: which entry backs which fact (the TSV carries no extractor)
        return sorted(query(db, "SELECT entry_id, source, entry_sha256, fact_id, status FROM memory_pipeline_ledger"))

    exported = tmp_path / "ledger.tsv"
    assert main(["ledger", "export", str(exported), "--hermes-home", str(synced_home)]) == 0
    stores = {"default": synced_home / "memory_store.db", "work": synced_home / "profiles" / "work" / "memory_store.db"}
    before = {name: ledger(db) for name, db in stores.items()}
    capsys.readouterr()
    for name, entries in (("work", 8), ("default", 23)):
        assert main(["ledger", "import", str(exported), "--hermes-home", str(synced_home), "--profile", name]) == 0
        assert f"imported {entries} ledger rows into profile {name} ({entries} matched" in capsys.readouterr().out
    after = {name: ledger(db) for name, db in stores.items()}
    assert after == before  # export, then import: nothing changed
    profiles = {name: p.summary.as_json() for name, p in sync_outcome(synced_home, force=True).profiles.items()}
    assert {(p["removed"], p["added"]) for p in profiles.values()} == {(0, 0)} and "layer_counts" not in profiles["work"]["failing_checks"]

    (synced_home / "profiles" / "ops" / "memories").mkdir(parents=True)
    assert main(["ledger", "import", str(exported), "--hermes-home", str(synced_home), "--profile", "ops"]) == 2
    assert "holds the ledgers of profiles default, work, not ops; nothing imported" in capsys.readouterr().err


def test_audit_finds_ledger_rows_naming_a_fact_not_their_entrys_and_repair_writes_them_afresh(capsys, synced_home):
    """A ledger carried onto a recreated store by hand (memory-sync.sh copied it file to file):
    every row names one of Hermes' own unrelated facts. The audit fails `fact_links` naming them;
    the repair drops those rows and the re-sync writes the entries, Hermes' facts untouched."""
    import sqlite3

    db = synced_home / "memory_store.db"
    with sqlite3.connect(db) as conn:
        hermes_own = conn.execute("UPDATE facts SET content = 'hermes own fact ' || fact_id, tags = ''").rowcount
    capsys.readouterr()
    assert main(["audit", "--hermes-home", str(synced_home), "--profile", "default"]) == 1
    out = capsys.readouterr().out
    assert "23 ledger rows naming a fact that is not their entry's" in out and "fix: " in out
    assert main(["audit", "--hermes-home", str(synced_home), "--profile", "default", "--repair"]) == 0, capsys.readouterr()
    assert "deleted 23 ledger rows naming a fact that is not their entry's" in capsys.readouterr().out
    assert query(db, "SELECT count(*) FROM facts WHERE content LIKE 'hermes own fact %' AND tags = ''") == [(hermes_own,)]
    entries = read_entries(synced_home / "memories" / "MEMORY.md") + read_entries(synced_home / "memories" / "USER.md")
    backed = {c for (_, c) in active_facts(db)}
    assert {e.strip() for e in entries} <= backed


def test_the_round_trip_on_a_compacted_store_is_exact(capsys, synced_home, tmp_path):
    """After `compact --apply`, export then import leaves every row as it was: a summary's rows
    name the facts it points at (`fact_store#N`), an entry backing several facts keeps them all,
    and no row is rewritten (not even its time)."""
    import sqlite3

    from memory_pipeline_tests.support.store_helpers import query

    db = synced_home / "memory_store.db"
    assert main(["compact", "--hermes-home", str(synced_home), "--profile", "default", "--apply", "--yes"]) == 0
    sync_outcome(synced_home)
    with sqlite3.connect(db) as conn:  # one entry backing two facts, as an LLM extractor writes it
        entry_id, source, sha, fact_id = conn.execute(
            "SELECT entry_id, source, entry_sha256, fact_id FROM memory_pipeline_ledger WHERE status = 'active' LIMIT 1"
        ).fetchone()
        other = conn.execute("INSERT INTO facts (content, category) VALUES ('a second fact of one entry', 'general')").lastrowid
        conn.execute(
            """INSERT INTO memory_pipeline_ledger (entry_id, source, entry_sha256, fact_id, status, extractor, profile)
               SELECT entry_id, source, entry_sha256, ?, status, extractor, profile FROM memory_pipeline_ledger
               WHERE entry_id = ? AND fact_id = ?""",
            (other, entry_id, fact_id),
        )
    rows = "SELECT * FROM memory_pipeline_ledger ORDER BY entry_id, fact_id"
    before = query(db, rows)
    assert any(r for r in query(db, "SELECT count(*) FROM memory_pipeline_ledger WHERE status = 'active' GROUP BY entry_id") if r[0] > 1)
    exported = tmp_path / "ledger.tsv"
    assert main(["ledger", "export", str(exported), "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    capsys.readouterr()
    assert main(["ledger", "import", str(exported), "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    out = capsys.readouterr().out
    active = len([r for r in before if "active" in r])
    assert f"imported {active} ledger rows" in out and f"{active} already as the ledger holds them" in out and "left out" not in out, out
    assert query(db, rows) == before
