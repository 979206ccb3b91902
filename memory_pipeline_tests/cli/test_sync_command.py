import json

import pytest

from memory_pipeline.cli import main
from memory_pipeline_tests.support.store_helpers import query

PROFILE_KEYS = {
    "profile",
    "skipped",
    "extractor",
    "extractor_reason",
    "model",
    "added",
    "updated",
    "unchanged",
    "removed",
    "quarantined",
    "llm_calls",
    "facts_total",
    "store",
    "private_facts",
    "mirrors",
    "embedder",
    "embedded",
    "vectors_added",
    "failing_checks",
    "error",
}


def test_json_contract_for_every_demo_profile(capsys, demo_home):
    code = main(["sync", "--hermes-home", str(demo_home), "--all-profiles", "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    payload = json.loads(out.out)
    assert set(payload) == {"ok", "duration_s", "profiles"}
    assert payload["ok"] is True and isinstance(payload["duration_s"], float)
    assert [p["profile"] for p in payload["profiles"]] == ["default", "work"]
    for profile, entries, store in [
        ("default", 23, demo_home / "memory_store.db"),
        ("work", 8, demo_home / "profiles" / "work" / "memory_store.db"),
    ]:
        result = next(p for p in payload["profiles"] if p["profile"] == profile)
        assert set(result) == PROFILE_KEYS
        assert result == {
            **result,
            "extractor": "rules",
            "added": entries,
            "updated": 0,
            "unchanged": 0,
            "removed": 0,
            "quarantined": 0,
            "llm_calls": 0,
            "facts_total": entries,
            "store": str(store),
            "private_facts": 1,
            "failing_checks": ["cap_usage"] if profile == "default" else [],
            "error": None,
        }
    # The runs are recorded in the persistent local instance the UI shares.
    assert (demo_home / "memory-pipeline" / "dagster_home" / "dagster.yaml").exists()


def test_human_summary_and_quiet(capsys, demo_home):
    assert main(["sync", "--hermes-home", str(demo_home), "--profile", "work"]) == 0
    assert capsys.readouterr().out.startswith("work: 8 added, 0 updated, 0 unchanged, 0 removed, 0 pending; 8 facts (rules, 1 private)")
    assert main(["sync", "--hermes-home", str(demo_home), "--profile", "work", "--quiet"]) == 0
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_unreadable_file_fails_the_sync_with_one_line(capsys, demo_home):
    (demo_home / "profiles" / "work" / "memories" / "MEMORY.md").write_bytes(b"\xfe")
    assert main(["sync", "--hermes-home", str(demo_home), "--profile", "work", "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "profile work" in err[0] and "unreadable" in err[0]


def test_retag_only_runs_privacy_and_index(capsys, synced_home, tmp_path):
    keywords = tmp_path / "kw.txt"
    keywords.write_text("restic\n", encoding="utf-8")
    assert main(["sync", "--hermes-home", str(synced_home), "--retag", "--keywords", str(keywords)]) == 0
    out = capsys.readouterr().out
    restic = [
        i for (i,) in query(synced_home / "memory_store.db", "SELECT fact_id FROM facts WHERE content LIKE '%restic%' ORDER BY fact_id")
    ]
    # What changed, by fact id: the restic fact became private (the people stay private by the detectors).
    assert restic and out.splitlines() == [
        f"default: re-tagged: {len(restic)} newly private ({', '.join(f'#{i}' for i in restic)}), 0 no longer private; 2 private facts",
        "work: re-tagged: 0 newly private, 0 no longer private; 1 private facts",
    ]
    report = (synced_home / "memory-pipeline" / "reports" / "default" / "audit.md").read_text(encoding="utf-8")
    assert "restic" not in report and "privacy_coverage" in report
    assert "restic" not in out
    keywords.write_text("nothing-here-matches\n", encoding="utf-8")
    assert main(["sync", "--hermes-home", str(synced_home), "--retag", "--profile", "default", "--keywords", str(keywords)]) == 0
    named = ", ".join(f"#{i}" for i in restic)
    assert capsys.readouterr().out.splitlines() == [
        f"default: re-tagged: 0 newly private, {len(restic)} no longer private ({named}); 1 private facts"
    ]


def test_a_cli_runs_event_log_keeps_the_pipelines_lines_and_no_io_manager_debug(synced_home):
    import dagster as dg

    from memory_pipeline.launch.instance import local_instance

    instance = local_instance(synced_home)
    try:
        run = instance.get_runs(filters=dg.RunsFilter(job_name="memory_sync_job"), limit=1)[0]
        logs = instance.all_logs(run.run_id)
    finally:
        instance.dispose()
    plain = [record for record in logs if record.dagster_event is None]
    assert any("extractor" in record.user_message for record in plain)  # the pipeline's own INFO line
    assert [record.user_message for record in plain if record.level < 20] == []
    assert any(record.dagster_event and record.dagster_event.event_type_value == "STEP_START" for record in logs)


def test_a_remote_ollama_host_is_refused_unless_the_command_allows_it(capsys, demo_home):
    """`--allow-remote-ollama` is the permission of the command that gives it, the same as a server
    started with MEMORY_PIPELINE_ALLOW_REMOTE_OLLAMA=1: without it, no entry reaches the host."""
    from memory_pipeline_tests.support.fake_ollama import FakeOllama
    from memory_pipeline_tests.support.servers import outside_address

    outside = outside_address()
    if outside is None:
        pytest.skip("this machine has no address off loopback to stand for a remote host")
    with FakeOllama(bind="0.0.0.0", host=outside) as remote:
        remote.models = ("qwen3.6-nothink:latest",)
        args = ["sync", "--hermes-home", str(demo_home), "--profile", "work", "--extractor", "ollama", "--ollama-host", remote.url]
        assert main(args) == 1
        assert "--allow-remote-ollama" in capsys.readouterr().err and remote.requests == []
        assert main([*args, "--allow-remote-ollama"]) == 0, capsys.readouterr().err
        assert remote.chat_requests
        # The permission was that command's alone: the next sync in the same process is refused again.
        asked = len(remote.chat_requests)
        memory = demo_home / "profiles" / "work" / "memories" / "MEMORY.md"
        memory.write_text(memory.read_text(encoding="utf-8") + "\n§\nThe staging box reboots on Sundays.", encoding="utf-8")
        assert main(args) == 1 and "--allow-remote-ollama" in capsys.readouterr().err
        assert len(remote.chat_requests) == asked
