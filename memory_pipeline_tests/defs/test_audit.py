"""The audit stage in real runs: one load of a profile's layers per run, the checks showing the
report's results, and checks that run without the report auditing afresh (never stale)."""

import json

import dagster as dg

from memory_pipeline.launch.execute import run_sync
from memory_pipeline.lib.store.reads.reader import StoreReader
from memory_pipeline_tests.support.store_helpers import read_entries, write_entries

SYNC_STAGES = ["parsed_entries", "hashed_entries", "ledger_diff", "extracted_facts", "fact_store"]


def _evaluations(instance, run_id) -> dict[str, dg.AssetCheckEvaluation]:
    events = instance.all_logs(run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION)
    return {e.dagster_event.event_specific_data.check_name: e.dagster_event.event_specific_data for e in events}


def _report_metadata(instance, run_id) -> dict:
    (event,) = instance.all_logs(run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)[-1:]
    materialization = event.dagster_event.event_specific_data.materialization
    assert materialization.asset_key == dg.AssetKey("audit_report")
    return {k: v.value for k, v in materialization.metadata.items()}


def _counting_loads(monkeypatch) -> list[int]:
    """Every read of a store's layers, counted (the real reader still runs)."""
    loads, real = [], StoreReader.frames
    monkeypatch.setattr(StoreReader, "frames", lambda *args: loads.append(1) or real(*args))
    return loads


def test_a_sync_run_loads_the_layers_once_and_its_checks_show_the_report(demo_home, monkeypatch):
    loads = _counting_loads(monkeypatch)
    with dg.instance_for_test() as instance:
        (run,) = run_sync(instance, demo_home, ["default"])
        assert run.success, run.error
        # One read for the report; the blocking ledger check reads the ledger alone, no layers.
        assert len(loads) == 1
        assert _report_metadata(instance, run.run_id)["layer_loads"] == 1.0
        report = json.loads((demo_home / "memory-pipeline" / "reports" / "default" / "audit.json").read_text())
        shown = {name: e.passed for name, e in _evaluations(instance, run.run_id).items()}
        reported = {c["name"]: c["passed"] for c in report["checks"]}
        assert shown == reported and len(shown) == 17


def test_checks_without_the_report_in_their_run_audit_afresh(demo_home, monkeypatch):
    with dg.instance_for_test() as instance:
        # No report stored yet at all: the checks of a partial run still run, on their own load.
        loads = _counting_loads(monkeypatch)
        (first,) = run_sync(instance, demo_home, ["default"], assets=SYNC_STAGES)
        assert first.success, first.error
        assert len(loads) == 1
        assert _evaluations(instance, first.run_id)["layer_counts"].passed
        (full,) = run_sync(instance, demo_home, ["default"])
        assert full.success, full.error
        before = _evaluations(instance, full.run_id)["layer_counts"].metadata["default/entries"].value

        memory = demo_home / "memories" / "MEMORY.md"
        write_entries(memory, read_entries(memory)[1:])
        (partial,) = run_sync(instance, demo_home, ["default"], assets=SYNC_STAGES)
        assert partial.success, partial.error
        # The stored report is the full run's: the partial run's checks judged the files as they are now.
        after = _evaluations(instance, partial.run_id)["layer_counts"]
        assert after.passed and after.metadata["default/entries"].value == before - 1
        assert after.metadata["profile"].value == "default"  # each profile's series its own in the UI
