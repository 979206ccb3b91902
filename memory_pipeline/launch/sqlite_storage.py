"""Dagster's SQLite instance storage, each database reached through one SQLAlchemy engine kept for
the process instead of a new engine per statement.

Dagster's SQLite storages make an engine on every connection: a sync stores ~140 events, each
through a fresh engine that connects, initialises its dialect and compiles its statements anew
(with the index's table checks below, about 30% of a one-entry sync: `benchmarks/bench_run_storage.py`). These subclasses keep
the engine (still `NullPool`: no connection is held between statements, so forks, threads and
other processes see exactly what they saw). Same files, same tables: the UI's and the daemon's default classes read what they write.
`local_instance` uses them when the instance's storage is Dagster's default SQLite one.

Opening a database Dagster already set up skips its set-up, which reads alembic's ~440 revision
scripts each time to name the newest revision (0.06 s against 0.02 s to open an instance): Dagster's own set-up
creates and stamps only a database that carries no revision, and otherwise changes nothing."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import Any, cast

from dagster._core.instance.ref import InstanceRef
from dagster._core.storage.event_log.sqlite.sqlite_event_log import (
    INDEX_SHARD_NAME,
    SQLITE_BUSY_TIMEOUT_SECONDS,
    SqliteEventLogStorage,
)
from dagster._core.storage.runs.sqlite.sqlite_run_storage import SqliteRunStorage
from dagster._core.storage.schedules.sqlite.sqlite_schedule_storage import SqliteScheduleStorage
from dagster._core.storage.sqlite import create_db_conn_string
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage, _event_logs_directory, _runs_directory, _schedule_directory
from dagster._serdes import ConfigurableClassData
from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DatabaseError
from sqlalchemy.pool import NullPool

# Each run has its own event database: the index's engine and the latest runs' are kept (a warm
# worker syncs for days; it must not keep an engine for every run it ever stored).
_RUN_ENGINES_KEPT = 8


class _Engines:
    """Engines by connection string, the least recently used let go past `kept`."""

    def __init__(self, kept: int, **engine_args: Any) -> None:
        self._kept, self._args = kept, engine_args
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, conn_string: str) -> Engine:
        with self._lock:
            engine = self._engines.pop(conn_string, None) or create_engine(conn_string, poolclass=NullPool, **self._args)
            self._engines[conn_string] = engine
            while len(self._engines) > self._kept:
                self._engines.popitem(last=False)[1].dispose()
            return engine

    def dispose(self) -> None:
        with self._lock:
            for engine in self._engines.values():
                engine.dispose()
            self._engines.clear()


def _stamped(engine: Engine, *tables: str) -> bool:
    """Whether the database carries alembic's revision (and these tables): set up already."""
    try:
        with engine.connect() as conn:
            if conn.exec_driver_sql("SELECT version_num FROM alembic_version").first() is None:
                return False
            return not tables or set(tables) <= set(inspect(conn).get_table_names())
    except DatabaseError:  # no such table (a new database), or damage: Dagster's own set-up meets it as before
        return False


@contextmanager
def _transaction(engine: Engine) -> Iterator[Connection]:
    with engine.connect() as conn, conn.begin():
        yield conn


class KeptEngineEventLogStorage(SqliteEventLogStorage):
    """`SqliteEventLogStorage`, each shard's engine kept."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None) -> None:
        self._engines = _Engines(_RUN_ENGINES_KEPT, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS})
        self._tables_found: set[str] = set()
        super().__init__(base_dir, inst_data)

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        with self._db_lock:  # as Dagster's own: the event watcher's thread shares the storage
            engine = self._engines.get(self.conn_string_for_shard(shard))
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with _transaction(engine) as conn:
                yield conn

    def _initdb(self, engine: Engine, for_index_shard: bool = False) -> None:
        if not _stamped(engine):
            super()._initdb(engine, for_index_shard)

    def has_table(self, table_name: str) -> bool:
        """Whether the index has the table. Dagster asks before most asset events it stores (~100
        times a sync), each time through a new engine; a table found stays found (migrations only
        add tables), so it is asked of the index once."""
        if table_name in self._tables_found:
            return True
        with self._engines.get(self.conn_string_for_shard(INDEX_SHARD_NAME)).connect() as conn:
            found = bool(conn.dialect.has_table(conn, table_name))
        if found:
            self._tables_found.add(table_name)
        return found

    def wipe(self) -> None:
        super().wipe()
        self._tables_found.clear()

    def dispose(self) -> None:
        super().dispose()
        self._engines.dispose()


class _OneKeptEngine:
    """A storage of one database (`_conn_string`) whose `connect` goes through one kept engine.
    With `NullPool` an engine holds no connection between statements: nothing to let go of."""

    _conn_string: str

    @cached_property
    def _engine(self) -> Engine:
        return create_engine(self._conn_string, poolclass=NullPool)

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        with _transaction(self._engine) as conn:
            yield conn


class KeptEngineRunStorage(_OneKeptEngine, SqliteRunStorage):
    """`SqliteRunStorage`, its engine kept."""

    @classmethod
    def from_local(cls, base_dir: str, inst_data: ConfigurableClassData | None = None) -> KeptEngineRunStorage:
        conn_string = create_db_conn_string(base_dir, "runs")
        if _stamped(create_engine(conn_string, poolclass=NullPool), "instance_info"):
            return cls(conn_string, inst_data)
        return super().from_local(base_dir, inst_data)


class KeptEngineScheduleStorage(_OneKeptEngine, SqliteScheduleStorage):
    """`SqliteScheduleStorage`, its engine kept."""

    @classmethod
    def from_local(cls, base_dir: str, inst_data: ConfigurableClassData | None = None) -> KeptEngineScheduleStorage:
        conn_string = create_db_conn_string(base_dir, "schedules")
        if _stamped(create_engine(conn_string, poolclass=NullPool)):
            return cls(conn_string, inst_data)
        return cast(KeptEngineScheduleStorage, super().from_local(base_dir, inst_data))


class KeptEngineSqliteStorage(DagsterSqliteStorage):
    """Dagster's default SQLite storage (runs, event logs, schedules under one base directory),
    each part keeping its engines."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None) -> None:
        self.base_dir = base_dir
        self._run_storage = KeptEngineRunStorage.from_local(_runs_directory(base_dir))
        self._event_log_storage = KeptEngineEventLogStorage(_event_logs_directory(base_dir))
        self._schedule_storage = KeptEngineScheduleStorage.from_local(_schedule_directory(base_dir))
        self._inst_data = inst_data
        super(DagsterSqliteStorage, self).__init__()

    @classmethod
    def from_config_value(cls, inst_data: ConfigurableClassData | None, config_value: Any) -> KeptEngineSqliteStorage:
        return cls.from_local(inst_data=inst_data, **config_value)


def with_kept_engines(ref: InstanceRef) -> InstanceRef:
    """The instance's reference with `KeptEngineSqliteStorage` where it names Dagster's default
    SQLite storage (configured or by default); any other storage (Postgres, a user's own) as it is."""
    data = ref.storage_data
    if data is None or (data.module_name, data.class_name) != ("dagster._core.storage.sqlite_storage", "DagsterSqliteStorage"):
        return ref
    return ref._replace(storage_data=ConfigurableClassData(__name__, KeptEngineSqliteStorage.__name__, data.config_yaml))
