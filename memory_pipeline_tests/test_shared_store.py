"""Two profiles whose settings name one store (how a user shares facts between profiles): each
profile's entries stay its own, whichever syncs first, one after the other or at once, and a
ledger made before the ledger kept profiles is taken over without losing a row."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memory_pipeline.cli import main
from memory_pipeline.lib.store.schema.ledger_table import LEDGER_INDEX, LEDGER_TABLE
from memory_pipeline_tests.support.primed_sync import PRIMED_SYNC
from memory_pipeline_tests.support.store_helpers import consistency_problems, query, write_entries
from memory_pipeline_tests.support.syncing import sync_outcome, synced_profile

DEFAULT_ENTRIES = {
    "memory": ["NAS is reachable over Tailscale at nas.tail", "Deploys go through the staging branch first"],
    "user": ["Prefers answers in short bullet lists", "Shared: the team wiki lives at wiki.example.org"],
}
WORK_ENTRIES = {
    "memory": ["The build server runs Jenkins on port 8080", "Invoices are filed under finance/2026"],
    "user": ["Shared: the team wiki lives at wiki.example.org"],
}


def _shared_home(tmp_path: Path) -> tuple[Path, Path]:
    home, shared = tmp_path / "hermes", tmp_path / "shared" / "memory_store.db"
    for profile_home, entries in ((home, DEFAULT_ENTRIES), (home / "profiles" / "work", WORK_ENTRIES)):
        write_entries(profile_home / "memories" / "MEMORY.md", entries["memory"])
        write_entries(profile_home / "memories" / "USER.md", entries["user"])
        (profile_home / "config.yaml").write_text(f"plugins:\n  hermes-memory-store:\n    db_path: {shared}\n", encoding="utf-8")
    return home, shared


def _entries_backed(db: Path, profile: str, entries: dict[str, list[str]]) -> dict[str, str]:
    """Each entry of the profile, and the content of the fact its active ledger row names."""
    rows = query(
        db,
        f"""SELECT l.source, f.content FROM {LEDGER_TABLE} l JOIN facts f USING (fact_id)
            WHERE l.status = 'active' AND l.profile = ?""",
        (profile,),
    )
    found = {content: source for source, content in rows}
    return {text: found.get(text, "missing") for source, texts in entries.items() for text in texts}


def _assert_both_whole(db: Path) -> None:
    assert _entries_backed(db, "default", DEFAULT_ENTRIES) == {t: s for s, ts in DEFAULT_ENTRIES.items() for t in ts}
    assert _entries_backed(db, "work", WORK_ENTRIES) == {t: s for s, ts in WORK_ENTRIES.items() for t in ts}
    # Nothing retired or archived: every fact of both profiles reaches prefetch.
    assert query(db, "SELECT count(*) FROM facts WHERE tags LIKE '%retired%'") == [(0,)]
    assert query(db, "SELECT count(*) FROM memory_pipeline_archive") == [(0,)]
    assert consistency_problems(db) == []


@pytest.mark.parametrize("order", [("default", "work"), ("work", "default")])
def test_each_profile_keeps_its_entries_in_either_order(capsys, tmp_path, order):
    home, db = _shared_home(tmp_path)
    for name in order:
        result = synced_profile(home, name)
        assert result["removed"] == 0, result
    _assert_both_whole(db)
    # A second round finds nothing to do: no fact flips back and forth between the profiles.
    for name in order:
        result = synced_profile(home, name)
        assert (result["added"], result["updated"], result["removed"]) == (0, 0, 0), result
    _assert_both_whole(db)


def test_an_entry_both_profiles_hold_survives_one_profiles_edit_and_removal(capsys, tmp_path):
    home, db = _shared_home(tmp_path)
    sync_outcome(home)
    shared_text = "Shared: the team wiki lives at wiki.example.org"
    (shared_fact,) = query(db, "SELECT fact_id FROM facts WHERE content = ?", (shared_text,))
    # default edits its copy: work's fact keeps its text, default's edit is a fact of its own.
    edited = ["Prefers answers in short bullet lists", "Shared: the team wiki moved to wiki.example.net"]
    write_entries(home / "memories" / "USER.md", edited)
    synced_profile(home)
    assert query(db, "SELECT content, tags NOT LIKE '%retired%' FROM facts WHERE fact_id = ?", shared_fact) == [(shared_text, 1)]
    assert _entries_backed(db, "work", WORK_ENTRIES)[shared_text] == "user"
    # default removes it: still work's, still at full trust.
    write_entries(home / "memories" / "USER.md", ["Prefers answers in short bullet lists"])
    synced_profile(home)
    assert query(db, "SELECT content, trust_score >= 0.5 FROM facts WHERE fact_id = ?", shared_fact) == [(shared_text, 1)]
    result = synced_profile(home, "work")
    assert (result["added"], result["updated"], result["removed"]) == (0, 0, 0)
    assert consistency_problems(db) == []


def test_two_profiles_on_one_store_synced_at_once(tmp_path):
    home, db = _shared_home(tmp_path)
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", PRIMED_SYNC, "sync", "--hermes-home", str(home), "--profile", name, "--json"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("default", "work")
    ]
    for process in processes:
        assert process.stdout.readline().strip() == "ready"
    for process in processes:
        process.stdin.write("go\n")
        process.stdin.flush()
    for process in processes:
        out, err = process.communicate(timeout=240)
        assert process.returncode == 0, err[-2000:]
        assert json.loads(out)["ok"] is True
    _assert_both_whole(db)


def test_status_and_audit_name_the_profiles_sharing_the_store(capsys, tmp_path):
    home, db = _shared_home(tmp_path)
    sync_outcome(home)
    assert main(["status", "--hermes-home", str(home)]) == 0
    out = capsys.readouterr().out
    assert f"store {db} (shared with profile work:" in out and f"store {db} (shared with profile default:" in out
    assert main(["audit", "--hermes-home", str(home), "--profile", "work"]) == 0, capsys.readouterr()
    assert "shared with profile default" in capsys.readouterr().out


def test_a_ledger_from_before_profiles_is_kept_and_taken_over(capsys, synced_home):
    """A store synced before the ledger kept profiles: its rows are kept through the rebuild and
    become the profile's on its next sync, which has nothing else to do."""
    db = synced_home / "memory_store.db"
    before = query(db, f"SELECT entry_id, source, entry_sha256, fact_id, status FROM {LEDGER_TABLE} ORDER BY entry_id, fact_id")
    conn = sqlite3.connect(db)
    with conn:  # the ledger as an older version made it: no profile column, keyed by (entry, fact)
        conn.execute(f"DROP INDEX {LEDGER_INDEX}")
        conn.execute(f"ALTER TABLE {LEDGER_TABLE} RENAME TO old_ledger")
        conn.execute(
            f"""CREATE TABLE {LEDGER_TABLE} (entry_id TEXT NOT NULL, source TEXT NOT NULL, entry_sha256 TEXT NOT NULL,
                fact_id INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'active', extractor TEXT, model TEXT, prompt_version TEXT,
                synced_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (entry_id, fact_id))"""
        )
        conn.execute(
            f"""INSERT INTO {LEDGER_TABLE} SELECT entry_id, source, entry_sha256, fact_id, status, extractor, model,
                prompt_version, synced_at FROM old_ledger"""
        )
        conn.execute("DROP TABLE old_ledger")
        conn.execute(f"CREATE INDEX {LEDGER_INDEX} ON {LEDGER_TABLE}(fact_id)")
    conn.close()
    # Run, as the first sync after an upgrade runs (a new STATE_VERSION re-syncs every profile once).
    result = sync_outcome(synced_home, "default", force=True).profiles["default"].summary.as_json()
    assert (result["added"], result["updated"], result["removed"]) == (0, 0, 0), result
    after = query(db, f"SELECT entry_id, source, entry_sha256, fact_id, status FROM {LEDGER_TABLE} ORDER BY entry_id, fact_id")
    assert after == before
    assert query(db, f"SELECT DISTINCT profile FROM {LEDGER_TABLE}") == [("default",)]


