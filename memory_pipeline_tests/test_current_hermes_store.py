"""Stores that current Hermes (HRR1 float32 vectors) has written into: synced clean, audited by
the current rules, repaired without touching a vector that decodes."""

import json
import sqlite3

import numpy as np
import pytest

from memory_pipeline.cli import main
from memory_pipeline_tests.support.hermes_oracle import current_hermes_add_fact, current_hermes_decode
from memory_pipeline_tests.support.store_helpers import query, read_entries, write_entries
from memory_pipeline_tests.support.syncing import sync_outcome, synced_profile

DIM = 1024


def _db(home):
    return home / "memory_store.db"


def _add_entry(home, text):
    memory = home / "memories" / "MEMORY.md"
    write_entries(memory, read_entries(memory) + [text])


def _blobs(db):
    return dict(query(db, "SELECT fact_id, hrr_vector FROM facts"))


def _angle_gap(a, b):
    return float(np.max(np.abs(np.angle(np.exp(1j * (a - b))))))


def assert_every_vector_and_bank_decodes(db):
    """Current Hermes' rules: every vector decodes; each bank counts exactly its category's
    decodable vectors and is their bundle (within float32 precision)."""
    by_category: dict[str, list[np.ndarray]] = {}
    for category, blob in query(db, "SELECT category, hrr_vector FROM facts"):
        by_category.setdefault(category, []).append(current_hermes_decode(blob, DIM))
    rows = query(db, "SELECT bank_name, vector, fact_count, dim FROM memory_banks")
    banks = {name: (blob, count, dim) for name, blob, count, dim in rows}
    assert set(banks) == {f"cat:{c}" for c in by_category}
    for category, vectors in by_category.items():
        blob, count, dim = banks[f"cat:{category}"]
        assert (count, dim) == (len(vectors), DIM), category
        bundle = np.angle(np.sum([np.exp(1j * v) for v in vectors], axis=0))
        assert _angle_gap(current_hermes_decode(blob, DIM), bundle) < 1e-5, category


@pytest.fixture
def hermes_wrote_hrr1(synced_home):
    """The demo home after its first sync (legacy store), then two facts added by current Hermes."""
    db = _db(synced_home)
    assert {len(b) for b in _blobs(db).values()} == {8 * DIM}  # a new store is written legacy
    ids = [
        current_hermes_add_fact(db, "Current Hermes noted the Grafana dashboard", "general"),
        current_hermes_add_fact(db, "User prefers Kagi over Google", "user_pref"),
    ]
    return synced_home, ids


def test_a_store_current_hermes_wrote_syncs_clean_and_in_hrr1(capsys, hermes_wrote_hrr1):
    home, hermes_ids = hermes_wrote_hrr1
    db = _db(home)
    before = _blobs(db)
    _add_entry(home, "**Backups**: restic to the NAS every night at 03:00")
    outcome = sync_outcome(home, "default")
    result = outcome.profiles["default"].summary.as_json()
    assert not outcome.run_problems and result["added"] == 1
    # The two facts current Hermes added are the agent's own, shaped like mirror rows: named, never touched.
    assert not [c for c in result["failing_checks"] if c not in ("cap_usage", "mirrors_adopted")], result["failing_checks"]
    after = _blobs(db)
    assert all(after[i] == before[i] for i in before), "no existing vector was rewritten"
    (new_id,) = set(after) - set(before)
    assert len(after[new_id]) == 4 + 4 * DIM and after[new_id][:4] == b"HRR1"
    assert all(after[i][:4] == b"HRR1" for i in hermes_ids)
    assert_every_vector_and_bank_decodes(db)
    assert main(["audit", "--hermes-home", str(home), "--profile", "default", "--json"]) == 0
    (profile,) = json.loads(capsys.readouterr().out)["profiles"]
    index = next(c for c in profile["checks"] if c["name"] == "index_consistency")
    assert index["passed"] and f"{len(before) - 2} legacy float64, 3 HRR1 float32, 0 malformed" in index["detail"]


def test_vector_format_can_be_forced(capsys, hermes_wrote_hrr1):
    home, _ = hermes_wrote_hrr1
    _add_entry(home, "**Editor**: Helix, with the Zed keymap")
    assert synced_profile(home, vector_format="legacy")["added"] == 1
    newest = query(_db(home), "SELECT hrr_vector FROM facts ORDER BY fact_id DESC LIMIT 1")[0][0]
    assert len(newest) == 8 * DIM
    assert_every_vector_and_bank_decodes(_db(home))


