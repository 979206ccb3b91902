"""The sync service called as a service (the command line, Hermes' cron, the audit's repair and
compaction all go through it): one run per profile that changed, a skip without a run for one that
did not, and a standing problem reported once to `quiet` callers."""

from memory_pipeline.lib.hermes.profiles import discover_profiles
from memory_pipeline.services.sync import SyncRequest, sync_profiles
from memory_pipeline_tests.support.hermes_oracle import holographic_store
from memory_pipeline_tests.support.store_helpers import query, read_entries, write_entries
from memory_pipeline_tests.support.syncing import sync_outcome, synced_profile


def _request(home, **options) -> SyncRequest:
    return SyncRequest(home=home, profiles={p.name: p for p in discover_profiles(home)}, **options)


def test_runs_what_changed_skips_what_did_not_and_reports_a_standing_problem_once(demo_home):
    first = sync_profiles(_request(demo_home, quiet=True))
    assert [p.summary.profile for p in first.profiles.values()] == ["default", "work"]
    assert all(p.run is not None and p.run.success for p in first.profiles.values())
    default = first.profiles["default"]
    assert [f.name for f in default.failing] == ["cap_usage"] and default.failing[0].severity == "WARN"
    assert first.failing_to_report() == {"default": default.failing}  # said the first time

    second = sync_profiles(_request(demo_home, quiet=True))
    assert all(p.run is None for p in second.profiles.values())  # nothing changed: no run at all
    assert second.profiles["default"].summary.store == str(demo_home / "memory_store.db")  # a skip names its store too
    assert second.profiles["default"].failing == default.failing and second.failing_to_report() == {}  # said once

    memory = demo_home / "profiles" / "work" / "memories" / "MEMORY.md"
    write_entries(memory, [*read_entries(memory), "**Standup**: moved to 09:45 in room Orion"])
    third = sync_profiles(_request(demo_home, quiet=True))
    assert third.profiles["default"].run is None and third.profiles["work"].run is not None
    assert third.profiles["work"].summary.added == 1


def test_options_reach_the_run(demo_home):
    """A typed option chosen by the caller is what the run does: `delete` deletes a removed entry's
    fact (no archive), and only the chosen options become run config."""
    from memory_pipeline.lib.choices import ExtractorMode, RemovalPolicy
    from memory_pipeline.runs.options import SyncOptions
    from memory_pipeline_tests.support.store_helpers import query

    assert SyncOptions().run_config() == {}
    chosen = SyncOptions(extractor=ExtractorMode.RULES, removal_policy=RemovalPolicy.DELETE, allow_remote_ollama=True)
    assert chosen.run_config() == {"extractor": {"extractor": "RULES"}, "store": {"removal_policy": "DELETE"}}
    sync_profiles(_request(demo_home))
    memory = demo_home / "profiles" / "work" / "memories" / "MEMORY.md"
    entries = read_entries(memory)
    write_entries(memory, entries[1:])
    outcome = sync_profiles(_request(demo_home, options=chosen))
    assert outcome.profiles["work"].summary.removed == 1
    db = demo_home / "profiles" / "work" / "memory_store.db"
    assert query(db, "SELECT count(*) FROM facts WHERE content = ?", (entries[0].strip(),)) == [(0,)]
    assert query(db, "SELECT count(*) FROM memory_pipeline_archive") == [(0,)]


def test_a_chosen_privacy_policy_reaches_the_run(demo_home):
    """`tag` leaves a private fact at full trust with its tag; the profile's own default (`hide`)
    would drop its trust below the prefetch threshold. Only the one profile asked is synced."""
    from memory_pipeline.lib.choices import PrivacyPolicy
    from memory_pipeline.runs.options import SyncOptions
    from memory_pipeline_tests.support.store_helpers import query

    chosen = SyncOptions(privacy_policy=PrivacyPolicy.TAG)
    assert chosen.run_config() == {"privacy": {"policy": "TAG"}}
    profiles = {p.name: p for p in discover_profiles(demo_home) if p.name == "default"}
    outcome = sync_profiles(SyncRequest(home=demo_home, profiles=profiles, options=chosen))
    from memory_pipeline_tests.support.run_metadata import home_run_metadata

    assert home_run_metadata(demo_home, outcome.profiles["default"].run.run_id)["privacy_tags"]["policy"] == "tag"
    trusts = query(demo_home / "memory_store.db", "SELECT DISTINCT trust_score FROM facts WHERE tags LIKE '%private-person%'")
    assert trusts == [(0.5,)]


