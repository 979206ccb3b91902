"""Entries that say the same thing, by meaning: `entries_distinct` names them by file and number
(never their text, never a private one), `compact --merge` shows and, with --apply, writes one entry
pointing at every copy's fact, the next sync takes the copies' ledger rows over with their facts
untouched, and removing the merged entry later takes every copy's fact with it."""

import json
import re
import shutil

from memory_pipeline.cli import main
from memory_pipeline_tests.support.repository import DEMO_KEYWORDS
from memory_pipeline_tests.support.store_fixture import context_of, synced_store
from memory_pipeline_tests.support.store_helpers import query, read_entries, write_entries
from memory_pipeline_tests.support.syncing import sync_outcome

NULL_SHORT = "On MSYS2 the /dev/null device is broken, so every terminal tool fails; recreate it with mknod from an outside shell."
NULL_LONG = (
    "On MSYS2 / Git Bash the /dev/null device is broken: every terminal tool fails because Hermes redirects to /dev/null; "
    "recreate it with mknod from a shell outside Hermes."
)
TEA = "User likes green tea in the afternoon."
DEPLOY = "**Deploy**: staging deploys every day at 18:00; production only on Tuesdays."
PRIVATE = "张伟 likes green tea in the afternoon too."  # 张伟 is on the keyword list: withheld, never compared


def _home(tmp_path):
    home = tmp_path / "hermes_home"
    (home / "memories").mkdir(parents=True)
    (home / "memory-pipeline").mkdir()
    shutil.copyfile(DEMO_KEYWORDS, home / "memory-pipeline" / "privacy_keywords.txt")
    write_entries(home / "memories" / "MEMORY.md", [NULL_SHORT, DEPLOY, NULL_LONG, TEA, PRIVATE])
    synced_store(context_of(home))
    return home


def _audit(capsys, home) -> dict:
    main(["audit", "--hermes-home", str(home), "--json"])
    (profile,) = json.loads(capsys.readouterr().out)["profiles"]
    return {c["name"]: c for c in profile["checks"]}


def test_entries_saying_the_same_thing_are_named_then_merged_into_one(capsys, tmp_path):
    home = _home(tmp_path)
    db = home / "memory_store.db"
    checks = _audit(capsys, home)
    distinct = checks["entries_distinct"]
    assert not distinct["passed"] and distinct["severity"] == "WARN"
    # Named by file and number alone; the tea entry's private near-copy (cosine 0.79) is never compared.
    assert re.search(r"\): MEMORY\.md entries 1 and 3 \(cosine 0\.\d\d\)$", distinct["detail"]), distinct["detail"]

    assert main(["compact", "--hermes-home", str(home), "--merge"]) == 0
    shown = capsys.readouterr().out
    assert "entry 3 kept whole, entry 1 merged into it" in shown and "--merge --apply" in shown
    assert read_entries(home / "memories" / "MEMORY.md")[0] == NULL_SHORT  # a proposal writes nothing

    ids = {text: query(db, "SELECT fact_id FROM facts WHERE content = ?", (text,))[0][0] for text in (NULL_SHORT, NULL_LONG)}
    assert main(["compact", "--hermes-home", str(home), "--merge", "--apply", "--yes"]) == 0
    assert "1 groups of entries merged into one entry each" in capsys.readouterr().out
    merged = f"{NULL_LONG} (→ fact_store#{ids[NULL_LONG]}/{ids[NULL_SHORT]})"
    assert read_entries(home / "memories" / "MEMORY.md") == [DEPLOY, merged, TEA, PRIVATE]
    rows = query(
        db, "SELECT DISTINCT entry_id FROM memory_pipeline_ledger WHERE fact_id IN (?, ?) AND status = 'active'", tuple(ids.values())
    )
    assert len(rows) == 1  # one entry holds both copies' facts, their text untouched
    assert {c for c, r in _audit(capsys, home).items() if not r["passed"]} == set()

    # The merged entry removed: every copy's fact stops reaching the agent.
    write_entries(home / "memories" / "MEMORY.md", [DEPLOY, TEA, PRIVATE])
    assert sync_outcome(home, extractor="rules").profiles["default"].run.success
    assert query(db, "SELECT count(*) FROM facts WHERE fact_id IN (?, ?)", tuple(ids.values())) == [(0,)]


def test_compaction_merges_entries_saying_the_same_thing_before_it_cuts_any(capsys, tmp_path):
    """Over its target, a file whose copies of one fact, merged, bring it within the target is
    merged and nothing else: no entry loses a word to a summary."""
    home = _home(tmp_path)
    before = read_entries(home / "memories" / "MEMORY.md")
    chars = len("\n§\n".join(before))
    merged_chars = chars - len(NULL_SHORT) - 3 + len(" (→ fact_store#100/101)")
    limit = int(merged_chars / 0.8) + 2  # over 80% as it is, within 80% once merged
    (home / "config.yaml").write_text(f"memory:\n  memory_char_limit: {limit}\n", encoding="utf-8")
    db = home / "memory_store.db"
    ids = {text: query(db, "SELECT fact_id FROM facts WHERE content = ?", (text,))[0][0] for text in (NULL_SHORT, NULL_LONG)}

    assert main(["compact", "--hermes-home", str(home), "--profile", "default", "--apply", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "entry 3 kept whole, entry 1 merged into it" in out
    assert "MEMORY.md: 1 merge of entries saying the same thing, " in out and "target 80% reached" in out
    assert "entries shortened" not in out  # no summary: merging sufficed
    merged = f"{NULL_LONG} (→ fact_store#{ids[NULL_LONG]}/{ids[NULL_SHORT]})"
    assert read_entries(home / "memories" / "MEMORY.md") == [DEPLOY, merged, TEA, PRIVATE]
    assert {c for c, r in _audit(capsys, home).items() if not r["passed"]} == set()
