"""One fault per check, each the pitfall of `audit_consistency.py`'s pipeline it exists for: the check fails, the others pass,
and the next sync or `audit --repair` heals it where that can be done safely."""

import sqlite3

import pytest

from memory_pipeline.cli import main
from memory_pipeline.lib.audit.engine import CHECKS, Audit, AuditInputs, run_audits
from memory_pipeline.lib.extraction.base import QuarantineRecord
from memory_pipeline.lib.hermes.compaction import fewest_chars
from memory_pipeline.lib.hermes.profiles import get_profile, read_profile
from memory_pipeline.lib.privacy.matching import load_keywords
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.reads.reader import StoreReader
from memory_pipeline.lib.store.settings import holographic_settings
from memory_pipeline.services.audit import repair_profile
from memory_pipeline_tests.support.hermes_oracle import holographic_store
from memory_pipeline_tests.support.repository import DEMO_KEYWORDS
from memory_pipeline_tests.support.store_fixture import context_of, synced_store
from memory_pipeline_tests.support.store_helpers import judge_of, read_entries, said, write_entries
from memory_pipeline_tests.support.syncing import synced_profile


@pytest.fixture
def work(synced_home):
    """The demo `work` profile after a sync: every check passes there."""
    demo_home = synced_home
    profile = get_profile(demo_home, "work")
    assert failing(profile) == set()
    return demo_home, profile


def failing(profile) -> set[str]:
    settings = holographic_settings(profile.home)
    conn = sqlite3.connect(settings.db_path) if settings.db_path.exists() else None
    try:
        results = run_audits(
            AuditInputs(read_profile(profile), StoreReader(conn) if conn else None, settings, judge_of(load_keywords(DEMO_KEYWORDS)))
        )
    finally:
        if conn is not None:
            conn.close()
    assert [r.name for r in results] == list(CHECKS)
    return {r.name for r in results if not r.passed}


def sql(profile, statement, params=()):
    conn = sqlite3.connect(profile.home / "memory_store.db")
    try:
        conn.execute(statement, params)
        conn.commit()
    finally:
        conn.close()


def heal_by_sync(capsys, home, profile):
    synced_profile(home, profile.name)
    assert failing(profile) == set()


def heal_by_repair(home, profile):
    """The audit service's repair of what fails (`audit --repair`'s; its words: test_current_hermes_store)."""
    context = context_of(home, profile.name)
    done, not_done = repair_profile(context, context.judge, failing(profile))
    assert done and not_done == [], (done, not_done)
    assert failing(profile) == set()


def test_column_leak_fails_ledger_integrity_only(work):
    home, profile = work
    sql(
        profile,
        """INSERT INTO memory_pipeline_ledger (entry_id, source, entry_sha256, fact_id, status)
                    SELECT entry_id, source, entry_sha256, '18 条 facts 漏进来', 'active' FROM memory_pipeline_ledger LIMIT 1""",
    )
    assert failing(profile) == {"ledger_integrity"}


def test_a_corrupt_ledger_is_repaired_and_its_rows_saved_privately(capsys, work):
    home, profile = work
    test_column_leak_fails_ledger_integrity_only(work)
    heal_by_repair(home, profile)
    (saved,) = (home / "memory-pipeline" / "repairs").glob("work-ledger-*.db")
    assert saved.stat().st_mode & 0o777 == 0o600
    conn = sqlite3.connect(saved)
    try:
        assert conn.execute("SELECT fact_id, status FROM ledger_rows").fetchall() == [("18 条 facts 漏进来", "active")]
    finally:
        conn.close()
    # What it did is said by counts and the file's name, never by the leaked value.
    main(["audit", "--hermes-home", str(home), "--profile", "work"])
    assert "漏进来" not in capsys.readouterr().out


def test_a_near_copy_is_named_by_fact_id(work):
    home, profile = work
    test_near_duplicate_fact(work)
    conn = sqlite3.connect(profile.home / "memory_store.db")
    try:
        content = read_entries(profile.memory_file("memory"))[2]
        (copy,) = conn.execute("SELECT fact_id FROM facts WHERE content = ?", (content.replace(" ", "  ", 1),)).fetchone()
    finally:
        conn.close()
    settings = holographic_settings(profile.home)
    with (
        sqlite3.connect(settings.db_path) as conn,
        Audit(
            AuditInputs(read_profile(profile), StoreReader(conn) if conn else None, settings, judge_of(load_keywords(DEMO_KEYWORDS)))
        ) as audit,
    ):
        detail = audit.run("fact_links").detail
    assert f"#{copy})" in detail and "1 duplicated contents (#" in detail


