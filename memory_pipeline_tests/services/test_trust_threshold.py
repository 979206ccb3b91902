"""A Holographic threshold under which Hermes itself would serve private facts fails closed: with
`min_trust_threshold: 0` Hermes 0.19.0's own prefetch serves the private contact (no trust is below
0), and `privacy_coverage` says so as an error with the setting to change, never a pass."""

from memory_pipeline.services.audit import audit_profile
from memory_pipeline_tests.support.hermes_oracle import hermes_memory
from memory_pipeline_tests.support.store_fixture import context_of
from memory_pipeline_tests.support.syncing import sync_outcome

PRIVATE = "zhang.wei@example.com"  # the demo's private USER.md entry


def _coverage(home):
    context = context_of(home)
    return next(r for r in audit_profile(context, context.judge) if r.name == "privacy_coverage")


def test_a_zero_threshold_lets_hermes_prefetch_serve_private_facts_and_the_audit_fails(synced_home):
    config = synced_home / "config.yaml"
    config.write_text("plugins:\n  hermes-memory-store:\n    min_trust_threshold: 0\n", encoding="utf-8")
    assert sync_outcome(synced_home, "default", force=True).profiles["default"].run is not None
    with hermes_memory(synced_home, {"min_trust_threshold": 0}) as hermes:
        assert PRIVATE in hermes.provider.prefetch("Zhang Wei email")  # Hermes itself serves it: no trust is below 0
    result = _coverage(synced_home)
    assert (result.passed, result.severity) == (False, "ERROR")
    assert "min_trust_threshold (0)" in result.detail and "above 0.1" in result.detail and PRIVATE not in result.detail

    config.write_text(config.read_text(encoding="utf-8").replace("min_trust_threshold: 0", "min_trust_threshold: 0.3"), encoding="utf-8")
    sync_outcome(synced_home, "default", force=True)
    assert _coverage(synced_home).passed