def test_profiles_sharing_a_store_are_judged_with_the_union_of_their_lists(capsys, tmp_path):
    """Each profile names its own keyword list; whichever syncs last, a fact either list makes
    private is withheld from every surface of both profiles, and status says how they are judged."""
    from memory_pipeline.lib.in_hermes.fact_search import gate, settings_digest
    from memory_pipeline.mcp_server import MemoryServer

    home, db = _shared_home(tmp_path)
    (home / "memory-pipeline").mkdir()
    (home / "memory-pipeline" / "privacy_keywords.txt").write_text("Jenkins\n", encoding="utf-8")  # the home's own list
    work_list = tmp_path / "work-keywords.txt"
    work_list.write_text("Tailscale\n", encoding="utf-8")
    assert main(["sync", "--hermes-home", str(home), "--profile", "default", "--quiet", "--extractor", "rules"]) == 0
    assert (
        main(["sync", "--hermes-home", str(home), "--profile", "work", "--quiet", "--extractor", "rules", "--keywords", str(work_list)])
        == 0
    )
    private = {c for (c,) in query(db, "SELECT content FROM facts WHERE tags LIKE '%private-person%'")}
    assert private == {DEFAULT_ENTRIES["memory"][0], WORK_ENTRIES["memory"][0]}
    server = MemoryServer(home, retag=lambda profile: None)
    for word in ("Jenkins", "Tailscale"):
        assert server.search_memory(word)["results"] == []
    assert [r["content"] for r in server.search_memory("wiki")["results"]] == [WORK_ENTRIES["user"][0]] * 2  # shown to both
    with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as conn:  # the plugin's gate, either profile's
        assert not gate(conn, settings_digest({})).stale
    work_list.write_text("Tailscale\nwiki\n", encoding="utf-8")  # one list edited: both profiles withhold until the re-tag
    assert server.search_memory("wiki")["results"] == []
    capsys.readouterr()
    assert main(["status", "--hermes-home", str(home)]) == 0
    assert "judged with the union of their keyword lists and detectors" in capsys.readouterr().out