def test_two_active_versions_of_an_entry_are_repaired(capsys, work):
    """Append-only drift: the older version's row is retired (and saved), the newest kept."""
    home, profile = work
    sql(
        profile,
        """INSERT INTO memory_pipeline_ledger (entry_id, source, entry_sha256, fact_id, status, synced_at)
           SELECT a.entry_id, a.source, printf('%064d', 7), b.fact_id, 'active', '2020-01-01 00:00:00'
           FROM memory_pipeline_ledger a, memory_pipeline_ledger b
           WHERE a.rowid = (SELECT min(rowid) FROM memory_pipeline_ledger) AND b.rowid = (SELECT max(rowid) FROM memory_pipeline_ledger)""",
    )
    assert failing(profile) == {"ledger_integrity", "layer_counts"}
    heal_by_repair(home, profile)
    conn = sqlite3.connect(profile.home / "memory_store.db")
    try:
        assert conn.execute("SELECT status FROM memory_pipeline_ledger WHERE entry_sha256 = printf('%064d', 7)").fetchall() == [
            ("retired",)
        ]
    finally:
        conn.close()


def test_orphan_ledger_fact_id(capsys, work):
    home, profile = work
    sql(profile, "UPDATE memory_pipeline_ledger SET fact_id = 99999 WHERE rowid = (SELECT min(rowid) FROM memory_pipeline_ledger)")
    assert failing(profile) == {"fact_links"}
    heal_by_sync(capsys, home, profile)


def test_ghost_pipeline_fact(capsys, work):
    home, profile = work
    store = holographic_store(profile.home / "memory_store.db")
    try:
        store.add_fact("an entry long gone from MEMORY.md", category="general", tags="synced-from-memory,memory")
    finally:
        store.close()
    assert failing(profile) == {"fact_links"}
    heal_by_repair(home, profile)


def test_near_duplicate_fact(work):
    home, profile = work
    store = holographic_store(profile.home / "memory_store.db")
    try:
        content = read_entries(profile.memory_file("memory"))[2]
        store.add_fact(content.replace(" ", "  ", 1), category="tool")
    finally:
        store.close()
    assert failing(profile) == {"fact_links"}


# Damage done by hand, the one check that must catch it, and `audit --repair` healing it.
REPAIRABLE = {
    "fts_out_of_step": (
        ["DELETE FROM facts_fts WHERE rowid = 2"],  # the index loses a fact the table still holds
        "index_consistency",
    ),
    "short_hrr_vector": (["UPDATE facts SET hrr_vector = substr(hrr_vector, 1, 100) WHERE fact_id = 3"], "index_consistency"),
    "bank_count_off": (
        ["UPDATE memory_banks SET fact_count = fact_count + 1 WHERE bank_name = 'cat:user_pref'"],
        "index_consistency",
    ),
    "dangling_entity_links": (["DELETE FROM entities WHERE entity_id = (SELECT min(entity_id) FROM fact_entities)"], "fact_links"),
    "pii_fact_without_tag": (
        ["UPDATE facts SET tags = 'synced-from-memory,user' WHERE tags LIKE '%private-person%'"],
        "privacy_coverage",
    ),
}


@pytest.mark.parametrize("statements,check", REPAIRABLE.values(), ids=REPAIRABLE.keys())
def test_damage_is_caught_and_repaired(capsys, work, statements, check):
    home, profile = work
    for statement in statements:
        sql(profile, statement)
    assert failing(profile) == {check}
    heal_by_repair(home, profile)


def test_private_person_variant(capsys, work):
    home, profile = work
    sql(profile, "UPDATE facts SET tags = replace(tags, 'private-person', 'private_person')")
    assert failing(profile) == {"privacy_coverage"}
    heal_by_sync(capsys, home, profile)


