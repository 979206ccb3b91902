"""`extracted_facts` with Ollama in real Dagster runs (the CLI's in-process path): which extractor
ran and why, metadata the UI plots, the DuckDB call history, the extraction checks, a failed batch
kept out of the store while the others land, and the next run bringing it in."""

import json

import dagster as dg
import duckdb
import pytest

from memory_pipeline.cli import main
from memory_pipeline.launch.execute import run_sync
from memory_pipeline_tests.support.fake_ollama import FakeOllama, answer, slow
from memory_pipeline_tests.support.run_metadata import run_metadata
from memory_pipeline_tests.support.store_helpers import (
    consistency_problems,
    query,
    read_entries,
    said,
    write_entries,
)
from memory_pipeline_tests.support.syncing import sync_outcome, synced_profile

MALFORMED = answer("Sure! Here are the facts: {facts: [")


@pytest.fixture
def server(monkeypatch):
    with FakeOllama() as fake:
        monkeypatch.setenv("OLLAMA_HOST", fake.url)
        yield fake


def _history(home) -> list[tuple]:
    with duckdb.connect(str(home / "memory-pipeline" / "history.duckdb"), read_only=True) as db:
        return db.execute(
            "SELECT profile, batch, attempt, entries, facts, outcome, prompt_tokens FROM extraction_calls ORDER BY profile, batch, attempt"
        ).fetchall()


def test_auto_uses_ollama_in_batches_and_records_every_call(capsys, demo_home, server):
    outcome = sync_outcome(demo_home, batch_size=5)
    default, work = (outcome.profiles[name].summary.as_json() for name in ("default", "work"))
    assert (default["extractor"], default["model"], default["llm_calls"], default["added"]) == ("ollama", "qwen3.6-nothink", 5, 23)
    assert (work["llm_calls"], work["added"]) == (2, 8)  # ceil(23 / 5) and ceil(8 / 5) calls
    assert default["extractor_reason"] == f"Ollama 0.12.6 at {server.url} has qwen3.6-nothink"
    assert "extraction_latency" not in default["failing_checks"] and "extraction_json_valid" not in default["failing_checks"]
    assert [len(json.loads(r["messages"][1]["content"])["entries"]) for r in server.chat_requests] == [5, 5, 5, 5, 3, 5, 3]
    calls = _history(demo_home)
    assert len(calls) == 7 and {c[5] for c in calls} == {"ok"} and sum(c[4] for c in calls) == 31
    assert consistency_problems(demo_home / "memory_store.db") == []
    assert query(demo_home / "memory_store.db", "SELECT DISTINCT extractor, model FROM memory_pipeline_ledger") == [
        ("ollama", "qwen3.6-nothink")
    ]
    # A second run on unchanged files asks the model nothing.
    again = synced_profile(demo_home)
    assert (again["llm_calls"], again["added"], again["unchanged"]) == (0, 0, 23)
    assert len(server.chat_requests) == 7


def test_metadata_and_checks_of_a_run(demo_home, server):
    server.default = slow(0.25)
    with dg.instance_for_test() as instance:
        (run,) = run_sync(
            instance,
            demo_home,
            ["work"],
            resource_config={"extractor": {"extractor": "OLLAMA", "batch_size": 4, "latency_p95_bound_s": 0.05}},
        )
        assert run.success, run.error
        metadata = run_metadata(instance, run.run_id)["extracted_facts"]
        assert metadata["extractor"] == "ollama" and metadata["model"] == "qwen3.6-nothink"
        numbers = {k: v for k, v in metadata.items() if k not in ("extractor", "extractor_reason", "model", "path")}
        assert [k for k, v in numbers.items() if not isinstance(v, float)] == []  # the UI plots floats
        assert (numbers["llm_calls"], numbers["facts"], numbers["json_failures"], numbers["quarantined"]) == (2.0, 8.0, 0.0, 0.0)
        assert (numbers["prompt_tokens"], numbers["eval_tokens"]) == (240.0, 80.0)
        assert numbers["call_latency_p50_s"] >= 0.25 and numbers["fact_latency_p95_s"] >= 0.25 / 4
        checks = {c.name: (c.passed, c.severity) for c in run.checks}
        # 0.25 s per call over 4 facts is above a 0.05 s bound: a warning, not an error.
        assert checks["extraction_latency"] == (False, "WARN") and checks["extraction_json_valid"] == (True, "WARN")
        assert run.failing_errors == []


def test_a_failed_batch_is_quarantined_whole_and_retried_alone(capsys, demo_home, server):
    server.queue(lambda r: server.default(r), MALFORMED, MALFORMED)  # batch 1 good, batch 2 garbage twice
    outcome = sync_outcome(demo_home, "default", extractor="ollama")
    result = outcome.profiles["default"].summary.as_json()
    assert (result["added"], result["quarantined"], result["facts_total"]) == (13, 10, 13)
    assert "quarantine_empty" in result["failing_checks"] and "extraction_json_valid" in result["failing_checks"]
    assert "hashes_fresh" not in result["failing_checks"] and not outcome.run_problems  # pending, but accounted for
    db = demo_home / "memory_store.db"
    quarantined = {r[0] for r in query(db, "SELECT entry_id FROM memory_pipeline_quarantine")}
    ledgered = {r[0] for r in query(db, "SELECT entry_id FROM memory_pipeline_ledger")}
    assert len(quarantined) == 10 and not quarantined & ledgered and len(ledgered) == 13
    assert consistency_problems(db) == []
    again = synced_profile(demo_home, extractor="ollama")
    assert (again["added"], again["quarantined"], again["llm_calls"], again["failing_checks"]) == (10, 0, 10, ["cap_usage"])
    assert query(db, "SELECT count(*) FROM memory_pipeline_quarantine") == [(0,)]


def test_an_edit_is_one_update_and_the_fact_count_stays(capsys, synced_home, server):
    path = synced_home / "memories" / "MEMORY.md"
    entries = read_entries(path)
    entries[0] += " 例外：hotfix 分支可以直接 cherry-pick。"
    write_entries(path, entries)
    result = synced_profile(synced_home, extractor="ollama")
    assert (result["added"], result["updated"], result["facts_total"], result["llm_calls"]) == (0, 1, 23, 1)
    assert main(["sync", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    assert capsys.readouterr().out.startswith("default: 0 added, 0 updated, 23 unchanged")


def test_human_summary_says_which_extractor_and_why(capsys, demo_home, server, monkeypatch):
    monkeypatch.setenv("MEMORY_PIPELINE_OLLAMA_MODEL", "llama3.2")
    assert main(["sync", "--hermes-home", str(demo_home), "--profile", "work"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("work: 8 added") and "(rules, 1 private)" in out[0]
    assert (
        out[1] == f"  extractor: rules, 0 LLM calls; auto fell back to rules: Ollama 0.12.6 at {server.url} has no model "
        "llama3.2 (`ollama pull llama3.2`)"
    )
    assert server.chat_requests == []


def test_ollama_asked_for_but_unreachable_fails_with_one_line(capsys, demo_home, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    assert main(["sync", "--hermes-home", str(demo_home), "--profile", "work", "--extractor", "ollama"]) == 1
    err = capsys.readouterr().err.strip()
    assert said(err)[0].startswith("memory-pipeline: sync of profile work failed: Ollama at http://127.0.0.1:9 is not reachable")
    assert len(said(err)) == 1
    assert not (demo_home / "profiles" / "work" / "memory_store.db").exists()  # nothing written, not even a store
