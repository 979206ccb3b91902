"""Writing one profile's sync into its store: facts, entity links, HRR vectors, banks and ledger,
in one transaction. A crash leaves the store exactly as it was before. `write_sync` plans what
the diff asks for, then runs it as named passes (entries, compacted, removed, mirrors, settle)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from memory_pipeline.lib.choices import RemovalPolicy
from memory_pipeline.lib.privacy.choice import PrivacyJudge
from memory_pipeline.lib.privacy.tagging import tag_written
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.reads.watermark import WatermarkChain
from memory_pipeline.lib.store.sync_report import StaleDiff, SyncReport
from memory_pipeline.lib.store.writes.transaction import StoreWrites
from memory_pipeline.lib.sync.stages import EntryDiff, Extraction


@dataclass
class _Plan:
    """What the diff asks the store for, before any write."""

    ready: pd.DataFrame  # new and changed entries with their facts extracted
    removed: pd.DataFrame
    compacted: pd.DataFrame
    facts_by_entry: dict[str, list[Any]] = field(default_factory=dict)
    failed: list[Any] = field(default_factory=list)  # entries to quarantine
    adoptions: list[tuple[str, int]] = field(default_factory=list)  # (entry id, mirror fact id)
    releasable: set[str] = field(default_factory=set)  # quarantined entries to let go
    to_retire: list[int] = field(default_factory=list)  # facts kept under `keep` that `retire` now retires
    claims: list[str] = field(default_factory=list)  # entries whose rows become this profile's (see `LedgerOwner`)

    def nothing_to_write(self, entry_diff: EntryDiff) -> bool:
        return (
            self.ready.empty
            and self.removed.empty
            and self.compacted.empty
            and not (self.failed or self.releasable or self.to_retire or self.adoptions or self.claims or entry_diff.mirrors.retired)
            and not entry_diff.archived
        )


def write_sync(
    store: FactStore,
    entry_diff: EntryDiff,
    extraction: Extraction,
    *,
    removal_policy: RemovalPolicy = RemovalPolicy.RETIRE,
    judge: PrivacyJudge | None = None,
    watermarks: WatermarkChain | None = None,
    run_id: str | None = None,
) -> SyncReport:
    """Apply a diff and its extracted facts. Entries without facts (quarantined or left out by the
    extractor) stay pending: their ledger rows are not touched, so the next run retries them.
    The quarantine table moves in the same transaction: failed entries in, written or vanished
    entries out. With `judge` (the keyword list, detectors and policy), every fact written is judged
    in that transaction too, so none is ever visible untagged. `watermarks` hears how the store was
    found and left. The store's `owner` says whose ledger rows these are (profiles sharing one store)."""
    watermarks = watermarks if watermarks is not None else WatermarkChain(watching=False)
    removal_policy = RemovalPolicy(removal_policy)  # a spelling that is no policy fails here, naming it
    reads, settings = store.reads, store.settings
    diff = entry_diff.frame
    report = SyncReport(unchanged=int((diff["status"] == "unchanged").sum()))
    plan = _plan(store, entry_diff, extraction, removal_policy, report)
    if plan.nothing_to_write(entry_diff) and not reads.banks_off(settings.hrr_dim) and not reads.facts_without_vector():
        report.facts_total = reads.fact_count()
        watermarks.observe(reads)
        return report  # nothing to write: not even a transaction is opened

    provenance = extraction.provenance
    with store.transaction(report, (provenance.extractor, provenance.model, provenance.prompt_version), run_id) as writer:
        watermarks.observe(reads)
        left_behind = reads.banks_off(settings.hrr_dim)  # by a Holographic write racing another
        _guard(store, entry_diff)
        writer.ledger.claim_entries(plan.claims)
        written = _give_back_ids(writer, entry_diff)
        written += _write_entries(writer, plan, removal_policy)
        _write_compacted(writer, plan)
        _write_removed(writer, plan, removal_policy)
        written += _adopt_and_retire_mirrors(writer, plan, entry_diff, removal_policy)
        _move_quarantine_and_release_kept(writer, plan, removal_policy)
        report.vectors_added = writer.facts.add_missing_vectors()  # Hermes without NumPy writes facts without one
        if judge is not None:
            report.tagged_private = tag_written(writer, written, judge).tagged
        writer.facts.rebuild_banks_in_full(left_behind)
        report.receipts = len(writer.receipts)
        report.facts_total = reads.fact_count()
        report.wrote = True
        watermarks.wrote(reads)
    return report


def _plan(store: FactStore, entry_diff: EntryDiff, extraction: Extraction, removal_policy: RemovalPolicy, report: SyncReport) -> _Plan:
    reads, owner = store.reads, store.owner
    diff, held = entry_diff.frame, entry_diff.held
    facts_by_entry: dict[str, list[Any]] = defaultdict(list)
    for fact in extraction.facts.itertuples(index=False):
        facts_by_entry[fact.entry_id].append(fact)
    work = diff[diff["status"].isin(["new", "changed"])]
    ready = work[work["entry_id"].isin(facts_by_entry)]
    plan = _Plan(ready, diff[diff["status"] == "removed"], diff[diff["status"] == "compacted"], facts_by_entry, list(extraction.quarantine))
    report.quarantined, report.removed, report.compacted = len(work) - len(ready), len(plan.removed), len(plan.compacted)
    settled = set(diff.loc[diff["status"].isin(["unchanged", "compacted"]), "entry_id"]) | set(ready["entry_id"])
    plan.adoptions = [(e, f) for e, f in entry_diff.mirrors.adopted if e in settled]  # an entry still waiting keeps its mirror
    plan.releasable = reads.releasable_entries(set(diff.loc[diff["status"] != "removed", "entry_id"]), held, set(ready["entry_id"]))
    # Facts an older sync kept at full trust under `keep` move to `retire` when it is the policy.
    plan.to_retire = reads.unbacked_facts_to_retire() if removal_policy is RemovalPolicy.RETIRE and reads.ledger_exists() else []
    if owner.profile and reads.ledger_exists() and reads.has_profile_column():
        # A store of one profile's: every row is its own. A shared one: the rows its unchanged entries took.
        unchanged = None if owner.sole else set(diff.loc[diff["status"] == "unchanged", "matched_entry_id"])
        plan.claims = reads.unclaimed_entries(unchanged)
    return plan