def test_file_over_cap_is_an_error(capsys, work):
    home, profile = work
    path = profile.memory_file("memory")
    topics = ["周一上午整理发票并报销差旅费用，", "数据库每晚三点做全量备份到对象存储，", "前端构建用 vite，端口五一七三，热更新很快，"]
    topics += ["猫粮每周六在超市买两袋，顺便买牛奶，", "读书会每月第二个周日在咖啡馆举行，"]  # five notes on five things
    write_entries(path, read_entries(path) + [f"**Long note {i}**: " + topic * 20 for i, topic in enumerate(topics)])
    synced_store(context_of(home, "work"))
    assert failing(profile) == {"cap_usage"}
    code = main(["audit", "--hermes-home", str(home), "--profile", "work"])
    assert code == 1 and "FAIL cap_usage" in capsys.readouterr().out


def test_dangling_pointer(capsys, work):
    home, profile = work
    path = profile.memory_file("memory")
    write_entries(path, read_entries(path) + ["**Old rule (→ fact_store#9999)**: moved to L2"])
    synced_store(context_of(home, "work"))
    assert failing(profile) == {"pointers_resolve"}


def test_a_pointer_to_a_withheld_fact_is_one_the_agent_cannot_follow(capsys, work):
    """The work profile's private contact (李娜) as a pointer: the fact exists, the agent is not given it."""
    home, profile = work
    ((private_id,),) = (
        sqlite3.connect(holographic_settings(profile.home).db_path)
        .execute("SELECT fact_id FROM facts WHERE tags LIKE '%private-person%'")
        .fetchall()
    )
    path = profile.memory_file("memory")
    write_entries(path, read_entries(path) + [f"**Ops contact (→ fact_store#{private_id})**: see the fact"])
    synced_store(context_of(home, "work"))
    assert failing(profile) == {"pointers_resolve"}
    main(["audit", "--hermes-home", str(home), "--profile", "work"])
    assert f"1 name a fact the agent is not given (retired, private, unsafe or not judged) (#{private_id})" in capsys.readouterr().out


def test_pending_entry(capsys, work):
    home, profile = work
    path = profile.memory_file("user")
    write_entries(path, read_entries(path) + ["刚写进去、还没同步的一条"])
    assert failing(profile) == {"hashes_fresh"}
    heal_by_repair(home, profile)


def test_removed_entry_not_synced(capsys, work):
    home, profile = work
    path = profile.memory_file("memory")
    write_entries(path, read_entries(path)[1:])
    assert failing(profile) == {"layer_counts"}
    heal_by_sync(capsys, home, profile)


def test_quarantined_entry(work):
    home, profile = work
    path = profile.memory_file("user")
    write_entries(path, read_entries(path) + ["an entry the LLM could not answer for"])
    pending = read_profile(profile)[1]
    from memory_pipeline.lib.hermes.hashing import entry_id, entry_sha256

    record = QuarantineRecord(entry_id("user", entry_sha256(pending.entries[-1])), "user", "m", "0" * 64, "not json", "not JSON")
    with FactStore.opened(holographic_settings(profile.home)) as store, store.transaction() as writes:
        writes.records.quarantine_entries([record])
    assert failing(profile) == {"quarantine_empty"}


def _delete_lines(path, numbers: list[int]) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    path.write_text("\n".join(line for n, line in enumerate(lines, start=1) if n not in numbers), encoding="utf-8")


def test_format_parity_names_the_lines_whose_deletion_makes_it_pass(capsys, work):
    home, profile = work
    path = profile.memory_file("memory")
    entries = read_entries(path)
    path.write_text("§\n" + "\n§\n§\n".join(entries), encoding="utf-8")
    assert failing(profile) == {"format_parity"}
    code = main(["sync", "--hermes-home", str(home), "--profile", "work"])
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  format_parity:")]
    assert "starts with a § line before any entry: delete line 1;" in line and "fix: make the edit the detail names" in line
    doubled = line.split("consecutive § lines: delete lines ")[1].split(";")[0]
    assert code == 0 and len(doubled.split(", ")) == len(entries) - 1
    _delete_lines(path, [1, *map(int, doubled.split(", "))])  # what the detail says, nothing else
    assert failing(profile) == set() and read_entries(path) == entries


