"""The status service as a service: a profile's files and store, and which profiles share it."""

from memory_pipeline.services.status import profile_status
from memory_pipeline_tests.support.store_fixture import context_of


def test_status_of_a_synced_profile(synced_home):
    status = profile_status(context_of(synced_home))
    assert status["entries"] == {"memory": 18, "user": 5} and status["chars"]["memory"] == [2078, 2200]
    assert status["facts"] == 23 and status["current_facts"] == 23 and status["store_shared_with"] == []
    assert status["switched_off"] == {} and status["last_sync"] and status["failing_checks"] == ["cap_usage (WARN)"]