def test_a_keyword_list_named_for_one_sync_reaches_its_run_through_the_options(demo_home, tmp_path):
    """The list a caller names travels in the typed options to the run (nothing remembered here):
    the run judges with it, and a default sync's skip rule is not told apart by it."""
    from memory_pipeline.runs.options import SyncOptions
    from memory_pipeline_tests.support.store_helpers import query

    keywords = tmp_path / "keywords.txt"
    keywords.write_text("postmortem\n", encoding="utf-8")  # in work's On-call entry
    chosen = SyncOptions(keywords_path=str(keywords))
    assert chosen.run_config() == {"privacy": {"keywords_path": str(keywords)}} and chosen.chosen() == {}
    outcome = sync_profiles(_request(demo_home, options=chosen))
    assert all(p.run is not None and p.run.success for p in outcome.profiles.values())
    db = demo_home / "profiles" / "work" / "memory_store.db"
    tagged = query(db, "SELECT tags LIKE '%private-person%' FROM facts WHERE content LIKE '%postmortem%'")
    assert tagged == [(1,)]  # judged with the list the options named


def test_a_keyword_list_of_twenty_thousand_terms_syncs(demo_home, tmp_path):
    keywords = tmp_path / "keywords.txt"
    keywords.write_text("".join(f"Person Name{i} Surname\n" for i in range(20_000)) + "Zhang Wei\n", encoding="utf-8")
    outcome = sync_outcome(demo_home, "default", keywords_path=str(keywords))
    default = outcome.profiles["default"]
    assert outcome.run_problems == [] and default.run is not None and default.run.success
    assert default.summary.private_facts >= 1


def test_an_entry_patched_in_place_by_hand_keeps_its_fact(synced_home):
    """Current Hermes' memory tool edits with `patch` (a substring of one entry; Hermes 0.19.0,
    installed here, has no `patch`): the same change made to the file by hand. Most of the text
    goes, the label and the entry's place stay: an edit of the same fact, id kept."""
    db = synced_home / "memory_store.db"
    memory = synced_home / "memories" / "MEMORY.md"
    entries = read_entries(memory)
    label, _, body = entries[2].partition(":")
    (fact_id,) = query(db, "SELECT fact_id FROM facts WHERE content = ?", (entries[2].strip(),))[0]
    entries[2] = f"{label}: 改成每周一次，其余作废"
    assert len(set(body) & set(entries[2])) < len(set(body)) / 2  # little of the old text is left
    write_entries(memory, entries)
    result = synced_profile(synced_home)
    assert (result["added"], result["updated"], result["removed"]) == (0, 1, 0), result
    assert query(db, "SELECT content FROM facts WHERE fact_id = ?", (fact_id,)) == [(entries[2].strip(),)]


def _skipped(home, **options) -> dict[str, bool]:
    return {name: part.run is None for name, part in sync_outcome(home, **options).profiles.items()}


def test_a_file_edit_a_hermes_write_or_a_keyword_edit_is_not_skipped(synced_home, tmp_path):
    user = synced_home / "profiles" / "work" / "memories" / "USER.md"
    write_entries(user, read_entries(user) + ["Likes tea"])
    outcome = sync_outcome(synced_home)
    assert {name: p.run is None for name, p in outcome.profiles.items()} == {"default": True, "work": False}
    assert outcome.profiles["work"].summary.added == 1

    store = holographic_store(synced_home / "memory_store.db")
    try:
        store.add_fact("Hermes learnt this during a session", category="general")
    finally:
        store.close()
    assert _skipped(synced_home) == {"default": False, "work": True}

    keywords = tmp_path / "keywords.txt"
    keywords.write_text("Likes tea\n", encoding="utf-8")
    assert _skipped(synced_home, keywords_path=str(keywords)) == {"default": False, "work": False}  # another list is another setting
    assert _skipped(synced_home, keywords_path=str(keywords))["work"] is True
    keywords.write_text("Likes tea\nLikes coffee\n", encoding="utf-8")
    assert _skipped(synced_home, keywords_path=str(keywords))["work"] is False


def test_after_a_repair_judged_with_another_list_the_next_sync_judges_with_the_profiles_own(synced_home, tmp_path):
    """`audit --repair --keywords X` re-syncs with X: what that run read is recorded with X, so the
    next plain sync (Hermes' cron) runs and judges with the profile's own list again."""
    from memory_pipeline.lib.privacy.choice import Told
    from memory_pipeline.services.audit import repair_profile
    from memory_pipeline_tests.support.store_fixture import context_of

    other = tmp_path / "other.txt"
    other.write_text("nothing-here-matches\n", encoding="utf-8")
    memory = synced_home / "memories" / "MEMORY.md"
    write_entries(memory, [*read_entries(memory), "**Standup**: moved to 09:45 in room Orion"])
    context = context_of(synced_home)
    done, failed = repair_profile(context, context.judge_with(Told(keywords=str(other))), {"hashes_fresh"})
    assert done == ["re-synced pending entries"] and failed == []
    assert sync_outcome(synced_home, "default").profiles["default"].run is not None
    assert sync_outcome(synced_home, "default").profiles["default"].run is None  # and then it is in step
