import json

from memory_pipeline.cli import main


def test_sync_runs_every_demo_profile_through_dagster(capsys, demo_home):
    code = main(["sync", "--hermes-home", str(demo_home), "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    payload = json.loads(out.out)
    assert payload["ok"] is True and isinstance(payload["duration_s"], float)
    assert [(p["profile"], p["entries"]) for p in payload["profiles"]] == [("default", 23), ("work", 8)]
    # The run is recorded in the persistent local instance the UI shares.
    assert (demo_home / "memory-pipeline" / "dagster_home" / "dagster.yaml").exists()


def test_quiet_sync_prints_nothing_on_success(capsys, demo_home):
    assert main(["sync", "--hermes-home", str(demo_home), "--profile", "work", "--quiet"]) == 0
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_unreadable_file_fails_the_sync_with_one_line(capsys, demo_home):
    (demo_home / "profiles" / "work" / "memories" / "MEMORY.md").write_bytes(b"\xfe")
    assert main(["sync", "--hermes-home", str(demo_home), "--profile", "work", "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "profile work" in err[0] and "unreadable" in err[0]
