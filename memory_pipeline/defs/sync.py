"""The `sync` stage: the entries diffed against the ledger, and the store upserted with the facts
the `extract` stage made for what is new or changed, in one transaction."""

import sqlite3

import dagster as dg

from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.resources import FactStoreResource, HermesHomeResource, PrivacyResource
from memory_pipeline.defs.step_order import IN_STEP_FIRST
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.owner import LedgerOwner
from memory_pipeline.lib.store.reads.ledger import EMPTY_LEDGER, LedgerEntry
from memory_pipeline.lib.store.reads.mirror_rows import MirrorRow
from memory_pipeline.lib.store.reads.watermark import WatermarkChain
from memory_pipeline.lib.sync.diff import STATUSES, diff_entries
from memory_pipeline.lib.sync.journal import journal_path, read_journal
from memory_pipeline.lib.sync.mirror import EntryEvidence, plan_mirrors, sharers_entries
from memory_pipeline.lib.sync.stages import Entries, EntryDiff, Extraction
from memory_pipeline.lib.sync.writer import write_sync
from memory_pipeline.runs.stage_reports import DiffReport, WriteReport


@dg.asset(
    partitions_def=hermes_profiles,
    op_tags=IN_STEP_FIRST,
    group_name="sync",
    kinds={"sqlite", "pandas"},
)
def ledger_diff(
    context: dg.AssetExecutionContext,
    hashed_entries: Entries,
    hermes: HermesHomeResource,
    store: FactStoreResource,
) -> dg.Output[EntryDiff]:
    """Every entry classified against the SHA-256 ledger in `memory_store.db`.

    `unchanged` (same hash, wherever it stands), `changed` (moved between files, or similar enough
    to a vanished entry: its fact ids are the update candidates), `new`, or `removed`. Entries of a
    file that could not be read are held, never counted as removed. Holographic's mirror rows (the
    untagged copy it adds of each entry Hermes' memory tool adds) are adopted by their entry, taken
    as the previous version of the entry the agent's journaled edit made of them, retired with a
    removed one, or left as the agent's own facts (a paraphrase of an entry included).
    """
    here = hermes.context(context.partition_key)
    profile, settings, owner = here.profile, store.settings(here), here.owner
    # The agent's own writes, journaled by the Hermes plugin: an edit it names is an edit.
    journal = read_journal(journal_path(hermes.data_dir(), profile.name))
    for problem in journal.problems:
        context.log.warning(problem)
    with store.opened_if_exists(settings, owner) as fact_store:
        ledger, fingerprint, mirrors, known, archived = _ledger_as_found(fact_store, owner, store.watermarks, set(journal.edits.values()))
    unreadable = hashed_entries.held
    threshold = store.similarity_threshold
    diff = diff_entries(
        hashed_entries.frame, ledger, unreadable_sources=unreadable, threshold=threshold, edits=journal.edits, archived=archived
    )
    files = {source: profile.memory_file(source) for source in SOURCE_FILES} if mirrors else {}
    elsewhere = sharers_entries([c.profile for c in here.sharers]) if mirrors else frozenset()
    evidence = EntryEvidence.gathered(known, files, journal, profile.home if mirrors else None)
    diff, plan = plan_mirrors(diff, mirrors, evidence, elsewhere=elsewhere)
    counts = diff["status"].value_counts()
    metadata: dict[str, float | str] = {status: float(counts.get(status, 0)) for status in STATUSES}
    held = sum(1 for e in ledger.values() if e.source in unreadable)
    # Profiles whose settings name this store too: their entries are theirs, never removed here.
    metadata["store_shared_with"] = ", ".join(owner.sharers) or "no other profile"
    if held:
        context.log.warning(f"{held} synced entries held: their file is missing or unreadable, so they are not treated as removed")
    report = DiffReport(
        held_unreadable_entries=held,
        mirror_rows=plan.found,
        mirror_previous_versions=plan.updated,
        mirror_unexplained=len(plan.unexplained),
        # By id (never text): a sync names the agent's own facts once, not on every run.
        mirror_unexplained_ids=tuple(sorted(plan.unexplained)[:1000]),
    )
    metadata.update(report.metadata())
    metadata.update({"mirror_adopted": float(len(plan.adopted)), "mirror_of_removed_entries": float(len(plan.retired))})
    restored = {old: archived[old] for old in diff["restored_entry_id"].dropna()}
    metadata["restored_by_late_journal"] = float(len(restored))
    return dg.Output(EntryDiff(diff, fingerprint, unreadable, plan, restored), metadata=metadata)


def _ledger_as_found(
    fact_store: FactStore | None, owner: LedgerOwner, watermarks: WatermarkChain, replaced: set[str]
) -> tuple[dict[str, LedgerEntry], str, list[MirrorRow], set[str], dict[str, list[int]]]:
    """The profile's active ledger, its fingerprint, the mirror rows, every entry hash a ledger
    row recorded and the archived facts of the `replaced` entries (the old versions the journal
    names), read in one snapshot (an empty ledger without a store)."""
    if fact_store is None:
        return {}, EMPTY_LEDGER, [], set(), {}
    reads = fact_store.reads
    with reads.snapshot():
        watermarks.observe(reads)
        mirrors = reads.mirror_rows()
        known = reads.known_entry_hashes() if mirrors else set()
        return reads.active_ledger(), reads.ledger_fingerprint(), mirrors, known, reads.archived_entries(replaced)


@dg.asset(
    partitions_def=hermes_profiles,
    op_tags=IN_STEP_FIRST,
    group_name="sync",
    kinds={"sqlite"},
)
def fact_store(
    context: dg.AssetExecutionContext,
    ledger_diff: EntryDiff,
    extracted_facts: Extraction,
    hermes: HermesHomeResource,
    store: FactStoreResource,
    privacy: PrivacyResource,
) -> dg.MaterializeResult:
    """The profile's Holographic `memory_store.db`, upserted so Hermes reads every fact as its own.

    Facts, entity links, HRR vectors, category banks, the ledger and the privacy tags of the facts
    written are one transaction, so no fact is ever visible untagged; a keyword list that cannot
    be loaded stops the run before anything is written. A run with nothing to do opens no
    transaction, so the file stays byte-for-byte the same.
    """
    here = hermes.context(context.partition_key)
    settings, owner = store.settings(here), here.owner
    judge = privacy.judge_for_step(here)
    with store.opened(settings, owner) as fact_store:
        report = write_sync(
            fact_store,
            ledger_diff,
            extracted_facts,
            removal_policy=store.removal(),
            judge=judge,
            watermarks=store.watermarks,
            run_id=context.run.run_id,
        )
        taken = fact_store.reads.receipts(run_id=context.run.run_id) if report.receipts else []
        schema = fact_store.reads.schema_fingerprint()
    if report.removed:
        context.log.info(f"{report.removed} entries left the files; policy {store.removal().value!r} applied to their facts")
    return dg.MaterializeResult(
        metadata={
            **WriteReport(report, str(settings.db_path)).metadata(),
            "removal_policy": store.removal().value,
            # Which SQLite wrote the store (two writers on one WAL file: see docs/reliability.md).
            "sqlite_version": sqlite3.sqlite_version,
            # Which Holographic made the store: 0.19.0's schema, or the columns and tables beyond it.
            "holographic_schema": schema,
            # What this run's removals took away, content-free (ids, hashes, counts).
            "receipts_taken": dg.MetadataValue.json([r.as_json() for r in taken]),
            "store": dg.MetadataValue.path(str(settings.db_path)),
        }
    )
