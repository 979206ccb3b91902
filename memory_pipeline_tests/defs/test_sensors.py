import json
import os
import time

import dagster as dg

from memory_pipeline import environment
from memory_pipeline.context.home import keyword_lists
from memory_pipeline.defs.backfills import RETAG_ASSETS, RETAG_TAG, retag_in_progress, submit_retag_backfill
from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.resources import HermesHomeResource, PrivacyResource
from memory_pipeline.defs.sensors import memory_files_sensor, privacy_keywords_sensor, profile_discovery_sensor
from memory_pipeline.launch.execute import run_sync
from memory_pipeline.lib.files.digest_key import digest_key
from memory_pipeline.lib.privacy.choice import Told, lists_digest
from memory_pipeline_tests.support.store_helpers import query

TERM = "atlas"  # stands in for a private term: it occurs in facts of both demo profiles


def _stores(home):
    return {"default": home / "memory_store.db", "work": home / "profiles" / "work" / "memory_store.db"}


def _facts(db):
    # updated_at moves when a tag moves; everything else must come back exactly
    return {r[0]: r[1:] for r in query(db, "SELECT fact_id, content, category, tags, trust_score, hrr_vector FROM facts")}


def _links(db):
    return sorted(query(db, "SELECT fe.fact_id, e.name FROM fact_entities fe JOIN entities e USING (entity_id)"))


def _evaluate(instance, home, keywords, cursor):
    # `with`: the hermes resource is a context manager (a run holds the profile's sync lock).
    with dg.build_sensor_context(
        instance=instance,
        cursor=cursor,
        resources={"hermes": HermesHomeResource(hermes_home=str(home)), "privacy": PrivacyResource(keywords_path=str(keywords))},
    ) as context:
        return privacy_keywords_sensor(context)


def _backfill(result) -> dict[str, set[str]]:
    """The one request a changed list yields: a backfill (not a run), by asset its profiles."""
    (request,) = result.run_requests
    assert request.requires_backfill_daemon() and request.tags[RETAG_TAG] == json.loads(result.cursor)["digest"][:16]
    subset = request.asset_graph_subset
    return {key.to_user_string(): set(subset.get_partitions_subset(key).get_partition_keys()) for key in subset.asset_keys}


def _run_requests(instance, home, keywords, result):
    """Carry the backfill's partitions out in-process, one run each, as the backfill daemon would
    (the UI end-to-end test has the real daemon do it)."""
    runs = []
    for profile in sorted(_backfill(result)["privacy_tags"]):
        (run,) = run_sync(
            instance,
            home,
            [profile],
            resource_config={"privacy": {"keywords_path": str(keywords)}},
            assets=[a.to_user_string() for a in RETAG_ASSETS],
        )
        assert run.success, run.error
        runs.append(run)
    return runs


def _event_log_text(instance, runs):
    return "\n".join(json.dumps(str(e), ensure_ascii=False) for r in runs for e in instance.all_logs(r.run_id))


