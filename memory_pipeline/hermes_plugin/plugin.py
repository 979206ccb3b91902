"""memory-pipeline inside Hermes: a `memory_search` tool and a `pre_llm_call` hook over the
pipeline's trigram index in this profile's `memory_store.db`.

Installed (and updated in place) by `memory-pipeline hermes-plugin install`, which copies this
file as `__init__.py` and the index's reader as `fact_search.py` beside it. It runs inside
Hermes' own process, where memory-pipeline is not installed: the standard library and what Hermes
itself depends on only. The store is opened read-only; a fact goes to the agent only when the
pipeline's privacy stage judged it not private, and the hook never raises into Hermes.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from pathlib import Path

from .fact_search import SearchError, message_facts, search

logger = logging.getLogger(__name__)

TOOLSET = "memory_pipeline"
# What the hook adds to a turn at most: a few facts, a few hundred characters.
HOOK_FACTS, HOOK_CHARS = 3, 600
SEARCH_SCHEMA = {
    "name": "memory_search",
    "description": (
        "Search this user's memory (facts synced from MEMORY.md and USER.md, and your own facts) for a substring, "
        "case-insensitive. Use it when fact_store finds nothing for Chinese, Japanese or Korean words inside a "
        "sentence, or for an exact phrase, name, path or number. Current facts come before retired ones."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "the substring to find (2 characters or more)"},
            "limit": {"type": "integer", "description": "at most this many facts (default 10)", "minimum": 1, "maximum": 50},
        },
        "required": ["query"],
    },
}
_said: set[str] = set()


def _hermes_home() -> Path:
    try:
        from hermes_constants import get_hermes_home  # Hermes' own resolution (profiles included)

        return Path(get_hermes_home())
    except ImportError:
        return Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes")


def _store_path() -> Path:
    """The profile's store as Holographic finds it: `plugins.hermes-memory-store.db_path`, else
    `memory_store.db` in the profile's home."""
    home = _hermes_home()
    try:
        import yaml

        config = yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8-sig")) or {}
        path = ((config.get("plugins") or {}).get("hermes-memory-store") or {}).get("db_path")
    except Exception:  # noqa: BLE001 - an unreadable or odd config: Holographic's default, as Holographic does
        path = None
    if not isinstance(path, str) or not path.strip():
        return home / "memory_store.db"
    return Path(os.path.expanduser(path.replace("${HERMES_HOME}", str(home)).replace("$HERMES_HOME", str(home))))


def _connect(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no fact store yet (run `memory-pipeline sync`)")
    return sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=5)


def _once(problem: str) -> None:
    if problem not in _said:
        _said.add(problem)
        logger.warning("memory-pipeline plugin: %s", problem)


def memory_search(args: dict, **_: object) -> str:
    path = _store_path()
    try:
        limit = max(1, min(int(args.get("limit") or 10), 50))
        conn = _connect(path)
        try:
            found = search(conn, str(args.get("query") or ""), limit=limit, judged_only=True)
        finally:
            conn.close()
    except (SearchError, ValueError, TypeError) as exc:
        return json.dumps({"error": str(exc)})
    except (OSError, sqlite3.Error) as exc:
        return json.dumps({"error": f"{path}: {exc} (run `memory-pipeline sync`)"})
    return json.dumps(
        {"results": found.facts, "withheld_private": found.hidden_private, "withheld_not_yet_synced": found.unjudged}, ensure_ascii=False
    )


def recall(user_message: str | None = None, **_: object) -> dict | None:
    """`pre_llm_call`: the facts a Chinese, Japanese or Korean message names, for this turn only."""
    try:
        conn = _connect(_store_path())
        try:
            facts = message_facts(conn, user_message or "", limit=HOOK_FACTS, max_chars=HOOK_CHARS)
        finally:
            conn.close()
    except Exception as exc:  # noqa: BLE001 - a hook must never break a turn: silence, and one log line
        _once(f"{type(exc).__name__}: {exc}")
        return None
    if not facts:
        return None
    lines = "\n".join(f"- {f['content']} (fact_store#{f['fact_id']})" for f in facts)
    return {"context": f"From your memory (memory-pipeline), facts this message names:\n{lines}"}


def register(ctx) -> None:
    ctx.register_tool(
        name="memory_search",
        toolset=TOOLSET,
        schema=SEARCH_SCHEMA,
        handler=memory_search,
        description=SEARCH_SCHEMA["description"],
        emoji="🔎",
    )
    ctx.register_hook("pre_llm_call", recall)
