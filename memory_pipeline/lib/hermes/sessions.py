"""What Hermes' session store (`state.db` in a profile's home) shows of its memory tool: the
entries the agent added (`memory` calls with `action: add`, alone or in a batch's `operations`),
each as (file, SHA-256 of its text).
Holographic mirrors exactly those additions as facts, so a mirror row whose text the agent added
was an entry, even when it was edited or removed before a sync saw it and no plugin journaled it
(a cron-only setup).

Read-only and bounded: the newest `_CALLS` assistant messages that called a tool named `memory`;
a store that is missing, busy, damaged or of another shape gives nothing (the other evidence
still holds). The text is hashed here and never kept.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from memory_pipeline.lib.hermes.hashing import entry_sha256

STATE_DB = "state.db"
_CALLS = 20_000  # the newest messages read: a long-lived store is not scanned whole on every sync
_TARGETS = {"memory": "memory", "user": "user"}


def memory_additions(profile_home: Path) -> frozenset[tuple[str, str]]:
    """(source, SHA-256) of every entry text the profile's agent added through Hermes' memory tool,
    as its session store records the calls; empty when the store cannot be read."""
    path = profile_home / STATE_DB
    if not path.is_file():
        return frozenset()
    try:
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=1)
        try:
            rows = conn.execute(
                """SELECT tool_calls FROM messages WHERE role = 'assistant' AND tool_calls LIKE '%memory%'
                   ORDER BY id DESC LIMIT ?""",
                (_CALLS,),
            ).fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return frozenset()
    found: set[tuple[str, str]] = set()
    for (raw,) in rows:
        for arguments in _memory_calls(raw):
            target = _TARGETS.get(str(arguments.get("target") or "memory"))
            operations = arguments.get("operations")  # a batch call: each of its operations, as Hermes mirrors them
            for op in operations if isinstance(operations, list) and operations else [arguments]:
                content = op.get("content") if isinstance(op, dict) else None
                if isinstance(op, dict) and op.get("action") == "add" and isinstance(content, str) and content.strip() and target:
                    found.add((target, entry_sha256(content.strip())))
    return frozenset(found)


def _memory_calls(raw: object) -> list[dict[str, Any]]:
    """The arguments of each `memory` call in a message's `tool_calls` (OpenAI's shape: a list of
    `{"function": {"name", "arguments"}}`, the arguments a JSON text or an object)."""
    try:
        calls = json.loads(raw) if isinstance(raw, str) else []
    except ValueError:
        return []
    found = []
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or function.get("name") != "memory":
            continue
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                continue
        if isinstance(arguments, dict):
            found.append(arguments)
    return found