def test_keyword_list_change_retags_every_profile_and_back(demo_home, tmp_path):
    keywords = tmp_path / "keywords.txt"
    keywords.write_text("# the user's private terms\n张伟\n", encoding="utf-8")
    stores = _stores(demo_home)
    with dg.instance_for_test() as instance:
        first = run_sync(instance, demo_home, ["default", "work"], resource_config={"privacy": {"keywords_path": str(keywords)}})
        assert all(r.success for r in first)
        result = _evaluate(instance, demo_home, keywords, None)
        assert result.run_requests == []  # the first look only records the list: the syncs tagged with it
        (observed,) = result.asset_events  # …and observes it, so the UI never says "never observed"
        assert observed.asset_key == dg.AssetKey("privacy_keywords") and observed.tags["dagster/data_version"] in result.cursor
        assert "张伟" not in str(observed.metadata)
        cursor = result.cursor
        before = {p: (_facts(db), _links(db)) for p, db in stores.items()}
        assert _evaluate(instance, demo_home, keywords, cursor).skip_message == "privacy keyword list unchanged"

        keywords.write_text(f"# the user's private terms\n张伟\n{TERM}\n", encoding="utf-8")
        added = _evaluate(instance, demo_home, keywords, cursor)
        assert _backfill(added) == {a.to_user_string(): {"default", "work"} for a in RETAG_ASSETS}
        assert added.cursor != cursor and TERM not in added.cursor
        assert [e.tags["dagster/data_version"] for e in added.asset_events] == [json.loads(added.cursor)["digest"]]
        runs = _run_requests(instance, demo_home, keywords, added)
        for profile, db in stores.items():
            facts, _ = before[profile]
            matching = {i for i, (content, *_rest) in facts.items() if TERM in content.lower()}
            assert matching, profile
            now = _facts(db)
            for fact_id, row in now.items():
                if fact_id in matching:
                    assert "private-person" in row[2].split(",")
                    assert query(
                        db, "SELECT e.name FROM fact_entities fe JOIN entities e USING (entity_id) WHERE fe.fact_id = ?", (fact_id,)
                    ) == [("private-person",)]
                else:
                    assert row == facts[fact_id], "no other fact changes"
        assert TERM not in _event_log_text(instance, runs).lower()

        keywords.write_text("# the user's private terms\n张伟\n", encoding="utf-8")
        removed = _evaluate(instance, demo_home, keywords, added.cursor)
        _run_requests(instance, demo_home, keywords, removed)
        for profile, db in stores.items():
            assert (_facts(db), _links(db)) == before[profile], "untagging restores tags, links and vectors"


def test_a_retag_the_cli_submitted_since_the_list_changed_is_not_launched_again(demo_home, tmp_path):
    keywords = tmp_path / "keywords.txt"
    keywords.write_text("张伟\n", encoding="utf-8")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(hermes_profiles.name, ["default", "work"])
        cursor = _evaluate(instance, demo_home, keywords, None).cursor
        keywords.write_text(f"张伟\n{TERM}\n", encoding="utf-8")
        lists = keyword_lists(demo_home, Told(keywords=str(keywords)))
        digest = lists_digest(lists, digest_key(environment.data_dir(demo_home)))
        # An older `sync --retag` of the same version (the list went A → B → A) does not count...
        submit_retag_backfill(instance, ["default", "work"], digest, {})
        time.sleep(0.01)
        later = json.dumps({**json.loads(cursor), "at": time.time()})
        assert _backfill(_evaluate(instance, demo_home, keywords, later))["privacy_tags"] == {"default", "work"}
        # ...one submitted after the sensor last recorded the list does: no second backfill.
        cli = submit_retag_backfill(instance, ["default", "work"], digest, {})
        skipped = _evaluate(instance, demo_home, keywords, later)
        assert skipped.run_requests == [] and skipped.skip_reason.skip_message == f"already re-tagged by `sync --retag` (backfill {cli})"
        assert json.loads(skipped.cursor)["digest"] == digest  # and the sensor moves on to this version
        # `sync --retag` waits for an identical backfill still running instead of submitting one.
        assert retag_in_progress(instance, digest, ["work"]) in {b.backfill_id for b in instance.get_backfills()}
        assert retag_in_progress(instance, digest, ["work", "research"]) is None  # covers no such profile
        assert retag_in_progress(instance, "0" * 64, ["work"]) is None  # another version of the list


def _files_sensor(instance, home, cursor):
    with dg.build_sensor_context(
        instance=instance, cursor=cursor, resources={"hermes": HermesHomeResource(hermes_home=str(home))}
    ) as context:
        return memory_files_sensor(context)


