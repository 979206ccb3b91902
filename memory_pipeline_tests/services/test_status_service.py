"""The status service as a service: a profile's files and store, and which profiles share it."""

from memory_pipeline import environment
from memory_pipeline.lib.hermes.profiles import discover_profiles, get_profile
from memory_pipeline.services.status import profile_status


def test_status_of_a_synced_profile(synced_home):
    profile = get_profile(synced_home, "default")
    status = profile_status(environment.data_dir(synced_home), profile, discover_profiles(synced_home))
    assert status["entries"] == {"memory": 18, "user": 5} and status["chars"]["memory"] == [2078, 2200]
    assert status["facts"] == 23 and status["current_facts"] == 23 and status["store_shared_with"] == []
    assert status["switched_off"] == {} and status["last_sync"] and status["failing_checks"] == ["cap_usage (WARN)"]
