"""The agent's MCP server (`memory-pipeline mcp`): what the pipeline keeps, over stdio, read-only.

Three tools, on the official `mcp` SDK: `search_memory` (the trigram index, which finds Chinese,
Japanese and Korean substrings Hermes' own `fact_store` cannot), `get_facts` (what a
`fact_store#N` pointer in MEMORY.md names) and `memory_status`. Stores are opened read-only, so
it answers while a sync or Hermes writes and never takes a write lock. Private facts are withheld
(and counted) unless the user started the server with `--include-private`; the model cannot ask
for them. Imports neither Dagster nor pandas.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError

from memory_pipeline import environment
from memory_pipeline.lib.hermes.profiles import Profile, discover_profiles
from memory_pipeline.lib.store.database import StoreError
from memory_pipeline.lib.store.fact_search import SearchError
from memory_pipeline.services.reading import Found, facts_of_profile, search_profiles

SERVER_NAME = "memory-pipeline"
_MAX_LIMIT = 50

SEARCH_HELP = """Search what this user's Hermes memory keeps (every fact synced from MEMORY.md and USER.md,
and Hermes' own facts) for a substring, case-insensitive. Use it when fact_store finds nothing for
Chinese, Japanese or Korean words inside a sentence (fact_store cannot split them), or for any
exact phrase, name, path or number. Current facts come before retired ones (an entry the user
removed). Returns profile, fact_id, content, category, tags, retired and score per fact."""
FACTS_HELP = """Get facts by id: what a `fact_store#N` pointer in MEMORY.md or USER.md names (the entry
was shortened there; the fact keeps its full text). Pass every N of a pointer like fact_store#16/27/33."""
STATUS_HELP = """Per profile: entries and cap use of MEMORY.md and USER.md, facts current and retired, the
last sync and the checks not passing. Use it to tell whether memory is in step before relying on it."""


class MemoryServer:
    """The tools' logic over one Hermes home (or one of its profiles)."""

    def __init__(self, home: Path, profile: str | None = None, include_private: bool = False):
        self.home, self.profile, self.include_private = home, profile, include_private

    def profiles(self, name: str | None = None) -> list[Profile]:
        known = discover_profiles(self.home)
        chosen = name or self.profile
        if chosen is None:
            return known
        if self.profile is not None and chosen != self.profile:
            raise ToolError(f"this server serves profile {self.profile!r} only")
        found = [p for p in known if p.name == chosen]
        if not found:
            raise ToolError(f"no profile named {chosen!r} (profiles: {', '.join(p.name for p in known) or 'none'})")
        return found

    def _withheld(self, found: Found) -> dict:
        return {"withheld_private": found.withheld_private, "withheld_not_yet_synced": found.withheld_unjudged}

    def search_memory(self, query: str, profile: str | None = None, limit: int = 10) -> dict:
        try:
            found = search_profiles(
                self.profiles(profile),
                query,
                limit=max(1, min(int(limit), _MAX_LIMIT)),
                include_private=self.include_private,
                refresh_index=False,
            )
        except (SearchError, StoreError) as exc:
            raise ToolError(str(exc)) from None
        return {"results": found.facts, **self._withheld(found), "profiles_never_synced": found.without_store}

    def get_facts(self, fact_ids: list[int], profile: str | None = None) -> dict:
        profiles = self.profiles(profile)
        if len(profiles) > 1:
            raise ToolError(f"fact ids are per profile: name one of {', '.join(p.name for p in profiles)}")
        (chosen,) = profiles
        try:
            found = facts_of_profile(chosen, fact_ids, include_private=self.include_private)
        except StoreError as exc:
            raise ToolError(str(exc)) from None
        if found.without_store:
            raise ToolError(f"profile {chosen.name} has no fact store yet (run `memory-pipeline sync`)")
        return {"profile": chosen.name, "facts": found.facts, "withheld": found.withheld_ids, "not_found": found.missing_ids}

    def memory_status(self) -> dict:
        from memory_pipeline.services.status import profile_status  # numpy and the audit's reader: only when asked

        fields = ("profile", "entries", "cap_usage_pct", "current_facts", "retired_facts", "last_sync", "failing_checks", "store_error")
        return {
            "profiles": [
                {k: status[k] for k in fields} for status in (profile_status(environment.data_dir(self.home), p) for p in self.profiles())
            ]
        }


def build_server(home: Path, profile: str | None = None, include_private: bool = False) -> FastMCP:
    memory = MemoryServer(home, profile, include_private)
    with warnings.catch_warnings():
        # pydantic-settings warns about the SDK's own settings model on every start; nothing of ours.
        warnings.filterwarnings("ignore", message=".*has an incomplete definition")
        server = FastMCP(SERVER_NAME, log_level="WARNING")

    @server.tool(description=SEARCH_HELP)
    def search_memory(query: str, profile: str | None = None, limit: int = 10) -> dict:
        return memory.search_memory(query, profile, limit)

    @server.tool(description=FACTS_HELP)
    def get_facts(fact_ids: list[int], profile: str | None = None) -> dict:
        return memory.get_facts(fact_ids, profile)

    @server.tool(description=STATUS_HELP)
    def memory_status() -> dict:
        return memory.memory_status()

    return server