def _guard(store: FactStore, entry_diff: EntryDiff) -> None:
    """Inside the write transaction, where no other writer can slip in: the ledger is the one the
    diff was made on. Whether that ledger is whole is the blocking `ledger_integrity` check's to
    say, between the diff and the write; a ledger changed since is refused here."""
    if store.reads.ledger_fingerprint() != entry_diff.ledger_fingerprint:
        raise StaleDiff(f"{store.path}: the ledger changed since the diff was made; run the sync again")


def _write_entries(writer: StoreWrites, plan: _Plan, removal_policy: RemovalPolicy) -> list[int]:
    """New and changed entries: each fact updated in place when the extractor matched it to one
    of the entry's facts, else added; the ledger names the version written. Returns the facts."""
    all_written: list[int] = []
    for entry in plan.ready.itertuples(index=False):
        candidates = set(entry.existing_fact_ids)
        written: list[int] = []
        for fact in plan.facts_by_entry[entry.entry_id]:
            if fact.action == "update" and fact.existing_fact_id in candidates and fact.existing_fact_id not in written:
                written.append(writer.entries.update(int(fact.existing_fact_id), fact, entry.source))
            else:
                written.append(writer.entries.add(fact, entry.source))
        leftover = [i for i in entry.existing_fact_ids if i not in written]
        previous = writer.ledger.ledger_identity(entry.matched_entry_id) if entry.matched_entry_id else None
        if entry.matched_entry_id:
            writer.ledger.drop_entry(entry.matched_entry_id)
            writer.ledger.drop_entry(entry.entry_id)
        writer.ledger.record_entry(entry.entry_id, entry.source, entry.entry_sha256, written)
        all_written += written
        if leftover and previous is not None:
            # Facts of the old version that the new one did not take over: accounted for as
            # retired rows of the old entry, then handled by the removal policy.
            writer.ledger.record_entry(entry.matched_entry_id, previous[0], previous[1], leftover, status="retired")
            writer.entries.release(leftover, removal_policy, (entry.matched_entry_id, previous[1]))
        elif leftover:  # a mirror row of the old version the new one did not take over
            writer.entries.release_gone(leftover, entry.source, removal_policy)
    return all_written


def _give_back_ids(writer: StoreWrites, entry_diff: EntryDiff) -> list[int]:
    """Unchanged entries a late journal line names as the edit of a removed entry: their facts
    take back the removed version's ids (a fact id the agent was shown keeps meaning that fact)."""
    diff, written = entry_diff.frame, []
    for entry in diff[diff["restored_entry_id"].notna()].itertuples(index=False):
        archived = entry_diff.archived.get(entry.restored_entry_id, [])
        current = [int(i) for i in entry.existing_fact_ids]
        written += writer.entries.give_back_ids(
            (entry.entry_id, entry.source, entry.entry_sha256), current, entry.restored_entry_id, archived
        )
    return written


def _write_compacted(writer: StoreWrites, plan: _Plan) -> None:
    """A summary takes over the ledger rows of the entries it compacts (one, or the several it
    merges); the facts stay as they are."""
    for entry in plan.compacted.itertuples(index=False):
        for taken in (entry.matched_entry_id, *entry.absorbed_entry_ids):
            writer.ledger.drop_entry(taken)
        writer.ledger.record_entry(entry.entry_id, entry.source, entry.entry_sha256, list(entry.existing_fact_ids))


def _write_removed(writer: StoreWrites, plan: _Plan, removal_policy: RemovalPolicy) -> None:
    for entry in plan.removed.itertuples(index=False):
        known = writer.ledger.ledger_identity(entry.entry_id)  # (source, hash): the receipt names the entry by them
        if removal_policy is RemovalPolicy.DELETE:
            writer.ledger.drop_entry(entry.entry_id)
        else:
            writer.ledger.retire_entry(entry.entry_id)
        writer.entries.release(list(entry.existing_fact_ids), removal_policy, (entry.entry_id, known[1]) if known else None)


def _adopt_and_retire_mirrors(writer: StoreWrites, plan: _Plan, entry_diff: EntryDiff, removal_policy: RemovalPolicy) -> list[int]:
    """Holographic's mirror rows: those of an entry in the files become its facts (returned),
    those of an entry gone are released by the removal policy."""
    adopted = []
    if plan.adoptions:
        identities = entry_diff.frame.set_index("entry_id")[["source", "entry_sha256"]].to_dict("index")
        for owner, fact_id in plan.adoptions:
            if writer.entries.adopt(owner, identities[owner]["source"], identities[owner]["entry_sha256"], fact_id):
                adopted.append(fact_id)
    for gone in entry_diff.mirrors.retired:
        writer.entries.release_gone([gone.fact_id], gone.source, removal_policy)
    return adopted


def _move_quarantine_and_release_kept(writer: StoreWrites, plan: _Plan, removal_policy: RemovalPolicy) -> None:
    """The quarantine moved (written or vanished entries out, failed ones in), and facts kept
    under an older `keep` released by the policy now."""
    writer.records.release_entries(plan.releasable)
    writer.records.quarantine_entries(plan.failed)
    writer.entries.release(plan.to_retire, removal_policy)
