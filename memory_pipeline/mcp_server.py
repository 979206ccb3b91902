"""The agent's MCP server (`memory-pipeline mcp`): what the pipeline keeps, over stdio, read-only.

Four tools, on the protocol of `lib/tool_server`: `search_memory` (the trigram index, which finds Chinese,
Japanese and Korean substrings Hermes' own `fact_store` cannot), `get_facts` (what a
`fact_store#N` pointer in MEMORY.md names), `why_fact` and `memory_status`. Stores are opened read-only, so
it answers while a sync or Hermes writes and never takes a write lock. A fact is handed out only
on the privacy stage's "shown" verdict for its current text: never a private, unsafe, removed or
not yet judged one, and no answer depends on what was withheld (no counts, the same "unavailable"
for a withheld id as for one no fact has, errors that quote no stored text). When the keyword list
changed since the last judgement, nothing is shown and a re-tag is started. Imports neither
Dagster, pandas nor the `mcp` SDK: it starts in a fraction of what importing Dagster takes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from memory_pipeline.context.home import Home, ProfileContext
from memory_pipeline.lib.audit.checks import CHECK_REGISTRY
from memory_pipeline.lib.hermes.profiles import Profile
from memory_pipeline.lib.in_hermes.fact_search import NOT_SHOWN, UNREADABLE, SearchError
from memory_pipeline.lib.in_hermes.store_location import NOT_SERVED
from memory_pipeline.lib.store.reads.reader import StoreReader
from memory_pipeline.lib.store.schema.database import StoreError
from memory_pipeline.lib.tool_server import Parameter, Tool, ToolError, ToolServer
from memory_pipeline.services.reading import QueryEncoders, facts_of_profile, judgement_stale, search_profiles, shown_facts, start_retag

SERVER_NAME = "memory-pipeline"
_MAX_LIMIT = 50
_FOR_THE_USER_ONLY = frozenset(spec.name for spec in CHECK_REGISTRY if spec.tells_of_withheld_facts)

SEARCH_HELP = """Search what this user's Hermes memory keeps (every fact synced from MEMORY.md and USER.md,
and Hermes' own facts) for words in any order, each a case-insensitive substring; a quoted phrase is
exact. Use it when fact_store finds nothing for Chinese, Japanese or Korean words inside a sentence
(fact_store cannot split them), or for any name, path or number. Private facts, and facts not yet checked for personal data, are
never shown. Returns profile, fact_id, content, category, tags and score per fact."""
FACTS_HELP = """Get facts by id: what a `fact_store#N` pointer in MEMORY.md or USER.md names (the entry
was shortened there; the fact keeps its full text). Pass every N of a pointer like fact_store#16/27/33.
An id is `unavailable` when no fact has it or it is not shown to you (private, removed, not yet checked)."""
WHY_HELP = """Why you believe a fact: its story, for a fact_id you were shown (search_memory, get_facts, a
fact_store#N pointer, or one the memory hook added). Which entry of MEMORY.md or USER.md it came from
and where that entry stands now, when the entry was added or changed and by which of your sessions
and turns, the sync that wrote the fact, and the turns it was added to. A fact you may not be shown
is `unavailable`, like an id no fact has."""
STATUS_HELP = """Per profile: entries and cap use of MEMORY.md and USER.md, how many facts you may be shown,
the last sync and the checks not passing (the privacy checks are the user's, in `memory-pipeline status`).
Use it to tell whether memory is in step before relying on it."""


class MemoryServer:
    """The tools' logic over one Hermes home (or one of its profiles)."""

    def __init__(self, home: Path, profile: str | None = None, retag: Callable[[Profile], None] | None = None):
        self.home, self.profile = home, profile
        self.retag = retag or start_retag(home)
        self.encoders = QueryEncoders(wait=False)  # the encoder loads off the first call: by letters until then

    def profiles(self, name: str | None = None) -> list[ProfileContext]:
        """The contexts of the profiles a call names (every profile when none is), the home read
        afresh on each call: a profile made or a setting changed since is seen at once."""
        known = Home(self.home).contexts()
        chosen = name or self.profile
        if chosen is None:
            return known
        if self.profile is not None and chosen != self.profile:
            raise ToolError(f"this server serves profile {self.profile!r} only")
        found = [c for c in known if c.name == chosen]
        if not found:
            raise ToolError(f"no profile named {chosen!r} (profiles: {', '.join(c.name for c in known) or 'none'})")
        return found

    def _shown_now(self, context: ProfileContext, reads: StoreReader | None = None) -> bool:
        """Whether the profile's facts may be shown now (`reads`: its store, already open); if
        not, its re-tag is started."""
        if judgement_stale(context, reads):
            self.retag(context.profile)
            return False
        return True

    def search_memory(self, query: str, profile: str | None = None, limit: int = 10) -> dict:
        profiles = self.profiles(profile)
        try:
            found = search_profiles(
                profiles,
                query,
                limit=max(1, min(int(limit), _MAX_LIMIT)),
                include_private=False,
                refresh_index=False,
                encoders=self.encoders,
                shown_now=self._shown_now,  # asked on the search's own connection: one per profile and call
            )
        except SearchError as exc:
            raise ToolError(str(exc)) from None
        except StoreError:
            raise ToolError(UNREADABLE) from None
        answer = {"results": found.facts, "note": NOT_SHOWN, "profiles_never_synced": found.without_store}
        return answer | ({"profiles_not_served": found.not_served, "why_not_served": NOT_SERVED} if found.not_served else {})

    def get_facts(self, fact_ids: list[int], profile: str | None = None) -> dict:
        profiles = self.profiles(profile)
        if len(profiles) > 1:
            raise ToolError(f"fact ids are per profile: name one of {', '.join(p.name for p in profiles)}")
        (chosen,) = profiles
        try:
            found = facts_of_profile(chosen, fact_ids, include_private=False)
            if not self._shown_now(chosen):
                found.facts, found.unavailable_ids = [], list(dict.fromkeys(int(i) for i in fact_ids))
        except SearchError as exc:
            raise ToolError(str(exc)) from None
        except StoreError:
            raise ToolError(UNREADABLE) from None
        if found.not_served:
            raise ToolError(f"profile {chosen.name}: {NOT_SERVED}")
        if found.without_store:
            raise ToolError(f"profile {chosen.name} has no fact store yet (run `memory-pipeline sync`)")
        return {"profile": chosen.name, "facts": found.facts, "unavailable": found.unavailable_ids, "note": NOT_SHOWN}

    def why_fact(self, fact_id: int, profile: str | None = None) -> dict:
        from memory_pipeline.services.why import fact_story  # the files' reader: only when asked

        profiles = self.profiles(profile)
        if len(profiles) > 1:
            raise ToolError(f"fact ids are per profile: name one of {', '.join(p.name for p in profiles)}")
        (chosen,) = profiles
        if chosen.store.per_user:
            raise ToolError(f"profile {chosen.name}: {NOT_SERVED}")
        try:
            story = fact_story(chosen, int(fact_id)) if self._shown_now(chosen) else None
        except StoreError:
            raise ToolError(UNREADABLE) from None
        if story is None or not story.surfaces.get("MCP server and plugin"):
            return {"profile": chosen.name, "fact_id": int(fact_id), "unavailable": True, "note": NOT_SHOWN}
        found = story.as_json()
        found.pop("privacy")  # "not private", always, for a fact that may be shown
        return found

    def memory_status(self) -> dict:
        from memory_pipeline.services.status import profile_status  # numpy and the audit's reader: only when asked

        # No count of the store's facts: private, unsafe, unjudged and retired ones would be in it;
        # nor a check whose failure tells of a withheld fact.
        fields = ("profile", "entries", "cap_usage_pct", "last_sync", "store_error")
        found = []
        for context in self.profiles():
            status = profile_status(context)
            failing = [c for c in status["failing_checks"] if c.split(" ", 1)[0] not in _FOR_THE_USER_ONLY]
            found.append({**{k: status[k] for k in fields}, "failing_checks": failing, "shown_facts": self._shown_count(context)})
        return {"profiles": found}

    def _shown_count(self, context: ProfileContext) -> int:
        """The facts search could hand the agent now (0 while the judgement is stale)."""
        if judgement_stale(context):
            return 0
        try:
            return shown_facts(context)
        except StoreError:
            return 0


def build_server(
    home: Path, profile: str | None = None, retag: Callable[[Profile], None] | None = None, *, version: str = "unknown"
) -> ToolServer:
    """The server over `home` (or its one `profile`), telling clients it is memory-pipeline `version`."""
    memory = MemoryServer(home, profile, retag)
    chosen = Parameter("profile", str, required=False)
    tools = [
        Tool("search_memory", SEARCH_HELP, (Parameter("query", str), chosen, Parameter("limit", int, False, 10)), memory.search_memory),
        Tool("get_facts", FACTS_HELP, (Parameter("fact_ids", list), chosen), memory.get_facts),
        Tool("why_fact", WHY_HELP, (Parameter("fact_id", int), chosen), memory.why_fact),
        Tool("memory_status", STATUS_HELP, (), memory.memory_status),
    ]
    return ToolServer(SERVER_NAME, version, tools)


def run_server(server: ToolServer) -> None:
    """Serve over stdio until the client closes it."""
    server.serve(sys.stdin.buffer, sys.stdout.buffer)
