"""A profile's store made the way a sync makes it, without a Dagster run: the seam behaviour tests
start from. The stages run as the assets call them (parse, hash, diff, rules extraction, the
write, the privacy stage, the search index, the bundled encoder's vectors), on the profile's `ProfileContext`, so a test of what a
service does with a synced store neither starts a run nor copies a synced home."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.context.home import Home, ProfileContext
from memory_pipeline.lib.extraction import entries_to_extract
from memory_pipeline.lib.extraction.embedders import EmbedderChoice
from memory_pipeline.lib.extraction.rule_based import RulesExtractor
from memory_pipeline.lib.hermes.entries import hashed_frame, parsed_frame
from memory_pipeline.lib.hermes.profiles import read_profile
from memory_pipeline.lib.privacy.choice import PrivacyJudge
from memory_pipeline.lib.privacy.tagging import retag_store
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.sync.diff import diff_entries
from memory_pipeline.lib.sync.embedding import embed_facts
from memory_pipeline.lib.sync.stages import EntryDiff, Extraction, Provenance
from memory_pipeline.lib.sync.writer import write_sync


def context_of(home: Path, name: str = "default") -> ProfileContext:
    """The named profile's context in `home` (resolved as a command resolves it)."""
    resolved = Home(home)
    (profile,) = [p for p in resolved.profiles if p.name == name]
    return resolved.context(profile)


def write_files_to_store(store: FactStore, context: ProfileContext) -> None:
    """The profile's files as they are now, written into its open store (rules extraction)."""
    hashed = hashed_frame(parsed_frame(context.name, read_profile(context.profile)))
    reads = store.reads
    diff = diff_entries(hashed, reads.active_ledger())
    extraction = Extraction.of(RulesExtractor().extract(entries_to_extract(diff, reads)), Provenance())
    write_sync(store, EntryDiff(diff, reads.ledger_fingerprint()), extraction)


def synced_store(context: ProfileContext, judge: PrivacyJudge | None = None) -> Path:
    """The profile's store in step with its files, judged (with the profile's own judge unless one
    is given), indexed and embedded, as a sync with the default settings leaves it; its path."""
    with context.opened() as store:
        write_files_to_store(store, context)
        retag_store(store, judge or context.judge)
        store.index.sync_search_index()
        embed_facts(store, EmbedderChoice())
    return context.store.path
