"""The ledger service: each profile's active ledger rows as `memory-sync.sh`'s 5-column TSV, and
such a file brought into one profile's store (its rows matched to the entries in the files now)."""

from __future__ import annotations

from memory_pipeline.context.home import ProfileContext
from memory_pipeline.lib.hermes.hashing import entry_identities
from memory_pipeline.lib.hermes.profiles import read_profile
from memory_pipeline.lib.store.writes.ledger_import import ImportReport, import_tsv


def synced_profiles(contexts: list[ProfileContext]) -> list[ProfileContext]:
    """The profiles that have a fact store (and so a ledger) yet."""
    return [c for c in contexts if c.store.exists]


def export_profile(context: ProfileContext) -> list[str]:
    """The profile's active ledger rows as TSV lines (each ending in a newline); in a store shared
    with other profiles, its own rows only."""
    with context.opened(create=False) as store:
        return store.reads.ledger_tsv_rows()


def import_into(context: ProfileContext, text: str) -> ImportReport:
    """A TSV ledger brought into the profile's store, each row matched to the entry in the files
    now that has its source and hash."""
    readings = read_profile(context.profile)
    sources = [r.source for r in readings for _ in r.entries]
    hashes, shorts, ids = entry_identities(sources, [text for r in readings for text in r.entries])
    texts = [text for r in readings for text in r.entries]
    current = {(s, short): (entry, sha, t) for s, short, entry, sha, t in zip(sources, shorts, ids, hashes, texts, strict=True)}
    with context.opened() as store:  # adds the pipeline's tables to a store Holographic made
        return import_tsv(store, text, current)
