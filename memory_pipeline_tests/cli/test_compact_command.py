"""`compact`: the proposal reaches the target, `--apply` writes what Hermes' own reader reads back
exactly, the sync after it adds nothing, and a concurrent writer or a held lock stops it cleanly."""

import fcntl
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memory_pipeline.cli import main
from memory_pipeline.lib.hermes.compaction import propose
from memory_pipeline.lib.hermes.memory_files import ENTRY_DELIMITER, canonical_chars, fact_pointers
from memory_pipeline.lib.hermes.profiles import get_profile, read_profile
from memory_pipeline.lib.hermes.summaries import title_and_body, values
from memory_pipeline.lib.store.reads.ledger import active_ledger, synced_facts
from memory_pipeline.lib.store.schema.database import opened
from memory_pipeline_tests.support.hermes_oracle import hermes_home_env, hermes_loaded_entries
from memory_pipeline_tests.support.store_helpers import read_entries


def _memory(home):
    return home / "memories" / "MEMORY.md"


@pytest.fixture
def synced_home(synced_home):
    """The synced demo home whose agent can follow `fact_store#N` (the MCP server configured),
    aiming at 95% of each cap, so compaction aims at 90%: the demo's entries are dense with values
    (times, paths, commands) a summary keeps."""
    command = Path(sys.executable).with_name("memory-pipeline")
    (synced_home / "config.yaml").write_text(
        "plugins:\n  memory-pipeline:\n    cap_target: 0.95\n"
        f"mcp_servers:\n  memory:\n    command: {command}\n    args: [mcp, --hermes-home, {synced_home}]\n",
        encoding="utf-8",
    )
    return synced_home


def _proposal(home, target: float = 0.9):
    profile = get_profile(home, "default")
    reading = read_profile(profile)[0]
    with opened(home / "memory_store.db", create=False) as conn:
        return propose(reading, _memory(home).read_bytes(), synced_facts(active_ledger(conn)), target=target)


def _facts(home):
    conn = sqlite3.connect(home / "memory_store.db")
    try:
        return dict(conn.execute("SELECT fact_id, content FROM facts"))
    finally:
        conn.close()


def test_proposal_reaches_target_and_writes_nothing(capsys, synced_home):
    before = _memory(synced_home).read_bytes()
    assert main(["compact", "--hermes-home", str(synced_home)]) == 0
    out = capsys.readouterr().out
    assert "target 90% reached" in out and "+**" in out and "nothing written" in out
    assert _memory(synced_home).read_bytes() == before
    proposal = _proposal(synced_home)
    assert proposal.chars_before > 0.9 * 2200 >= proposal.chars_after
    # Each entry keeps its label whole; every value its summary leaves out is named, and said.
    for rewrite in proposal.rewrites:
        assert all(value in rewrite.after or value in rewrite.kept_in_store for value in values(rewrite.before)), rewrite.after
        assert rewrite.after.startswith(f"**{title_and_body(rewrite.before)[0]} (→ fact_store#")
        if rewrite.kept_in_store:
            assert f"entry {rewrite.position + 1}: kept in fact_store#" in out


def test_apply_is_read_back_by_hermes_and_sync_adds_nothing(capsys, synced_home):
    original = _memory(synced_home).read_bytes()
    proposal = _proposal(synced_home)
    facts_before = _facts(synced_home)

    assert main(["compact", "--hermes-home", str(synced_home), "--profile", "default", "--apply", "--yes"]) == 0
    out = capsys.readouterr().out
    assert f"synced profile default: {len(proposal.rewrites)} entries re-pointed at their facts\n" in out

    written = _memory(synced_home).read_bytes()
    assert written == ENTRY_DELIMITER.join(proposal.after).encode() and not written.endswith(b"\n")
    assert hermes_loaded_entries(synced_home)["memory"] == proposal.after
    from tools.memory_tool import MemoryStore

    with hermes_home_env(synced_home):
        assert MemoryStore()._detect_external_drift("memory") is None  # Hermes' own drift rule
    backups = list((synced_home / "memories").glob("MEMORY.md.bak-*"))
    assert len(backups) == 1 and backups[0].read_bytes() == original

    # The full texts stay in the store, each pointer names the fact holding its entry.
    assert _facts(synced_home) == facts_before
    for rewrite in proposal.rewrites:
        assert fact_pointers(rewrite.after) == list(rewrite.fact_ids)
        assert facts_before[rewrite.fact_ids[0]] == rewrite.before
    assert main(["audit", "--hermes-home", str(synced_home), "--profile", "default", "--verbose"]) == 0
    audit = capsys.readouterr().out
    assert "pass pointers_resolve" in audit and "pass cap_usage" in audit

    assert main(["compact", "--hermes-home", str(synced_home)]) == 0
    assert "within the 90% target" in capsys.readouterr().out.splitlines()[0]
    assert canonical_chars(hermes_loaded_entries(synced_home)["memory"]) <= 0.9 * 2200