def test_file_sensor_requests_exactly_the_changed_profile_by_hash_not_mtime(demo_home):
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(hermes_profiles.name, ["default", "work"])
        first = _files_sensor(instance, demo_home, None)
        assert sorted(r.partition_key for r in first.run_requests) == ["default", "work"]  # never seen: sync once
        quiet = _files_sensor(instance, demo_home, first.cursor)
        assert quiet.run_requests == [] and quiet.skip_reason.skip_message == "memory files unchanged"

        user = demo_home / "profiles" / "work" / "memories" / "USER.md"
        os.utime(user, (time.time() + 100, time.time() + 100))  # touched, not changed
        assert _files_sensor(instance, demo_home, quiet.cursor).run_requests == []

        original = user.read_bytes()
        user.write_bytes(original + "\n§\nPrefers short answers".encode())
        changed = _files_sensor(instance, demo_home, quiet.cursor)
        assert [r.partition_key for r in changed.run_requests] == ["work"]
        user.write_bytes(original)  # back to the earlier content: a change again, with a fresh run key
        back = _files_sensor(instance, demo_home, changed.cursor)
        assert [r.partition_key for r in back.run_requests] == ["work"]
        assert back.run_requests[0].run_key not in {r.run_key for r in first.run_requests + changed.run_requests}


def _discover(instance, home) -> list[str]:
    """One evaluation of the discovery sensor, its partition request applied as the daemon would."""
    with dg.build_sensor_context(instance=instance, resources={"hermes": HermesHomeResource(hermes_home=str(home))}) as context:
        result = profile_discovery_sensor(context)
    if isinstance(result, dg.SkipReason):
        return []
    added = [key for request in result.dynamic_partitions_requests for key in request.partition_keys]
    instance.add_dynamic_partitions(hermes_profiles.name, added)
    return added


def test_discovery_adds_a_new_profile_once(demo_home):
    with dg.instance_for_test() as instance:
        assert _discover(instance, demo_home) == ["default", "work"]
        assert _discover(instance, demo_home) == []
        (demo_home / "profiles" / "research" / "memories").mkdir(parents=True)
        (demo_home / "profiles" / "Not A Profile").mkdir()
        assert _discover(instance, demo_home) == ["research"]
        assert _discover(instance, demo_home) == []
        assert instance.get_dynamic_partitions(hermes_profiles.name) == ["default", "work", "research"]


def test_a_daemon_run_is_recorded_so_the_next_tick_skips_the_profile(demo_home):
    """A run as the schedule requests it (default settings, config.yaml's digest as a tag), then
    `sync_recorded_sensor` on its success: the skip rule now finds the profile unchanged."""
    import shutil

    from memory_pipeline.defs.sensors import sync_recorded_sensor
    from memory_pipeline.launch.execute import resources_config, sync_job
    from memory_pipeline.launch.instance import local_instance
    from memory_pipeline.lib.hermes.profiles import Profile
    from memory_pipeline.lib.sync.state import config_digest
    from memory_pipeline.runs.skip_rule import CONFIG_TAG, unchanged_since_last_sync

    shutil.rmtree(demo_home / "profiles")
    profile = Profile("default", demo_home)
    instance = local_instance(demo_home)
    instance.add_dynamic_partitions(hermes_profiles.name, ["default"])
    tags = {"dagster/partition": "default", CONFIG_TAG: config_digest(profile, environment.data_dir(demo_home))}
    with dg.execute_job(dg.reconstructable(sync_job), instance, run_config=resources_config(demo_home, {}), tags=tags) as result:
        assert result.success
        run_id = result.run_id
    (success,) = instance.all_logs(run_id, of_type=dg.DagsterEventType.RUN_SUCCESS)
    event = success.dagster_event
    assert not unchanged_since_last_sync(demo_home, profile)  # nothing recorded yet
    context = dg.build_run_status_sensor_context(
        sensor_name="sync_recorded_sensor",
        dagster_instance=instance,
        dagster_run=instance.get_run_by_id(run_id),
        dagster_event=event,
        resources={"hermes": HermesHomeResource(hermes_home=str(demo_home))},
    )
    with context:
        sync_recorded_sensor(context)
    assert unchanged_since_last_sync(demo_home, profile)