@pytest.mark.parametrize(
    "term", [r"re:\bAPI\s+约定", "re:(zzqq)\nre:(?i)api\\s+约定", "API 约定"], ids=["pattern", "patterns-each-their-own", "plain-term"]
)
def test_keyword_only_fact_without_tag(tmp_path, work, term):
    """A fact only the keyword list makes private, untagged: found through DuckDB's RE2 pass over
    the list's own patterns, whatever other lines the list holds."""
    _, profile = work
    keywords = tmp_path / "keywords.txt"
    keywords.write_text(f"{term}\n", encoding="utf-8")
    settings = holographic_settings(profile.home)
    conn = sqlite3.connect(settings.db_path)
    try:
        results = {
            r.name: r
            for r in run_audits(
                AuditInputs(read_profile(profile), StoreReader(conn) if conn else None, settings, judge_of(load_keywords(keywords)))
            )
        }
    finally:
        conn.close()
    assert not results["privacy_coverage"].passed
    assert results["privacy_coverage"].metrics["untagged_private"] == 1.0
    assert "约定" not in results["privacy_coverage"].detail


def test_content_that_is_not_utf8(capsys, work):
    """Bytes Hermes itself cannot read: a finding of fact_links, and a sync that stops with one
    line naming the store, never quoting the value."""
    home, profile = work
    store = holographic_store(profile.home / "memory_store.db")
    try:
        store.add_fact("Marta Quill keeps the release keys", category="general")
    finally:
        store.close()
    sql(profile, "UPDATE facts SET content = CAST(x'4d61727461ff5175696c6c' AS TEXT) WHERE content LIKE 'Marta%'")
    assert failing(profile) == {"fact_links"}

    code = main(["sync", "--hermes-home", str(home), "--profile", profile.name, "--extractor", "rules"])
    err = capsys.readouterr().err
    assert code == 1
    assert len(said(err)) == 1 and str(profile.home / "memory_store.db") in err and "UTF-8" in err
    assert "Marta" not in err and "Quill" not in err


def test_checks_run_together_agree_with_each_alone(capsys, work):
    """`run_all` runs checks two at a time on DuckDB cursors; with several faults at once, every
    verdict and detail equals the check's own, run alone in a fresh audit."""
    home, profile = work
    sql(profile, "UPDATE memory_pipeline_ledger SET fact_id = 99999 WHERE rowid = (SELECT min(rowid) FROM memory_pipeline_ledger)")
    sql(profile, "UPDATE facts SET hrr_vector = x'00' WHERE fact_id = (SELECT max(fact_id) FROM facts)")
    path = profile.memory_file("user")
    write_entries(path, read_entries(path) + ["Reach me at marta.quill@example.org", "**Old (→ fact_store#9999)**: moved"])
    settings = holographic_settings(profile.home)
    inputs = AuditInputs(
        read_profile(profile), StoreReader(conn := sqlite3.connect(settings.db_path)), settings, judge_of(load_keywords(DEMO_KEYWORDS))
    )
    try:
        together = run_audits(inputs)
        alone = []
        for name in CHECKS:
            with Audit(inputs, [name]) as audit:
                alone.append(audit.run(name))
    finally:
        conn.close()
    assert {r.name for r in together if not r.passed} >= {"fact_links", "index_consistency", "hashes_fresh", "pointers_resolve"}
    assert [(r.name, r.passed, r.detail, r.metrics) for r in together] == [(r.name, r.passed, r.detail, r.metrics) for r in alone]


def test_a_file_no_proposal_could_fit_is_said_so_without_proposing(demo_home):
    profile = get_profile(demo_home, "work")
    memory = profile.memory_file("memory")
    write_entries(memory, [f"Note {i}: the staging cluster restarts at 0{i % 10}:00" for i in range(300)])
    reading = next(r for r in read_profile(profile) if r.source == "memory")
    assert fewest_chars(reading.entries) > reading.limit  # 300 entries cannot fit 2,200 chars, whatever is done
    settings = holographic_settings(profile.home)
    inputs = AuditInputs(read_profile(profile), None, settings, None, cap_target=profile.cap_target(0.0))
    with Audit(inputs, ["cap_usage"]) as audit:
        result = audit.run("cap_usage")
    assert not result.passed and result.severity == "ERROR"
    assert f"too far over for `compact` (300 entries need {fewest_chars(reading.entries)} chars even as pointers)" in result.detail
