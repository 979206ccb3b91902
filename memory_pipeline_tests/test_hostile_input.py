"""Hostile input: files that would block or exhaust a reader, keyword patterns that would hang a
regex engine, a store path aimed at a memory file. Each gets one line naming the file and leaves
every store as it was."""

import json
import os
import shutil
from pathlib import Path

import pytest

from memory_pipeline.cli import main
from memory_pipeline.lib.files.reading import MAX_FILE_BYTES
from memory_pipeline.lib.hermes.profiles import Profile, memory_files_digest
from memory_pipeline_tests.support.store_helpers import profile_result, query, said, sync_json, table_checksums, write_entries

HOSTILE = {"a FIFO": lambda path: os.mkfifo(path), "a link to /dev/zero": lambda path: path.symlink_to("/dev/zero")}


def _replace(path: Path, make) -> None:
    path.unlink(missing_ok=True)
    make(path)


@pytest.mark.parametrize("kind", HOSTILE)
def test_the_sensors_digest_never_waits_or_reads_a_device(demo_home, kind):
    profile = Profile("default", demo_home)
    before = memory_files_digest(profile)
    _replace(demo_home / "memories" / "MEMORY.md", HOSTILE[kind])
    assert memory_files_digest(profile) != before  # seen as a change, without reading it


@pytest.mark.parametrize("kind", HOSTILE)
def test_compact_refuses_a_memory_file_that_is_not_regular(capsys, synced_home, kind):
    memory = synced_home / "memories" / "MEMORY.md"
    _replace(memory, HOSTILE[kind])
    assert main(["compact", "--hermes-home", str(synced_home), "--profile", "default"]) == 2
    err = capsys.readouterr().err
    assert said(err) == [f"memory-pipeline: {memory}: is {'a FIFO' if kind == 'a FIFO' else 'a special file'}, not a regular file"]


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_keyword_list_that_is_not_regular_stops_the_sync_before_any_write(capsys, synced_home, tmp_path, kind):
    keywords = tmp_path / "keywords.txt"
    HOSTILE[kind](keywords)
    write_entries(synced_home / "memories" / "USER.md", ["联系 zhang.wei@example.com", "a new entry"])
    before = table_checksums(synced_home / "memory_store.db")
    payload = sync_json(capsys, synced_home, "--profile", "default", "--keywords", str(keywords))
    error = profile_result(payload)["error"]
    assert payload["ok"] is False and str(keywords) in error and "not a regular file" in error and "\n" not in error
    assert table_checksums(synced_home / "memory_store.db") == before


