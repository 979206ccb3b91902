"""The compaction service: for each memory file of a profile over its target, the proposal that
shortens entries into summaries pointing at the facts holding their full text (or, asked to merge,
the one that makes entries saying the same thing one entry); and, with consent
(the caller asks), the proposal written under Hermes' lock and the profile synced after it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memory_pipeline.context.home import ProfileContext
from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file
from memory_pipeline.lib.hermes.compaction import CompactionError, Proposal, merge, propose
from memory_pipeline.lib.hermes.duplicates import duplicate_groups
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES, SourceReading, read_source
from memory_pipeline.lib.hermes.memory_writing import apply
from memory_pipeline.lib.in_hermes.fact_search import SHOWN
from memory_pipeline.lib.privacy.choice import PrivacyJudge
from memory_pipeline.lib.privacy.matching import KeywordListError
from memory_pipeline.lib.store.reads.ledger import synced_facts
from memory_pipeline.lib.store.sync_report import SyncReport


@dataclass
class FileProposal:
    """One memory file as read, and its proposal (None: within the target)."""

    reading: SourceReading
    proposal: Proposal | None


@dataclass
class Applied:
    """What the sync after `--apply` wrote did (each file written is told to `on_written`)."""

    sync_error: str | None
    added: int
    compacted: int


def _read_stable(path: Path, source: str, limit: int) -> tuple[SourceReading, bytes]:
    """The reading and the exact bytes it came from (read again if the agent wrote meanwhile)."""
    for _ in range(3):
        try:
            before = read_regular_file(path) or b""
            reading = read_source(path, source, limit)
            after = read_regular_file(path) or b""
        except UnreadableFile as exc:
            raise CompactionError(str(exc)) from None
        if after == before:
            return reading, before
    raise CompactionError(f"{path}: keeps changing while being read; try again when the agent is idle")


def propose_compaction(context: ProfileContext, target: float, model: Callable[[str, str], str | None] | None = None) -> list[FileProposal]:
    """Each memory file of the profile, with a proposal for those over `target` (a share of the
    cap): entries saying the same thing merged first, then summaries; `model` (the local model's
    summarizer) offers summaries the rules' may give way to."""
    profile = context.profile
    facts, vectors = _pointable(context)
    limits, found = profile.char_limits(), []
    for source in SOURCE_FILES:
        reading, raw = _read_stable(profile.memory_file(source), source, limits[source])
        if not reading.exists or reading.cap_usage <= target:
            found.append(FileProposal(reading, None))
            continue
        duplicates = duplicate_groups([reading], facts, vectors) if reading.readable else []
        found.append(FileProposal(reading, propose(reading, raw, facts, target=target, model=model, duplicates=duplicates)))
    return found


def propose_merges(context: ProfileContext) -> list[FileProposal]:
    """Each memory file of the profile, with a proposal merging its entries that say the same
    thing (`entries_distinct`'s groups) where it has any."""
    profile = context.profile
    facts, vectors = _pointable(context)
    limits, found = profile.char_limits(), []
    for source in SOURCE_FILES:
        reading, raw = _read_stable(profile.memory_file(source), source, limits[source])
        groups = duplicate_groups([reading], facts, vectors) if reading.readable else []
        found.append(FileProposal(reading, merge(reading, raw, groups) if groups else None))
    return found


def _pointable(context: ProfileContext) -> tuple[dict[tuple[str, str], list[int]], dict[int, bytes]]:
    """The entries whose facts a pointer may name, by (source, short hash), and those facts' vectors."""
    with context.opened(create=False) as store:
        facts = synced_facts(store.reads.active_ledger())
        pointed = sorted({i for ids in facts.values() for i in ids})
        shown = store.reads.facts_by_id(pointed)[0] if pointed else []
        vectors = store.reads.shown_vectors()
    # Never a pointer to a fact the agent is not given (private, unsafe, not judged), nor to one the
    # profile's settings now withhold though the store's verdicts are older: such an entry stays whole.
    judge = _judge_now(context)
    given = {f["fact_id"] for f in shown if judge is not None and judge.judge(f["content"].encode("utf-8")).outcome == SHOWN}
    return {entry: ids for entry, ids in facts.items() if set(ids) <= given}, {i: v for i, v in vectors.items() if i in given}


def _judge_now(context: ProfileContext) -> PrivacyJudge | None:
    """The profile's keyword list and detector switches as they are now (None: a list that cannot
    be read, which shows nothing)."""
    try:
        return context.judge
    except KeywordListError:
        return None


def facts_gone(context: ProfileContext, proposal: Proposal) -> list[int]:
    """The facts the proposal points at that the store no longer holds (nothing may be written then)."""
    wanted = sorted({i for r in proposal.rewrites for i in r.fact_ids})
    with context.opened(create=False) as store:
        return store.reads.facts_by_id(wanted, include_private=True)[1]


def apply_compaction(
    context: ProfileContext, proposals: list[Proposal], *, lock_timeout_s: float, on_written: Callable[[Proposal, Path], None]
) -> Applied:
    """Each proposal written (a backup kept; `on_written` hears of it at once), then the profile
    synced: the summaries take over their entries' ledger rows and no fact is added."""
    for proposal in proposals:
        on_written(proposal, apply(proposal, lock_timeout_s=lock_timeout_s))
    # Through the sync service, as every sync goes: its skip state then knows the files as written.
    from memory_pipeline.services.sync import SyncRequest, sync_profiles

    outcome = sync_profiles(SyncRequest(home=context.home.path, profiles={context.name: context.profile}, force=True))
    run = outcome.profiles[context.name].run
    report = run.outputs.report if run else SyncReport()
    return Applied(run.error if run else "the sync did not run", report.added, report.compacted)
