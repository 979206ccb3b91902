"""Searching and fetching facts across a home's profiles, read-only or (for the CLI, which may
index facts Hermes wrote since the last sync first) with the index brought in step."""

from __future__ import annotations

from dataclasses import dataclass, field

from memory_pipeline.lib.hermes.profiles import Profile
from memory_pipeline.lib.store.database import opened, read_only
from memory_pipeline.lib.store.fact_search import facts_by_id, search
from memory_pipeline.lib.store.search_index import sync_search_index
from memory_pipeline.lib.store.settings import holographic_settings


@dataclass
class Found:
    """What a search or a lookup over several profiles found."""

    facts: list[dict] = field(default_factory=list)  # each with its `profile`
    withheld_private: int = 0  # private matches left out
    withheld_unjudged: int = 0  # facts changed since the last sync, not yet judged private or not
    withheld_ids: list[int] = field(default_factory=list)  # for a lookup: ids left out (either reason)
    missing_ids: list[int] = field(default_factory=list)  # for a lookup: ids no profile has
    without_store: list[str] = field(default_factory=list)  # profiles never synced


def _stores(profiles: list[Profile]) -> dict[str, object]:
    return {p.name: holographic_settings(p.home).db_path for p in profiles}


def search_profiles(profiles: list[Profile], query: str, *, limit: int, include_private: bool, refresh_index: bool) -> Found:
    """`query` as a substring in every profile's facts, at most `limit` per profile. With
    `refresh_index` (the CLI) facts Hermes wrote since the last sync are indexed first; without
    (the agent's server) nothing is written, and only facts the last sync judged are returned."""
    found = Found()
    for name, db in _stores(profiles).items():
        if not db.is_file():
            found.without_store.append(name)
            continue
        with opened(db, create=False) if refresh_index else read_only(db) as conn:
            if refresh_index:
                sync_search_index(conn)
            results = search(conn, query, limit=limit, include_private=include_private, judged_only=not refresh_index)
        found.facts += [{"profile": name, **fact} for fact in results.facts]
        found.withheld_private += results.hidden_private
        found.withheld_unjudged += results.unjudged
    return found


def facts_of_profile(profile: Profile, fact_ids: list[int], *, include_private: bool) -> Found:
    """The facts `fact_store#N` pointers name, from one profile's store, read-only."""
    db = holographic_settings(profile.home).db_path
    if not db.is_file():
        return Found(without_store=[profile.name], missing_ids=list(fact_ids))
    with read_only(db) as conn:
        facts, withheld, missing = facts_by_id(conn, fact_ids, include_private=include_private)
    return Found(facts=[{"profile": profile.name, **f} for f in facts], withheld_ids=withheld, missing_ids=missing)
