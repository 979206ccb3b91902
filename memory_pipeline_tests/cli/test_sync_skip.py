"""`sync` skips a profile nothing could have changed in since its last clean sync, and says so;
any edit, any Hermes-side write and any keyword-list edit makes it run again. Text output names
the entries that changed."""

import json
import shutil

import dagster as dg

from memory_pipeline.cli import main
from memory_pipeline.launch.instance import local_instance
from memory_pipeline_tests.support.store_helpers import read_entries, sync_runs, write_entries


def _sync(capsys, home, *args):
    code = main(["sync", "--hermes-home", str(home), "--json", *args])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0, payload
    return {p["profile"]: p for p in payload["profiles"]}


def test_an_unchanged_profile_is_skipped_without_a_run(capsys, synced_home, tmp_path):
    assert {p["skipped"] for p in _sync(capsys, synced_home).values()} == {True}  # as its last sync left it
    # A copied home is another home (the store's path and inode differ): its first sync runs.
    shutil.copytree(synced_home, tmp_path / "copied")
    synced_home = tmp_path / "copied"
    assert {p["skipped"] for p in _sync(capsys, synced_home).values()} == {False}
    runs = sync_runs(synced_home)
    profiles = _sync(capsys, synced_home)
    assert {p["skipped"] for p in profiles.values()} == {True} and sync_runs(synced_home) == runs
    assert profiles["default"]["unchanged"] == 23 and profiles["default"]["facts_total"] == 23
    assert main(["sync", "--hermes-home", str(synced_home)]) == 0
    # The checks the last run left failing stand, said where a run would say them.
    assert capsys.readouterr().out.splitlines() == [
        "default: unchanged (skipped; --force runs it anyway)",
        "  cap_usage: MEMORY.md 2078/2200 chars (94%), 122 left, `compact` would free 319 (→ 80%); "
        "USER.md 325/1375 chars (24%), 1050 left; target ≤ 85%; "
        "fix: memory-pipeline compact --profile default",
        "work: unchanged (skipped; --force runs it anyway)",
    ]
    forced = _sync(capsys, synced_home, "--force", "--profile", "work")
    assert forced["work"]["skipped"] is False and sync_runs(synced_home) == runs + 1
    instance = local_instance(synced_home)
    try:  # the UI's runs list says who launched it
        (latest,) = instance.get_runs(filters=dg.RunsFilter(job_name="memory_sync_job"), limit=1)
        assert latest.tags["memory_pipeline/launched_by"] == "cli" and latest.tags["dagster/partition"] == "work"
    finally:
        instance.dispose()


def test_text_output_names_each_change_and_private_entries_by_id_only(capsys, synced_home):
    memory, user = synced_home / "memories" / "MEMORY.md", synced_home / "memories" / "USER.md"
    entries, people = read_entries(memory), read_entries(user)
    removed, moved = entries.pop(2), entries.pop(4)
    entries[0] += " 另外：周五不发版。"
    write_entries(memory, entries + ["**On-call rota**: weekly, handover on Monday"])
    write_entries(user, people + [moved, "Reach me at li.na@example.com"])
    assert main(["sync", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    out = capsys.readouterr().out
    assert '  + MEMORY.md "On-call rota" added' in out
    assert f'  ~ MEMORY.md "{entries[0].split("**")[1]}" changed' in out
    assert f'  - MEMORY.md "{removed.split("**")[1]}" removed' in out
    assert f'  → "{moved.split("**")[1]}" moved MEMORY.md → USER.md' in out
    assert "li.na@example.com" not in out and "USER.md an entry (private) added" in out
    assert "user:" not in out  # not even the private entry's id, a hash of its text


def test_a_large_first_sync_names_a_few_entries_and_counts_the_rest(capsys, demo_home):
    from memory_pipeline_tests.support.synthetic import synthetic_entries

    (demo_home / "config.yaml").write_text("memory:\n  memory_char_limit: 1000000\n", encoding="utf-8")
    write_entries(demo_home / "memories" / "MEMORY.md", synthetic_entries(60))
    assert main(["sync", "--hermes-home", str(demo_home), "--profile", "default"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("  + ") for line in lines) == 25
    assert f"  … and {60 + 5 - 25} more (`memory-pipeline entries --profile default` lists every entry)" in lines