def _plugin_search(home: Path, tmp_path: Path):
    """`memory_search` for "wiki" through Hermes 0.19.0's plugin manager, in an interpreter where
    memory-pipeline is not importable: each call a fresh Hermes process on `home`."""
    import sysconfig

    env = {"HERMES_HOME": str(home), "PYTHONPATH": sysconfig.get_paths()["purelib"], "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def search() -> dict:
        done = subprocess.run([sys.executable, "-S", "-c", SWITCH_PROBE], capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    return search


SWITCH_PROBE = """
import json
from hermes_cli.plugins import discover_plugins
from tools.registry import registry
discover_plugins(force=True)
print(json.dumps(json.loads(registry.dispatch("memory_search", {"query": "wiki"}))))
"""


def test_a_detector_switched_on_in_a_sharing_profile_withholds_at_once_in_the_others_plugin(capsys, tmp_path):
    """The plugin of profile `default`, loaded by Hermes' own plugin manager, on a store it shares
    with `work`: `work` switches a detector on in its config.yaml, and `default`'s agent is given
    nothing of the store until the re-tag, as `work`'s own surfaces do."""
    home, db = _shared_home(tmp_path)
    for profile in ("default", "work"):
        assert main(["sync", "--hermes-home", str(home), "--profile", profile, "--quiet", "--extractor", "rules"]) == 0
    assert main(["hermes-plugin", "install", "--hermes-home", str(home), "--profile", "default"]) == 0
    config = home / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "  enabled: [memory-pipeline]\n", encoding="utf-8")
    search = _plugin_search(home, tmp_path)

    assert [r["content"] for r in search()["results"]] == [WORK_ENTRIES["user"][0]]
    work_config = home / "profiles" / "work" / "config.yaml"
    work_config.write_text(
        work_config.read_text(encoding="utf-8") + "  memory-pipeline:\n    private_data:\n      private_network: true\n", encoding="utf-8"
    )
    assert search()["results"] == []  # withheld at once: the store was judged without work's new switch


def test_a_profile_added_after_the_install_with_a_detector_on_withholds_at_once(capsys, tmp_path):
    """The plugin is installed while `default` alone uses the store, and an MCP server is running;
    then a profile `late` is created whose Holographic names the same store and whose config
    switches a detector on: both of `default`'s agent surfaces give nothing of the store until the
    re-tag, without a reinstall or a restart."""
    from memory_pipeline.mcp_server import MemoryServer

    home, db = _shared_home(tmp_path)
    work_config = home / "profiles" / "work" / "config.yaml"
    work_config.write_text("plugins: {}\n", encoding="utf-8")  # work keeps a store of its own
    assert main(["sync", "--hermes-home", str(home), "--profile", "default", "--quiet", "--extractor", "rules"]) == 0
    assert main(["hermes-plugin", "install", "--hermes-home", str(home), "--profile", "default"]) == 0
    config = home / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "  enabled: [memory-pipeline]\n", encoding="utf-8")
    search = _plugin_search(home, tmp_path)
    retags: list[str] = []
    server = MemoryServer(home, profile="default", retag=lambda profile: retags.append(profile.name))

    shown = [DEFAULT_ENTRIES["user"][1]]
    assert [r["content"] for r in search()["results"]] == shown
    assert [r["content"] for r in server.search_memory("wiki")["results"]] == shown
    late = home / "profiles" / "late"
    late.mkdir()
    (late / "config.yaml").write_text(
        f"plugins:\n  hermes-memory-store:\n    db_path: {db}\n  memory-pipeline:\n    private_data:\n      private_network: true\n",
        encoding="utf-8",
    )
    assert search()["results"] == []  # withheld at once: the store was judged without late's switch
    assert server.search_memory("wiki")["results"] == [] and retags == ["default"]
    assert main(["sync", "--hermes-home", str(home), "--profile", "default", "--quiet", "--extractor", "rules", "--retag"]) == 0
    assert [r["content"] for r in search()["results"]] == shown  # judged with late's switch: served again
    assert [r["content"] for r in server.search_memory("wiki")["results"]] == shown


