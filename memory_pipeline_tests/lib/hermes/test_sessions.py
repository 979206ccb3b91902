"""Hermes' session store read for the memory tool's additions: only `add` calls of the `memory`
tool count, and a store that is missing, damaged or of another shape gives nothing."""

import json

from hermes_state import SessionDB

from memory_pipeline.lib.hermes.hashing import entry_sha256
from memory_pipeline.lib.hermes.sessions import memory_additions


def test_only_the_memory_tools_additions_count(tmp_path):
    sessions = SessionDB(db_path=tmp_path / "state.db")
    try:
        sessions.create_session("s", "cli")
        for number, (name, arguments) in enumerate(
            [
                ("memory", {"action": "add", "target": "user", "content": "  Prefers tea  "}),
                ("memory", {"action": "remove", "target": "memory", "old_text": "door"}),
                ("fact_store", {"action": "add", "content": "An agent's own fact"}),
                ("memory", {"action": "add", "content": "No target: MEMORY.md, as Hermes defaults"}),
                ("memory", {"action": "batch", "target": "user", "operations": [{"action": "add", "content": "In a batch"}, "odd"]}),
            ]
        ):
            call = {"id": f"c{number}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
            sessions.append_message("s", "assistant", tool_calls=[call])
        sessions.append_message("s", "assistant", content="memory is not a call")
    finally:
        sessions.close()
    assert memory_additions(tmp_path) == {
        ("user", entry_sha256("Prefers tea")),
        ("memory", entry_sha256("No target: MEMORY.md, as Hermes defaults")),
        ("user", entry_sha256("In a batch")),
    }


def test_a_missing_damaged_or_foreign_store_gives_nothing(tmp_path):
    assert memory_additions(tmp_path) == frozenset()
    (tmp_path / "state.db").write_bytes(b"not a database at all" * 100)
    assert memory_additions(tmp_path) == frozenset()
    (tmp_path / "state.db").unlink()
    import sqlite3

    with sqlite3.connect(tmp_path / "state.db") as conn:
        conn.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, role TEXT, tool_calls TEXT)")
        conn.execute(
            'INSERT INTO messages (role, tool_calls) VALUES (\'assistant\', \'[{"function": {"name": "memory", "arguments": "{bad"}}]\')'
        )
    assert memory_additions(tmp_path) == frozenset()
