"""A problem only the user can fix (a file over its cap) stands: an unchanged profile is skipped
all the same and the skip repeats the problem where a run would say it; `--quiet` (cron) says it
once, when it appears or changes; so does a corrupt ledger, which stops every run before it writes.
What a retry can fix (entries in quarantine) still runs."""

import sqlite3

from memory_pipeline.cli import main
from memory_pipeline_tests.support.store_helpers import profile_result, read_entries, said, sync_json, sync_runs, write_entries


def _over_cap(home, n: int = 1) -> None:
    memory = home / "memories" / "MEMORY.md"
    write_entries(memory, read_entries(memory) + [f"**Overflow {n}**: " + "x " * 150])


def _sync(capsys, home, *args) -> tuple[int, list[str], list[str]]:
    code = main(["sync", "--hermes-home", str(home), "--profile", "default", *args])
    out = capsys.readouterr()
    return code, out.out.splitlines(), said(out.err)


def test_an_over_cap_profile_is_skipped_and_its_error_repeated(capsys, synced_home):
    _over_cap(synced_home)
    code, _, first = _sync(capsys, synced_home)
    runs = sync_runs(synced_home)
    assert code == 1 and len(first) == 1 and first[0].startswith("memory-pipeline: profile default: cap_usage failed: MEMORY.md")
    assert first[0].endswith("fix: memory-pipeline compact --profile default")
    code, out, again = _sync(capsys, synced_home)
    assert (code, out, again) == (1, ["default: unchanged (skipped; --force runs it anyway)"], first)
    assert sync_runs(synced_home) == runs  # no Dagster run for a problem no run can fix
    payload = sync_json(capsys, synced_home, "--profile", "default")
    assert payload["ok"] is False and profile_result(payload)["skipped"] is True
    assert "cap_usage" in profile_result(payload)["failing_checks"]


def test_quiet_says_a_standing_problem_once_and_again_when_it_changes(capsys, synced_home):
    _over_cap(synced_home)
    code, out, err = _sync(capsys, synced_home, "--quiet")
    assert code == 1 and out == [] and [line.split(": ")[2] for line in err] == ["cap_usage failed"]
    assert _sync(capsys, synced_home, "--quiet") == (0, [], [])  # skipped, already said: silent
    assert _sync(capsys, synced_home, "--quiet", "--force") == (0, [], [])  # a run that finds the same: silent too
    _over_cap(synced_home, 2)  # further over: a changed problem
    code, out, err = _sync(capsys, synced_home, "--quiet")
    assert code == 1 and len(err) == 1 and "cap_usage failed" in err[0]
    assert _sync(capsys, synced_home, "--quiet") == (0, [], [])
    code, _, err = _sync(capsys, synced_home)  # on a terminal it is always said
    assert code == 1 and len(err) == 1


def test_a_standing_warning_is_said_once_by_quiet_then_cleared(capsys, synced_home):
    # The demo's MEMORY.md is above the 85% target; the home's first (quiet) sync said so.
    assert _sync(capsys, synced_home, "--quiet") == (0, [], [])
    memory = synced_home / "memories" / "MEMORY.md"
    write_entries(memory, read_entries(memory) + ["Short note"])  # still above: the detail changed
    warned = ["memory-pipeline: checks not passing: default: cap_usage (see `memory-pipeline audit`)"]
    assert _sync(capsys, synced_home, "--quiet") == (0, warned, [])
    assert _sync(capsys, synced_home, "--quiet") == (0, [], [])
    write_entries(memory, read_entries(memory)[:5])
    assert _sync(capsys, synced_home, "--quiet") == (0, [], [])  # passes now: nothing to say
    write_entries(memory, read_entries(memory) + ["**Again**: " + "y " * 1000])
    code, out, err = _sync(capsys, synced_home, "--quiet")
    assert code == 1 and "cap_usage failed" in err[0]


def test_quiet_says_a_problem_again_when_it_comes_back_after_clearing(capsys, synced_home):
    memory = synced_home / "memories" / "MEMORY.md"
    before = read_entries(memory)
    _over_cap(synced_home)
    assert _sync(capsys, synced_home, "--quiet")[0] == 1  # said
    write_entries(memory, before[:5])
    assert _sync(capsys, synced_home, "--quiet") == (0, [], [])  # cleared: nothing to say
    write_entries(memory, before)
    _over_cap(synced_home)  # the very same problem again
    code, _, err = _sync(capsys, synced_home, "--quiet")
    assert code == 1 and len(err) == 1 and "cap_usage failed" in err[0]


def test_a_corrupt_ledger_stands_until_a_person_fixes_it(capsys, synced_home):
    db = synced_home / "memory_store.db"
    conn = sqlite3.connect(db)
    with conn:  # a shell-era column leak: text where a fact id belongs
        conn.execute(
            """INSERT INTO memory_pipeline_ledger (entry_id, source, entry_sha256, fact_id, status)
               SELECT entry_id, source, entry_sha256, '18 条 facts 漏进来', 'active' FROM memory_pipeline_ledger LIMIT 1"""
        )
    conn.close()
    code, _, first = _sync(capsys, synced_home)
    assert code == 1 and len(first) == 1 and first[0].startswith("memory-pipeline: profile default: ledger_integrity failed: ")
    runs = sync_runs(synced_home)
    code, out, again = _sync(capsys, synced_home)
    assert (code, out, again) == (1, ["default: unchanged (skipped; --force runs it anyway)"], first)
    assert sync_runs(synced_home) == runs  # the same inputs would stop the run again
    conn = sqlite3.connect(db)
    with conn:  # the person's fix
        conn.execute("DELETE FROM memory_pipeline_ledger WHERE typeof(fact_id) = 'text'")
    conn.close()
    code, out, err = _sync(capsys, synced_home)
    assert code == 0 and err == [] and out[0].startswith("default: 0 added") and sync_runs(synced_home) == runs + 1