def test_a_list_the_variable_names_for_one_sync_keeps_every_sharers_terms(capsys, tmp_path, monkeypatch):
    """`$MEMORY_PIPELINE_PRIVACY_KEYWORDS` names a list for one profile's sync: the shared store is
    judged with it and with each sharer's own list, and whichever profile syncs, the verdicts agree."""
    home, db = _shared_home(tmp_path)
    (home / "memory-pipeline").mkdir()
    (home / "memory-pipeline" / "privacy_keywords.txt").write_text("Jenkins\n", encoding="utf-8")  # each profile's own list
    named = tmp_path / "named-keywords.txt"
    named.write_text("Tailscale\n", encoding="utf-8")
    assert main(["sync", "--hermes-home", str(home), "--profile", "default", "--quiet", "--extractor", "rules"]) == 0
    both = {DEFAULT_ENTRIES["memory"][0], WORK_ENTRIES["memory"][0]}
    monkeypatch.setenv("MEMORY_PIPELINE_PRIVACY_KEYWORDS", str(named))
    for profile in ("work", "default"):
        assert main(["sync", "--hermes-home", str(home), "--profile", profile, "--quiet", "--extractor", "rules", "--force"]) == 0
        private = {c for (c,) in query(db, "SELECT content FROM facts WHERE tags LIKE '%private-person%'")}
        assert private == both, profile  # Jenkins (the own list) and Tailscale (the named one), after either sync