def test_repair_fixes_only_the_broken_vector_and_reports_what_it_cannot(capsys, hermes_wrote_hrr1):
    home, hermes_ids = hermes_wrote_hrr1
    db = _db(home)
    conn = sqlite3.connect(db)
    pipeline_id = conn.execute("SELECT fact_id FROM facts WHERE tags LIKE '%synced-from-memory%' ORDER BY fact_id LIMIT 1").fetchone()[0]
    conn.execute("UPDATE facts SET hrr_vector = substr(hrr_vector, 1, 100) WHERE fact_id = ?", (pipeline_id,))
    conn.commit()
    conn.close()
    before = _blobs(db)
    assert main(["audit", "--hermes-home", str(home), "--profile", "default", "--verbose"]) == 1
    out = capsys.readouterr().out
    assert "FAIL index_consistency" in out and "1 malformed" in out
    assert main(["audit", "--hermes-home", str(home), "--profile", "default", "--repair"]) == 0
    out = capsys.readouterr().out
    assert "recomputed 1 HRR vectors (hrr1)" in out
    after = _blobs(db)
    assert {i for i in before if after[i] != before[i]} == {pipeline_id}
    assert after[pipeline_id][:4] == b"HRR1" and len(after[pipeline_id]) == 4 + 4 * DIM
    assert_every_vector_and_bank_decodes(db)

    # Vectors no dialect accepts on facts Hermes wrote (another size; the HRR1 size without the
    # prefix): reported, their banks no longer match, and they are never rewritten.
    conn = sqlite3.connect(db)
    conn.execute("UPDATE facts SET hrr_vector = zeroblob(1234) WHERE fact_id = ?", (hermes_ids[0],))
    conn.execute("UPDATE facts SET hrr_vector = zeroblob(?) WHERE fact_id = ?", (4 + 4 * DIM, hermes_ids[1]))
    conn.commit()
    conn.close()
    assert main(["audit", "--hermes-home", str(home), "--profile", "default", "--verbose"]) == 1
    out = capsys.readouterr().out
    assert "1 HRR1 float32, 2 malformed, 0 missing; 2 banks off" in out
    assert main(["audit", "--hermes-home", str(home), "--profile", "default", "--repair", "--verbose"]) == 1
    out = capsys.readouterr().out
    assert "rebuilt 2 category banks" in out and "2 malformed, 0 missing; 0 banks off" in out
    assert _blobs(db)[hermes_ids[0]] == bytes(1234) and _blobs(db)[hermes_ids[1]] == bytes(4 + 4 * DIM)
    assert "index_consistency" in synced_profile(home)["failing_checks"]


def test_a_mixed_store_syncs_clean_and_repair_changes_no_blob(capsys, hermes_wrote_hrr1):
    home, _ = hermes_wrote_hrr1
    db = _db(home)
    current_hermes_add_fact(db, "Deploys go through Argo CD", "project")
    _add_entry(home, "**Pager**: PagerDuty rota starts Monday")
    assert not sync_outcome(home, "default").run_problems
    before = {**_blobs(db), **{n: v for n, v in query(db, "SELECT bank_name, vector FROM memory_banks")}}
    assert {len(b) for b in _blobs(db).values()} == {8 * DIM, 4 + 4 * DIM}
    # An FTS index out of step makes index_consistency fail, so the index repair really runs.
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO facts_fts(facts_fts, rowid, content, tags) SELECT 'delete', fact_id, content, tags FROM facts LIMIT 1")
    conn.commit()
    conn.close()
    assert main(["audit", "--hermes-home", str(home), "--profile", "default", "--repair"]) == 0
    repaired = [line for line in capsys.readouterr().out.splitlines() if ": repaired: " in line]
    assert repaired == ["default: repaired: rebuilt facts_fts"]
    after = {**_blobs(db), **{n: v for n, v in query(db, "SELECT bank_name, vector FROM memory_banks")}}
    assert after == before


def test_a_bank_of_another_dim_is_a_finding_then_rebuilt(capsys, synced_home):
    db = _db(synced_home)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE memory_banks SET dim = 512 WHERE bank_name = 'cat:general'")
    conn.commit()
    conn.close()
    assert main(["audit", "--hermes-home", str(synced_home), "--profile", "default"]) == 1
    assert "1 banks off (count, dim or vector), 1 of them of another dim" in capsys.readouterr().out
    assert main(["audit", "--hermes-home", str(synced_home), "--profile", "default", "--repair"]) == 0
    assert "rebuilt 1 category banks" in capsys.readouterr().out
    assert_every_vector_and_bank_decodes(db)


def test_dim_one_store_stays_legacy_even_when_hrr1_is_asked_for(capsys, demo_home):
    (demo_home / "config.yaml").write_text("plugins:\n  hermes-memory-store:\n    hrr_dim: 1\n", encoding="utf-8")
    assert not sync_outcome(demo_home, "default", vector_format="hrr1").run_problems
    sizes = {len(b) for (b,) in query(_db(demo_home), "SELECT hrr_vector FROM facts")}
    banks = {len(b) for (b,) in query(_db(demo_home), "SELECT vector FROM memory_banks")}
    assert sizes == banks == {8}
    assert main(["audit", "--hermes-home", str(demo_home), "--profile", "default", "--json"]) == 0


def test_status_names_the_dialect_and_counts(capsys, hermes_wrote_hrr1):
    home, _ = hermes_wrote_hrr1
    total = query(_db(home), "SELECT count(*) FROM facts")[0][0]
    assert main(["status", "--hermes-home", str(home), "--profile", "default"]) == 0
    out = capsys.readouterr().out
    assert f"HRR vectors: {total - 2} legacy float64, 2 HRR1 float32; new vectors are written HRR1" in out
    assert main(["status", "--hermes-home", str(home), "--profile", "default", "--json"]) == 0
    (status,) = json.loads(capsys.readouterr().out)["profiles"]
    assert status["vector_dialect"] == "hrr1" and status["vectors"]["hrr1"] == 2