def test_an_oversized_memory_file_is_unreadable_not_read(capsys, demo_home):
    memory = demo_home / "memories" / "MEMORY.md"
    with open(memory, "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: costs no disk
    assert main(["entries", "--hermes-home", str(demo_home), "--profile", "default", "--json"]) == 1
    out = capsys.readouterr()
    reading = next(r for r in json.loads(out.out)["profiles"][0]["sources"] if r["source"] == "memory")
    assert [f["code"] for f in reading["findings"]] == ["unreadable"] and "larger than 32 MB" in reading["findings"][0]["detail"]
    assert said(out.err) == [f"memory-pipeline: {memory}: larger than 32 MB, not read (is this the right file?)"]


def test_a_catastrophic_keyword_pattern_neither_hangs_nor_lets_a_private_entry_through(capsys, synced_home, tmp_path):
    keywords = tmp_path / "keywords.txt"
    keywords.write_text("re:(a+)+$\n", encoding="utf-8")
    write_entries(synced_home / "memories" / "USER.md", ["a" * 40 + "b", "联系 li.na@example.com"])
    payload = sync_json(capsys, synced_home, "--profile", "default", "--keywords", str(keywords))
    assert payload["ok"] is True and profile_result(payload)["added"] == 2
    tags = dict(query(synced_home / "memory_store.db", "SELECT content, tags FROM facts WHERE content LIKE '%li.na@%'"))
    assert "private-person" in tags["联系 li.na@example.com"]
    assert main(["search", "li.na", "--hermes-home", str(synced_home), "--profile", "default", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"] == []


def test_a_keyword_pattern_re2_cannot_run_stops_the_sync_before_any_write(capsys, synced_home, tmp_path):
    keywords = tmp_path / "keywords.txt"
    keywords.write_text("# names\nre:(zzqq)\nre:(PrivWord)\\1\n", encoding="utf-8")
    write_entries(synced_home / "memories" / "USER.md", ["PrivWordPrivWord is a private name"])
    before = table_checksums(synced_home / "memory_store.db")
    payload = sync_json(capsys, synced_home, "--profile", "default", "--keywords", str(keywords))
    error = profile_result(payload)["error"]
    assert payload["ok"] is False and f"{keywords}: line 3: back-references are not supported" in error
    assert "PrivWord" not in error and "ledger_integrity" not in error
    assert table_checksums(synced_home / "memory_store.db") == before


@pytest.mark.parametrize("target", ["memories/USER.md", "notes.txt"])
def test_a_store_path_aimed_at_another_file_is_refused(capsys, demo_home, target):
    aimed = demo_home / target
    if target == "notes.txt":
        aimed.write_text("my own notes, not a database\n", encoding="utf-8")
    else:
        aimed.write_bytes(b"")  # an empty USER.md: SQLite would make it a database
    before = aimed.read_bytes()
    (demo_home / "config.yaml").write_text(f"plugins:\n  hermes-memory-store:\n    db_path: {aimed}\n", encoding="utf-8")
    payload = sync_json(capsys, demo_home, "--profile", "default")
    error = profile_result(payload)["error"]
    assert payload["ok"] is False and str(aimed) in error and "nothing written" in error and "db_path" in error
    assert aimed.read_bytes() == before


@pytest.mark.parametrize("policy", ["keep", "retire", "delete"])
def test_a_vanished_memory_file_is_held_under_every_policy(capsys, synced_home, policy):
    db = synced_home / "memory_store.db"
    memory = synced_home / "memories" / "MEMORY.md"
    synced = len(memory.read_text(encoding="utf-8").split("\n§\n"))
    before = table_checksums(db)
    memory.unlink()
    code = main(["sync", "--hermes-home", str(synced_home), "--profile", "default", "--removal-policy", policy, "--json"])
    out = capsys.readouterr()
    assert code == 1 and profile_result(json.loads(out.out))["removed"] == 0
    assert f"{synced} synced entries held because {memory} is missing; create it (even empty) to let them go" in out.err
    assert table_checksums(db) == before
    memory.write_text("", encoding="utf-8")  # the user's way of saying "yes, they are gone"
    assert profile_result(sync_json(capsys, synced_home, "--profile", "default", "--removal-policy", policy))["removed"] == synced


def test_a_directory_that_is_not_a_hermes_home_gets_nothing_written(capsys, tmp_path):
    empty = tmp_path / "not-a-home"
    empty.mkdir()
    assert main(["sync", "--hermes-home", str(empty)]) == 2
    assert "does not look like a Hermes home" in capsys.readouterr().err and list(empty.iterdir()) == []
    assert main(["sync", "--hermes-home", str(empty), "--init", "--quiet"]) == 0
    assert (empty / "memory_store.db").is_file()


def test_profiles_hermes_rejects_or_that_lead_elsewhere_are_reported_not_followed(capsys, demo_home, tmp_path):
    outside = tmp_path / "elsewhere"
    write_entries(outside / "memories" / "MEMORY.md", ["an entry outside the Hermes home"])
    (demo_home / "profiles" / "linked").symlink_to(outside)
    write_entries(demo_home / "profiles" / "Bad Name" / "memories" / "MEMORY.md", ["x"])
    assert main(["status", "--hermes-home", str(demo_home), "--json"]) == 0
    out = capsys.readouterr()
    assert [p["profile"] for p in json.loads(out.out)["profiles"]] == ["default", "work"]
    assert "profiles/Bad Name: not a profile name Hermes accepts" in out.err
    assert "profiles/linked: a symbolic link, not followed" in out.err


def test_a_data_directory_that_cannot_be_made_is_one_line(capsys, demo_home):
    shutil.rmtree(demo_home / "memory-pipeline")  # the demo's keyword list lives there
    (demo_home / "memory-pipeline").write_text("a file where the pipeline's directory goes", encoding="utf-8")
    assert main(["sync", "--hermes-home", str(demo_home), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(said(err)) == 1 and said(err)[0].startswith(f"memory-pipeline: {demo_home / 'memory-pipeline'}")


def test_weak_messages_now_say_what_and_where(capsys, synced_home):
    # A corrupt store is not "no store yet".
    (synced_home / "profiles" / "work" / "memory_store.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 4096)
    assert main(["status", "--hermes-home", str(synced_home), "--profile", "work"]) == 0
    out = capsys.readouterr().out
    assert "store unusable" in out and "no store yet" not in out
    # A lock timeout that would never end is refused.
    assert main(["compact", "--hermes-home", str(synced_home), "--lock-timeout", "nan"]) == 2
    assert "--lock-timeout must be a finite number" in capsys.readouterr().err
    # An unreadable memory file is named by the sync that skips it.
    user = synced_home / "memories" / "USER.md"
    user.write_bytes(b"\xff\xfe not utf-8")
    assert main(["sync", "--hermes-home", str(synced_home), "--profile", "default", "--quiet"]) == 1
    assert f"{user}: invalid UTF-8 at byte 0" in capsys.readouterr().err


def test_a_no_change_sync_never_waits_for_another_writer(capsys, synced_home):
    """Hermes holding the store's write lock (a long transaction) does not hold up a sync that has
    nothing to write: FTS5's integrity-check, the one write-locking read, is skipped and said."""
    import sqlite3

    hermes = sqlite3.connect(synced_home / "memory_store.db", isolation_level=None)
    hermes.execute("BEGIN IMMEDIATE")
    try:
        payload = sync_json(capsys, synced_home, "--profile", "default", "--force")
        assert payload["ok"] is True and payload["duration_s"] < 25  # the busy timeout is 30 s
    finally:
        hermes.execute("ROLLBACK")
        hermes.close()
    report = json.loads((synced_home / "memory-pipeline" / "reports" / "default" / "audit.json").read_text(encoding="utf-8"))
    index = next(c for c in report["checks"] if c["name"] == "index_consistency")
    assert index["passed"] and "integrity-check skipped (store busy)" in index["detail"]
