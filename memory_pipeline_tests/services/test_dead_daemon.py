"""A re-tag never waits on a daemon that is gone: Dagster keeps calling a daemon healthy for 30
minutes after its last heartbeat (the UI stopped), so the pipeline reads the heartbeat itself. A
daemon whose beat is stale is not asked at all; one that beat lately but launches nothing within
moments has its backfill canceled. Either way the re-tag runs in-process, at once."""

import time

import pytest
from dagster._core.execution.backfill import BulkActionStatus
from dagster._daemon.types import DaemonHeartbeat

from memory_pipeline.cli import main
from memory_pipeline.launch import backfill
from memory_pipeline.launch.instance import local_instance


def _beat(home, age_s: float) -> None:
    instance = local_instance(home)
    instance.add_daemon_heartbeat(DaemonHeartbeat(time.time() - age_s, "BACKFILL", "a-daemon-that-stopped"))
    assert instance.get_daemon_statuses(["BACKFILL"])["BACKFILL"].healthy  # Dagster's own view: still healthy


def _backfills(home) -> list:
    return local_instance(home).get_backfills()


@pytest.mark.parametrize("age_s", [600.0, 0.0])
def test_a_retag_with_no_live_daemon_runs_in_process(capsys, synced_home, monkeypatch, age_s):
    monkeypatch.setattr(backfill, "TAKEN_WITHIN_S", 1.0)
    _beat(synced_home, age_s)
    assert main(["sync", "--hermes-home", str(synced_home), "--profile", "default", "--retag"]) == 0
    assert "default: re-tagged:" in capsys.readouterr().out
    if age_s:  # a stale beat: no backfill submitted at all
        assert _backfills(synced_home) == []
    else:  # a fresh beat, nothing launched: the backfill canceled, the Backfills view says so
        assert [b.status for b in _backfills(synced_home)] == [BulkActionStatus.CANCELED]
