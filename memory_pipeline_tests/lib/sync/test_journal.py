"""The agent's journal stays small and is never ignored: the plugin moves it aside past its bound
(two sessions appending at once lose no line), the sync reads the newest part of one that grew
too large and says so, and only one tool call's replace or patch is an edit."""

import hashlib
import json
import shutil
import subprocess
import sys
import textwrap

from memory_pipeline.cli import main
from memory_pipeline.lib.hermes.hashing import entry_id
from memory_pipeline.lib.sync.journal import READ_BYTES, read_journal

APPENDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[3])
    from plugin import live_sync  # the plugin's files as `hermes-plugin install` lays them out
    live_sync.JOURNAL_BYTES = 16_384
    for i in range(120):
        live_sync.journal(Path(sys.argv[1]), {"session": sys.argv[2], "n": i, "pad": "x" * 40})
    """
)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _plugin_package(root) -> str:
    from memory_pipeline.lib.hermes.plugin_files import PLUGIN_FILES

    package = root / "plugin"
    (package / "in_hermes").mkdir(parents=True)
    for name in ("live_sync.py", "in_hermes/entry_reader.py", "in_hermes/warm_worker.py", "in_hermes/__init__.py"):
        shutil.copyfile(PLUGIN_FILES[name], package / name)
    (package / "__init__.py").write_text("", encoding="utf-8")
    return str(root)


def test_two_sessions_appending_at_once_lose_no_line_when_the_journal_is_moved_aside(tmp_path):
    path = tmp_path / "journal" / "default.jsonl"
    where = _plugin_package(tmp_path)
    writers = [subprocess.Popen([sys.executable, "-S", "-c", APPENDER, str(path), name, where]) for name in ("a", "b")]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    aside = path.with_name("default.jsonl.1")
    assert path.stat().st_size <= 16_384 and aside.stat().st_size <= 16_384  # 240 lines of ~90 bytes: moved aside once
    lines = [json.loads(line) for part in (aside, path) for line in part.read_text().splitlines()]
    assert sorted((w["session"], w["n"]) for w in lines) == sorted((s, i) for s in "ab" for i in range(120))
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def _line(action: str, before: list[str], after: list[str], target: str = "memory") -> str:
    return json.dumps({"action": action, "target": target, "session": "s", "turn": "t", "before": before, "after": after}) + "\n"


def test_only_a_replace_or_patch_of_one_call_is_an_edit(tmp_path):
    path = tmp_path / "default.jsonl"
    path.write_text(
        _line("add", [_sha("gone A")], [_sha("new A")])  # two sessions' writes seen together: never an edit
        + _line("remove", [_sha("gone B")], [_sha("new B")])
        + _line("replace", [_sha("old C")], [_sha("new C")])
        + _line("patch", [_sha("old D")], [_sha("new D")], "user")
        + "{torn",
        encoding="utf-8",
    )
    journal = read_journal(path)
    assert journal.problems == []
    assert journal.edits == {
        ("memory", _sha("new C")): entry_id("memory", _sha("old C")),
        ("user", _sha("new D")): entry_id("user", _sha("old D")),
    }
    assert ("memory", _sha("gone B")) in journal.taken_away and ("user", _sha("old D")) in journal.taken_away
    assert read_journal(path, edits_only=True).edits == journal.edits  # what a skip check reads: the same edits


def test_a_journal_too_large_is_read_from_its_newest_part_and_said(tmp_path, synced_home, capsys):
    path = synced_home / "memory-pipeline" / "journal" / "default.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    filler = _line("injected", [], [])
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(_line("replace", [_sha("oldest")], [_sha("lost to the cut")]))
        handle.write(filler * (READ_BYTES // len(filler) + 10_000))
        handle.write(_line("replace", [_sha("old")], [_sha("new")]))
    journal = read_journal(path)
    assert journal.edits == {("memory", _sha("new")): entry_id("memory", _sha("old"))}
    (problem,) = journal.problems
    assert problem.startswith(f"agent journal {path}: ") and "only its newest 4 MB read" in problem and "remove the file" in problem
    assert main(["status", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    assert problem in capsys.readouterr().out


def test_the_plugin_and_the_pipeline_read_every_file_alike(tmp_path):
    """The plugin's reader (its shipped copy, imported as Hermes imports it) and the pipeline's split
    every real-shaped memory file into the same entries: the journal's hashes are the entries the
    sync reads."""
    import importlib
    import sys as _sys

    from memory_pipeline.lib.hermes.memory_files import read_source
    from memory_pipeline_tests.support.memory_corpus import CASES
    from memory_pipeline_tests.support.overcap_files import FILES

    _sys.path.insert(0, _plugin_package(tmp_path))
    try:
        live_sync = importlib.import_module("plugin.live_sync")
    finally:
        _sys.path.pop(0)
    files = [(case.name, case.data) for case in CASES if case.data is not None]
    files += [(name, "\n§\n".join(entries).encode()) for name, entries in FILES.items()]
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    compared = 0
    for name, data in files:
        path = home / "memories" / "MEMORY.md"
        path.write_bytes(data)
        reading = read_source(path, "memory", 2200)
        if not reading.readable:
            continue
        assert list(live_sync.entry_texts(home)["memory"].values()) == reading.entries, name
        compared += 1
    assert compared >= 10


def test_an_edit_whose_journal_line_arrives_after_a_sync_gets_its_fact_id_back(synced_home):
    """A cron sync runs between the agent's `patch` reaching the file and the plugin journaling
    it: that sync sees a removal and an addition (the new text shares too little with the old).
    The journal line arrives after; the next sync (not skipped: the journal names a new edit)
    gives the entry its old fact id back, with the new text, and the newer fact goes to the
    archive. A sync after that writes nothing."""
    from memory_pipeline.lib.hermes.hashing import entry_sha256
    from memory_pipeline.services.audit import audit_profile
    from memory_pipeline_tests.support.store_fixture import context_of
    from memory_pipeline_tests.support.store_helpers import query, read_entries, write_entries
    from memory_pipeline_tests.support.syncing import sync_outcome

    def synced(**options) -> bool:
        run = sync_outcome(synced_home, "default", extractor="rules", quiet=True, **options).profiles["default"].run
        return run is not None and run.success

    db, memory = synced_home / "memory_store.db", synced_home / "memories" / "MEMORY.md"
    entries = read_entries(memory)
    old = entries[1]
    (old_id,) = query(db, "SELECT fact_id FROM facts WHERE content = ?", (old,))[0]
    new = "Quarterly invoices now go to the finance share, never by email"
    write_entries(memory, [*entries[:1], new, *entries[2:]])
    assert synced()  # the racing sync: the old fact archived, the new text a new fact
    (racing_id,) = query(db, "SELECT fact_id FROM facts WHERE content = ?", (new,))[0]
    assert racing_id != old_id and query(db, "SELECT count(*) FROM facts WHERE fact_id = ?", (old_id,)) == [(0,)]
    journal = synced_home / "memory-pipeline" / "journal" / "default.jsonl"
    journal.parent.mkdir(parents=True, exist_ok=True)
    with open(journal, "a", encoding="utf-8") as handle:
        handle.write(_line("patch", [entry_sha256(old)], [entry_sha256(new)]))
    assert synced()  # not skipped: the journal names a new edit
    assert query(db, "SELECT fact_id FROM facts WHERE content = ?", (new,)) == [(old_id,)]
    assert query(db, "SELECT count(*) FROM memory_pipeline_archive WHERE fact_id = ?", (racing_id,)) == [(1,)]
    ledger = "SELECT fact_id FROM memory_pipeline_ledger WHERE status = 'active' AND entry_id = ?"
    assert query(db, ledger, (entry_id("memory", entry_sha256(new)),)) == [(old_id,)]
    assert query(db, "SELECT outcome FROM memory_pipeline_verdicts WHERE fact_id = ?", (old_id,)) == [("shown",)]
    state = query(db, "SELECT fact_id, content, tags, trust_score FROM facts ORDER BY fact_id")
    rows = query(db, "SELECT entry_id, fact_id, status FROM memory_pipeline_ledger ORDER BY entry_id, fact_id")
    assert synced(force=True)  # run in full: nothing more to write
    assert query(db, "SELECT fact_id, content, tags, trust_score FROM facts ORDER BY fact_id") == state
    assert query(db, "SELECT entry_id, fact_id, status FROM memory_pipeline_ledger ORDER BY entry_id, fact_id") == rows
    context = context_of(synced_home)
    assert [r.name for r in audit_profile(context, context.judge) if not r.passed] == ["cap_usage"]  # the demo's standing warning
