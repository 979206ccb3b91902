"""The ledger service: each profile's active ledger rows as `memory-sync.sh`'s 5-column TSV, and
such a file brought into one profile's store (its rows matched to the entries in the files now)."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.lib.hermes.hashing import entry_identities
from memory_pipeline.lib.hermes.profiles import Profile, discover_profiles, read_profile
from memory_pipeline.lib.store.ledger_import import ImportReport, import_tsv
from memory_pipeline.lib.store.owner import ledger_owner
from memory_pipeline.lib.store.profile_store import profile_store


def synced_profiles(profiles: list[Profile]) -> list[Profile]:
    """The profiles that have a fact store (and so a ledger) yet."""
    return [p for p in profiles if profile_store(p).exists]


def export_profile(profile: Profile, hermes_home: Path) -> list[str]:
    """The profile's active ledger rows as TSV lines (each ending in a newline); in a store shared
    with other profiles, its own rows only."""
    with profile_store(profile).opened(create=False) as store:
        return store.reads.ledger_tsv_rows(ledger_owner(profile, discover_profiles(hermes_home)))


def import_into(profile: Profile, text: str, hermes_home: Path) -> ImportReport:
    """A TSV ledger brought into the profile's store, each row matched to the entry in the files
    now that has its source and hash."""
    readings = read_profile(profile)
    sources = [r.source for r in readings for _ in r.entries]
    hashes, shorts, ids = entry_identities(sources, [text for r in readings for text in r.entries])
    texts = [text for r in readings for text in r.entries]
    current = {(s, short): (entry, sha, t) for s, short, entry, sha, t in zip(sources, shorts, ids, hashes, texts, strict=True)}
    owner = ledger_owner(profile, discover_profiles(hermes_home))
    with profile_store(profile).opened(owner=owner) as store:  # adds the pipeline's tables to a store Holographic made
        return import_tsv(store, text, current)
