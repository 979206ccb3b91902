"""The pipeline's runs store Dagster's events through kept engines, in the files and tables
Dagster's default SQLite storage reads: what a sync stored, the UI and the daemon see."""

import sqlite3

import dagster as dg
import yaml
from dagster._core.instance.ref import InstanceRef
from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage

from memory_pipeline import environment
from memory_pipeline.launch.instance import local_instance
from memory_pipeline.launch.sqlite_storage import (
    KeptEngineEventLogStorage,
    KeptEngineRunStorage,
    KeptEngineScheduleStorage,
    with_kept_engines,
)
from memory_pipeline_tests.support.syncing import sync_outcome


def test_a_sync_through_kept_engines_is_read_by_dagsters_own_storage(synced_home):
    instance = local_instance(synced_home)
    assert isinstance(instance.event_log_storage, KeptEngineEventLogStorage)
    assert isinstance(instance.run_storage, KeptEngineRunStorage)
    assert isinstance(instance.schedule_storage, KeptEngineScheduleStorage)
    memory = synced_home / "memories" / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8") + "\n§\nThe nightly build runs on two cores.", encoding="utf-8")
    run = sync_outcome(synced_home, "default").profiles["default"].run
    assert run is not None and run.success

    # The UI's and the daemon's instance: Dagster's default classes over the same directory.
    theirs = dg.DagsterInstance.from_config(str(environment.dagster_home(synced_home)))
    assert type(theirs.event_log_storage).__name__ == "SqliteEventLogStorage"
    record = theirs.get_run_record_by_id(run.run_id)
    assert record is not None and record.dagster_run.status == dg.DagsterRunStatus.SUCCESS
    events = theirs.all_logs(run.run_id)
    assert any(e.dagster_event and e.dagster_event.event_type == dg.DagsterEventType.RUN_SUCCESS for e in events)
    materialized = theirs.fetch_materializations(dg.AssetKey("fact_store"), limit=10).records
    assert run.run_id in {m.run_id for m in materialized}


def test_only_dagsters_default_sqlite_storage_is_replaced(tmp_path):
    def ref(config: dict) -> InstanceRef:
        (tmp_path / "dagster.yaml").write_text(yaml.safe_dump(config))
        return InstanceRef.from_dir(str(tmp_path))

    for config in ({}, {"storage": {"sqlite": {"base_dir": str(tmp_path / "s")}}}):
        kept = with_kept_engines(ref(config))
        assert kept.storage_data.class_name == "KeptEngineSqliteStorage"
        assert kept.storage_data.config_yaml == ref(config).storage_data.config_yaml
    postgres = ref({"storage": {"postgres": {"postgres_url": "postgresql://u:p@db/dagster"}}})
    assert with_kept_engines(postgres) == postgres


def test_each_database_keeps_one_engine_and_only_the_latest_runs_are_kept(tmp_path):
    for single in (KeptEngineRunStorage.from_local(str(tmp_path / "runs")), KeptEngineScheduleStorage.from_local(str(tmp_path / "s"))):
        with single.connect() as conn:
            first = conn.engine
        with single.connect() as conn:
            assert conn.engine is first
    storage = KeptEngineEventLogStorage(str(tmp_path))
    with storage.index_connection() as conn:
        first = conn.engine
    with storage.index_connection() as conn:
        assert conn.engine is first
    engines = set()
    for n in range(20):
        with storage.run_connection(f"run{n}") as conn:
            engines.add(conn.engine)
    assert len(engines) == 20
    assert len(storage._engines._engines) <= 8  # a long-lived worker does not keep one per run
    storage.dispose()


def test_a_table_of_the_index_is_found_once_and_a_missing_one_asked_again(tmp_path):
    storage = KeptEngineEventLogStorage(str(tmp_path))
    assert storage.has_table("asset_keys") and not storage.has_table("no_such_table")
    with storage.index_connection() as conn:
        conn.exec_driver_sql("CREATE TABLE no_such_table (x INTEGER)")
    assert storage.has_table("no_such_table")  # a migration adds a table: it is seen
    assert storage._tables_found >= {"asset_keys", "no_such_table"}
    storage.dispose()


def _revision(path) -> list:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT version_num FROM alembic_version").fetchall()


def test_a_database_dagster_set_up_opens_as_it_is_and_any_other_is_set_up_by_dagster(tmp_path):
    """A new database, one without alembic's revision and one missing a table Dagster adds at
    set-up go through Dagster's own set-up; one set up already opens without reading alembic's
    scripts, and reads as Dagster's default storage reads it."""
    KeptEngineRunStorage.from_local(str(tmp_path / "runs"))
    KeptEngineScheduleStorage.from_local(str(tmp_path / "schedules"))
    events = KeptEngineEventLogStorage(str(tmp_path / "events"))
    files = [tmp_path / "runs" / "runs.db", tmp_path / "schedules" / "schedules.db", tmp_path / "events" / "index.db"]
    heads = [_revision(f) for f in files]
    assert all(len(head) == 1 for head in heads)  # stamped by Dagster's set-up
    assert KeptEngineRunStorage.from_local(str(tmp_path / "runs")).get_runs() == []
    with sqlite3.connect(files[0]) as conn:
        conn.execute("DROP TABLE instance_info")
    KeptEngineRunStorage.from_local(str(tmp_path / "runs"))
    with sqlite3.connect(files[0]) as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'instance_info'").fetchone() == (1,)
    events.dispose()
    with sqlite3.connect(files[2]) as conn:
        conn.execute("DELETE FROM alembic_version")
    reopened = KeptEngineEventLogStorage(str(tmp_path / "events"))
    with reopened.index_connection():
        pass
    assert _revision(files[2]) == heads[2]  # stamped again, as Dagster stamps it
    reopened.dispose()
    assert SqliteEventLogStorage(str(tmp_path / "events")).has_table("asset_keys")
