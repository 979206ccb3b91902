"""The agent's MCP server (`memory-pipeline mcp`): what the pipeline keeps, over stdio, read-only.

Three tools, on the official `mcp` SDK: `search_memory` (the trigram index, which finds Chinese,
Japanese and Korean substrings Hermes' own `fact_store` cannot), `get_facts` (what a
`fact_store#N` pointer in MEMORY.md names) and `memory_status`. Stores are opened read-only, so
it answers while a sync or Hermes writes and never takes a write lock. A fact is handed out only
on the privacy stage's "shown" verdict for its current text: never a private, unsafe, removed or
not yet judged one, and no answer depends on what was withheld (no counts, the same "unavailable"
for a withheld id as for one no fact has, errors that quote no stored text). When the keyword list
changed since the last judgement, nothing is shown and a re-tag is started. Imports neither
Dagster nor pandas.
"""

from __future__ import annotations

import json
import re
import sys
import warnings
from collections.abc import Callable
from io import TextIOWrapper
from pathlib import Path

import anyio
import mcp.types as types
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.stdio import stdio_server

from memory_pipeline import environment
from memory_pipeline.lib.audit.checks import CHECK_REGISTRY
from memory_pipeline.lib.hermes.profiles import Profile, discover_profiles
from memory_pipeline.lib.store.database import StoreError
from memory_pipeline.lib.store.fact_search import NOT_SHOWN, UNREADABLE, SearchError
from memory_pipeline.lib.store.profile_store import profile_store
from memory_pipeline.services.reading import QueryEncoders, facts_of_profile, judgement_stale, search_profiles, shown_facts, start_retag

SERVER_NAME = "memory-pipeline"
NOT_SERVED = (
    "its Holographic keeps one store per user (plugins.hermes-memory-store.scope: user), which memory-pipeline does not "
    "sync, so it serves none of that profile's facts (the user can remove `scope: user` to sync it)"
)
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

    def _judged(self, profiles: list[Profile]) -> list[Profile]:
        """The profiles whose facts were judged with their keyword list and detector switches as
        they are now; for the others nothing is shown and a re-tag is started."""
        current = []
        for profile in profiles:
            if judgement_stale(profile, self.home):
                self.retag(profile)
            else:
                current.append(profile)
        return current

    def search_memory(self, query: str, profile: str | None = None, limit: int = 10) -> dict:
        profiles = self.profiles(profile)
        try:
            found = search_profiles(
                self._judged(profiles),
                query,
                limit=max(1, min(int(limit), _MAX_LIMIT)),
                include_private=False,
                refresh_index=False,
                encoders=self.encoders,
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
            if not self._judged([chosen]):
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
        if profile_store(chosen).per_user:
            raise ToolError(f"profile {chosen.name}: {NOT_SERVED}")
        try:
            story = fact_story(chosen, self.home, int(fact_id)) if self._judged([chosen]) else None
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
        for profile in self.profiles():
            status = profile_status(environment.data_dir(self.home), profile)
            failing = [c for c in status["failing_checks"] if c.split(" ", 1)[0] not in _FOR_THE_USER_ONLY]
            found.append({**{k: status[k] for k in fields}, "failing_checks": failing, "shown_facts": self._shown_count(profile)})
        return {"profiles": found}

    def _shown_count(self, profile: Profile) -> int:
        """The facts search could hand the agent now (0 while the judgement is stale)."""
        if judgement_stale(profile, self.home):
            return 0
        try:
            return shown_facts(profile)
        except StoreError:
            return 0


def build_server(home: Path, profile: str | None = None, retag: Callable[[Profile], None] | None = None) -> FastMCP:
    memory = MemoryServer(home, profile, retag)
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

    @server.tool(description=WHY_HELP)
    def why_fact(fact_id: int, profile: str | None = None) -> dict:
        return memory.why_fact(fact_id, profile)

    @server.tool(description=STATUS_HELP)
    def memory_status() -> dict:
        return memory.memory_status()

    return server


def run_server(server: FastMCP) -> None:
    """Serve over stdio, every request read: one whose strings hold lone surrogates (`"\\ud800"`,
    valid JSON that the SDK's parser refuses, leaving the client waiting) is read with U+FFFD in
    their place; one the SDK still cannot read is answered with an error for its id."""
    anyio.run(_serve, server)


async def _serve(server: FastMCP) -> None:
    stdin = _ReadableLines(anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")))
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):  # type: ignore[arg-type]  # it only iterates stdin's lines
        lowlevel = server._mcp_server  # FastMCP's own run_stdio_async does the same with its default stdin
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


_SURROGATE = re.compile("[\ud800-\udfff]")
UNREADABLE_METHOD = "memory-pipeline/unreadable-request"


def readable(line: str) -> str:
    """The line as the SDK can read it (see `run_server`); a line that is no JSON object is left
    as it is (it names no request to answer)."""
    try:
        message = json.loads(line)
    except ValueError:
        return line
    if not isinstance(message, dict):
        return line
    clean = json.dumps(_without_surrogates(message), ensure_ascii=False)
    try:
        types.JSONRPCMessage.model_validate_json(clean)
    except ValueError:
        if "id" in message and "method" in message:  # a request: answered "method not found" for its id
            return json.dumps({"jsonrpc": "2.0", "id": _without_surrogates(message["id"]), "method": UNREADABLE_METHOD})
    return clean


def _without_surrogates(value):
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value


class _ReadableLines:
    """stdin's lines, each made readable (what `stdio_server` iterates)."""

    def __init__(self, lines):
        self._lines = lines

    def __aiter__(self):
        return self._read()

    async def _read(self):
        async for line in self._lines:
            yield readable(line)