def _hold_lock(home):
    handle = open(_memory(home).with_name("MEMORY.md.lock"), "a+")
    fcntl.flock(handle, fcntl.LOCK_EX)
    return handle


def test_held_lock_waits_then_gives_up(capsys, synced_home):
    before = _memory(synced_home).read_bytes()
    lock = _hold_lock(synced_home)
    try:
        code = main(["compact", "--hermes-home", str(synced_home), "--profile", "default", "--apply", "--yes", "--lock-timeout", "0.5"])
    finally:
        lock.close()
    err = capsys.readouterr().err
    assert code == 2
    assert "MEMORY.md.lock: still held after 0.5 s" in err and "nothing written" in err
    assert _memory(synced_home).read_bytes() == before
    assert not list((synced_home / "memories").glob("MEMORY.md.bak-*"))


def test_file_changed_between_proposal_and_apply_stops(synced_home):
    """The agent writes while compact waits for the lock: compact notices and writes nothing."""
    lock = _hold_lock(synced_home)
    process = subprocess.Popen(
        [
            sys.executable,
            "-u",
            "-m",
            "memory_pipeline.cli",
            "compact",
            "--hermes-home",
            str(synced_home),
            "--profile",
            "default",
            "--apply",
            "--yes",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    try:
        for line in process.stdout:  # the proposal is printed before the lock is taken
            if "target 90% reached" in line:
                break
        agent_wrote = _memory(synced_home).read_text(encoding="utf-8") + ENTRY_DELIMITER + "**New**: written meanwhile"
        _memory(synced_home).write_text(agent_wrote, encoding="utf-8")
    finally:
        lock.close()
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert "MEMORY.md: changed since the proposal was made (the agent wrote meanwhile); nothing written" in err
    assert _memory(synced_home).read_text(encoding="utf-8") == agent_wrote
    assert not list((synced_home / "memories").glob("MEMORY.md.bak-*"))


def test_apply_without_a_terminal_needs_yes_and_writes_nothing(capsys, synced_home):
    before = _memory(synced_home).read_bytes()
    code = main(["compact", "--hermes-home", str(synced_home), "--profile", "default", "--apply"])
    out, err = capsys.readouterr()
    assert code == 2 and "+**" in out  # the proposal is shown first
    assert "there is no terminal to ask on: add --yes" in err
    assert _memory(synced_home).read_bytes() == before and not list((synced_home / "memories").glob("MEMORY.md.bak-*"))


def _compact_on_a_terminal(home, answer: bytes) -> tuple[int, str]:
    """`compact --apply` with a pseudo-terminal as its standard input, answering its question."""
    primary, secondary = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "memory_pipeline.cli", "compact", "--hermes-home", str(home), "--profile", "default", "--apply"],
        stdin=secondary,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    os.close(secondary)
    try:
        os.write(primary, answer)
        out, _ = process.communicate(timeout=120)
    finally:
        os.close(primary)
    return process.returncode, out.decode()


def test_apply_asks_on_a_terminal_and_writes_only_on_yes(synced_home):
    before = _memory(synced_home).read_bytes()
    code, out = _compact_on_a_terminal(synced_home, b"n\n")
    assert code == 0 and "write this to MEMORY.md (a backup is kept)? [y/N]" in out and out.rstrip().endswith("nothing written")
    assert _memory(synced_home).read_bytes() == before
    code, out = _compact_on_a_terminal(synced_home, b"y\n")
    assert code == 0 and "entries re-pointed at their facts\n" in out
    assert _memory(synced_home).read_bytes() != before and len(list((synced_home / "memories").glob("MEMORY.md.bak-*"))) == 1


def test_a_linked_memory_file_stays_linked_and_its_target_gets_the_text(capsys, synced_home, tmp_path):
    """MEMORY.md kept in a dotfiles repository, linked into the home: `--apply` writes through the
    link, as Hermes' own writes do, with the target's mode kept."""
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "MEMORY.md"
    os.replace(_memory(synced_home), target)
    os.chmod(target, 0o640)
    _memory(synced_home).symlink_to(target)
    proposal = _proposal(synced_home)
    assert main(["compact", "--hermes-home", str(synced_home), "--profile", "default", "--apply", "--yes"]) == 0
    assert _memory(synced_home).is_symlink() and os.readlink(_memory(synced_home)) == str(target)
    assert target.read_bytes() == ENTRY_DELIMITER.join(proposal.after).encode()
    assert os.stat(target).st_mode & 0o777 == 0o640


def test_without_a_way_to_follow_pointers_compact_says_how_and_writes_nothing_without_yes(capsys, synced_home):
    (synced_home / "config.yaml").write_text("plugins:\n  memory-pipeline:\n    cap_target: 0.95\n", encoding="utf-8")
    before = _memory(synced_home).read_bytes()
    assert main(["compact", "--hermes-home", str(synced_home), "--profile", "default", "--apply"]) == 1  # asked, wrote nothing
    out, err = capsys.readouterr()
    assert "cannot follow fact_store#N pointers" in out and "memory-pipeline hermes-plugin install --profile default" in out
    assert "nothing written: the pointers would be ones the agent cannot follow (add --yes" in err
    assert err.splitlines()[-1] == "fix: memory-pipeline hermes-plugin install --profile default"
    assert _memory(synced_home).read_bytes() == before


def test_an_entry_not_yet_synced_is_synced_by_the_apply_and_said(capsys, synced_home):
    """The write is right and the sync after it also syncs an entry added since the last sync:
    exit 0, and the output says so (no backup to restore, nothing to undo)."""
    from memory_pipeline_tests.support.store_helpers import query, read_entries, write_entries

    user = synced_home / "memories" / "USER.md"
    write_entries(user, [*read_entries(user), "Prefers tea in the afternoon"])
    proposal = _proposal(synced_home)
    assert main(["compact", "--hermes-home", str(synced_home), "--profile", "default", "--apply", "--yes"]) == 0
    out = capsys.readouterr().out
    assert f"{len(proposal.rewrites)} entries re-pointed at their facts, and synced 1 facts of entries not synced before" in out
    assert _memory(synced_home).read_bytes() == ENTRY_DELIMITER.join(proposal.after).encode()
    assert query(synced_home / "memory_store.db", "SELECT count(*) FROM facts WHERE content = 'Prefers tea in the afternoon'") == [(1,)]


def test_a_private_entry_is_never_replaced_by_a_pointer_and_a_pointer_is_followed(capsys, synced_home):
    """USER.md over its target: its private entry (a contact's email and phone) stays whole, the
    others may point; the surfaces follow a pointer to the facts it names."""
    from memory_pipeline.lib.in_hermes.fact_search import search

    config = synced_home / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "memory:\n  user_char_limit: 350\n", encoding="utf-8")
    assert main(["compact", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    out = capsys.readouterr().out
    assert "default/USER.md" in out and "+**" in out
    private = next(e for e in read_entries(synced_home / "memories" / "USER.md") if "zhang.wei@example.com" in e)
    assert f"-{private}" not in out  # left whole
    with opened(synced_home / "memory_store.db", create=False) as conn:
        ((shown,),) = conn.execute("SELECT min(fact_id) FROM facts WHERE tags NOT LIKE '%private%'").fetchall()
        ((withheld,),) = conn.execute("SELECT min(fact_id) FROM facts WHERE tags LIKE '%private%'").fetchall()
        assert [f["fact_id"] for f in search(conn, f"fact_store#{shown}")] == [shown]
        assert search(conn, f"fact_store#{withheld}") == []  # withheld: alike a fact that does not exist


def test_a_diff_line_never_runs_into_the_next(capsys, synced_home):
    """A file without a final newline: its last line and the compacted one each stand alone."""
    assert not _memory(synced_home).read_bytes().endswith(b"\n")
    proposal = _proposal(synced_home, target=0.5)
    assert any(r.position == len(proposal.before) - 1 for r in proposal.rewrites)
    lines = proposal.diff().splitlines()
    for rewrite in proposal.rewrites:  # the file's last entry among them
        assert f"-{rewrite.before}" in lines and f"+{rewrite.after}" in lines
