"""The catalog Holographic: a store whose schema goes beyond hermes-agent 0.19.0's is written by
column name (its added columns keep their defaults) and named in each run's metadata; a column
no write can fill is refused with one line; `scope: user` is said by every command and never
synced into a store the agent does not read."""

import sqlite3

from memory_pipeline.cli import main
from memory_pipeline.launch.execute import run_sync
from memory_pipeline.launch.instance import local_instance
from memory_pipeline.lib.store.schema.database import HOLOGRAPHIC_SCHEMA
from memory_pipeline_tests.support.hermes_oracle import holographic_retriever, holographic_store
from memory_pipeline_tests.support.run_metadata import run_metadata
from memory_pipeline_tests.support.store_helpers import query, said, table_checksums


def test_added_columns_keep_their_defaults_and_the_run_names_the_schema(demo_home):
    db = demo_home / "memory_store.db"
    store = holographic_store(db)  # Hermes 0.19.0 makes the store
    store.add_fact("The agent's own note from a catalog Holographic", category="general")
    store.close()
    with sqlite3.connect(db) as conn:  # what an additive newer schema adds
        conn.execute("ALTER TABLE facts ADD COLUMN user_scope TEXT DEFAULT 'global'")
        conn.execute("CREATE TABLE holographic_meta (key TEXT PRIMARY KEY, value TEXT)")
    instance = local_instance(demo_home)
    try:
        (run,) = run_sync(instance, demo_home, ["default"])
        schema = run_metadata(instance, run.run_id)["fact_store"]["holographic_schema"]
    finally:
        instance.dispose()
    assert run.success, run.error
    assert "columns facts.user_scope" in schema and "tables holographic_meta" in schema
    assert query(db, "SELECT DISTINCT user_scope FROM facts WHERE tags LIKE '%synced-from-memory%'") == [("global",)]
    # Hermes 0.19.0 still reads what the pipeline wrote.
    store = holographic_store(db)
    try:
        assert holographic_retriever(store).search("Suno", limit=5)
    finally:
        store.close()


def test_a_column_no_write_can_fill_is_refused_in_one_line(capsys, demo_home):
    db = demo_home / "memory_store.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(HOLOGRAPHIC_SCHEMA.replace("hrr_vector      BLOB", "hrr_vector      BLOB,\n    owner_id        TEXT NOT NULL"))
    before = table_checksums(db)
    assert main(["sync", "--hermes-home", str(demo_home), "--profile", "default"]) == 1
    lines = said(capsys.readouterr().err)
    refusal = [line for line in lines if "facts.owner_id" in line]
    assert len(refusal) == 1 and "has no default" in refusal[0] and "nothing was written" in refusal[0]
    assert table_checksums(db) == before


def test_scope_user_is_said_by_every_command_and_never_synced(capsys, demo_home):
    (demo_home / "config.yaml").write_text("plugins:\n  hermes-memory-store:\n    scope: user\n", encoding="utf-8")
    users = demo_home / "holographic-users"
    users.mkdir()
    for name in ("alice", "bob"):
        holographic_store(users / f"{name}.db").close()
    before = {p.name: table_checksums(p) for p in users.iterdir() if p.suffix == ".db"}
    for command in (["sync"], ["status"], ["audit"], ["search", "NAS"]):
        main([*command, "--hermes-home", str(demo_home)])
        err = capsys.readouterr().err
        (note,) = [line for line in err.splitlines() if "one store per user" in line]
        assert "2 per-user stores" in note and "(alice, bob)" in note and "not synced" in note, command
    assert not (demo_home / "memory_store.db").exists()  # the main store, which the agent does not read, is not written
    assert (demo_home / "profiles" / "work" / "memory_store.db").exists()  # the other profile is synced as ever
    assert {p.name: table_checksums(p) for p in users.iterdir() if p.suffix == ".db"} == before
