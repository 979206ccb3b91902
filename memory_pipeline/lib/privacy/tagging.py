"""Judging every fact of a store: its privacy verdict, tags, links and trust.

Each fact gets a verdict (lib/store/reads/verdicts.py) for its current text under the keyword list and
detectors in force: shown, or withheld as private, unsafe or unreadable; the agent's surfaces hand
out a fact only on a "shown" verdict. A private fact also carries the tag `private-person` and one
entity link, `private-person`, so probing a person's name never surfaces it; with policy `hide`
(the default) its trust drops below the prefetch threshold, because Holographic's prefetch ignores
tags. An unsafe fact is tagged `unsafe-instructions` and kept below that threshold whatever the
policy. A fact that stops matching gets its tag, links and trust back. A fact whose verdict is
current is not judged again; only facts whose state changes are written.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from memory_pipeline.lib.choices import PrivacyPolicy
from memory_pipeline.lib.hermes.memory_files import title_entity
from memory_pipeline.lib.in_hermes.fact_search import SHOWN, content_sha256
from memory_pipeline.lib.privacy.choice import Judgement, PrivacyJudge
from memory_pipeline.lib.privacy.matching import PRIVATE_ENTITY, KeywordList, normalise_tags
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.reads.reader import StoreReader
from memory_pipeline.lib.store.reads.verdicts import PRIVATE, UNREADABLE, UNSAFE, Verdict
from memory_pipeline.lib.store.reads.watermark import WatermarkChain
from memory_pipeline.lib.store.schema.database import PIPELINE_TAG, PRIVATE_TAG, RETIRED_TAG, UNSAFE_TAG
from memory_pipeline.lib.store.settings import HolographicSettings
from memory_pipeline.lib.store.writes.transaction import StoreWrites


@dataclass
class RetagReport:
    facts: int = 0
    private: int = 0
    normalised: int = 0  # a tag variant folded to `private-person`
    relinked: int = 0
    hidden: int = 0
    unhidden: int = 0
    unsafe: list[int] = field(default_factory=list)  # fact ids withheld as unsafe instructions
    verdicts: dict[int, Verdict] = field(default_factory=dict)  # fact id -> Verdict recorded this run
    reasons: Counter[str] = field(default_factory=Counter)  # detector kind -> facts (never the matches)
    newly_private: list[int] = field(default_factory=list)  # fact ids that gained the tag this run
    no_longer_private: list[int] = field(default_factory=list)  # fact ids that lost it: no longer matching

    @property
    def tagged(self) -> int:
        return len(self.newly_private)

    @property
    def untagged(self) -> int:
        return len(self.no_longer_private)

    @property
    def wrote(self) -> bool:
        return bool(self.tagged or self.untagged or self.normalised or self.relinked or self.hidden or self.unhidden or self.verdicts)


def _target_tags(normal_tags: str, private: bool, unsafe: bool) -> str:
    parts = [t for t in normal_tags.split(",") if t and t not in (PRIVATE_TAG, UNSAFE_TAG)]
    return ",".join(parts + [PRIVATE_TAG] * private + [UNSAFE_TAG] * unsafe)


def _withheld_from_prefetch(private: bool, unsafe: bool, policy: PrivacyPolicy) -> bool:
    return unsafe or (private and policy is PrivacyPolicy.HIDE)


def retag_store(store: FactStore, judge: PrivacyJudge, watermarks: WatermarkChain | None = None) -> RetagReport:
    """Scan without a lock (one snapshot), then write only the facts that must change, re-checked
    under the lock, their verdicts, and the judge now in force. `watermarks` hears how the store
    was found and left."""
    watermarks = watermarks if watermarks is not None else WatermarkChain(watching=False)
    reads, settings = store.reads, store.settings
    listed = _recorded_lists(reads, judge.keywords)
    key_file = judge.keywords.key_file
    key_path = reads.store_relative(str(key_file) if key_file else None)
    judge_row = (listed, judge.keywords.sha256, judge.detectors, judge.settings_sha256, key_path)
    with reads.snapshot():
        watermarks.observe(reads)
        report, candidates, scanned = _scan(reads, judge, settings)
        orphans = reads.orphan_verdict_count()
        in_force = reads.judge_in_force()
    if not candidates and not report.verdicts and not orphans and in_force == judge_row:
        return report
    with store.transaction() as writes:
        watermarks.observe(reads)
        backed = reads.backed_fact_ids()
        for fact_id in candidates:
            _apply(writes, fact_id, judge, report, backed, scanned.get(fact_id))
        writes.facts.rebuild_banks()
        writes.records.record_verdicts(report.verdicts)
        writes.records.drop_orphan_verdicts()
        writes.records.set_judge(*judge_row)
        watermarks.wrote(reads)
    return report


def _recorded_lists(reads: StoreReader, keywords: KeywordList) -> str | None:
    """The list (or a shared store's lists, as a JSON array) as the judge records it."""
    paths = [path for path, _ in keywords.sources] or [keywords.path]
    listed = [reads.store_relative(str(path) if path else None) for path in paths]
    return listed[0] if len(listed) == 1 else json.dumps(listed)


def _scan(reads: StoreReader, judge: PrivacyJudge, settings: HolographicSettings) -> tuple[RetagReport, list[int], dict[int, Judgement]]:
    """Every fact judged (from its verdict, when that is current): the counts, the facts whose
    verdict, tags, links or trust must change, and each judgement made."""
    report = RetagReport()
    private_entity = str(reads.entity_id_named(PRIVATE_ENTITY))  # as group_concat spells one id
    private_links = reads.linked_entities()
    known = reads.verdicts()
    backed = reads.backed_fact_ids()
    states = list(reads.fact_states())
    scanned = _fresh_judgements(judge, states, known)
    settled = functools.lru_cache(maxsize=4096)(functools.partial(_settled, policy=judge.policy, settings=settings))
    candidates = []
    for fact_id, _, tags, trust in states:
        judgement = scanned.get(fact_id)
        private, unsafe, unreadable = _found(judgement) if judgement else _recorded(known[fact_id].outcome)
        report.private += private
        if unreadable:
            if judgement:
                candidates.append(fact_id)
            continue
        links_right = not private or private_links.get(fact_id) == private_entity
        if not settled(private, unsafe, tags or "", links_right, trust, fact_id in backed):
            candidates.append(fact_id)
        elif judgement:
            # Tags, links and trust already right: only the verdict is new (a keyword-list edit
            # re-judges every fact). It names the text it judged, so a text changed meanwhile is withheld.
            report.verdicts[fact_id] = judge.outcome_of(judgement)
    report.facts = len(states)
    for judgement in scanned.values():
        report.reasons.update(judgement.reasons)
    return report, candidates, scanned


def _found(judgement: Judgement) -> tuple[bool, bool, bool]:
    return judgement.private, bool(judgement.unsafe), judgement.unreadable


@functools.cache
def _recorded(outcome: str) -> tuple[bool, bool, bool]:
    """Private, unsafe, unreadable: what a current verdict recorded."""
    parts = set(outcome.split(","))
    return PRIVATE in parts, UNSAFE in parts, UNREADABLE in parts


def _fresh_judgements(judge: PrivacyJudge, states: list[Any], known: dict[int, Verdict]) -> dict[int, Judgement]:
    """The facts whose verdict is not for their current text under this judge, judged again: by
    the keyword list alone where only the list changed (all at once), else whole."""
    listed: dict[int, tuple[bytes, str]] = {}
    whole: dict[int, Judgement] = {}
    for fact_id, raw, *_ in states:
        need, digest = _needed(judge, raw, known.get(fact_id))
        if need == _LIST and digest is not None:
            listed[fact_id] = (raw, digest)
        elif need != _CURRENT:  # anything else is judged whole
            whole[fact_id] = judge.judge(raw)
    return judge.judged_by_list(listed) | whole


_CURRENT, _LIST, _WHOLE = "current", "list", "whole"


def _needed(judge: PrivacyJudge, raw: bytes, verdict: Verdict | None) -> tuple[str, str | None]:
    """What judging a fact takes, and its text's SHA-256 where that was computed: nothing (its
    verdict is for this text under this judge), the keyword list alone (only the list changed,
    and the same detectors and scan found nothing in this very text: most facts of a re-tag after
    a list edit), or the whole judge."""
    if verdict is None:
        return _WHOLE, None
    digest = content_sha256(raw)
    if verdict.detectors != judge.detectors or verdict.content_sha256 != digest:
        return _WHOLE, digest
    if verdict.keywords_sha256 == judge.keywords.sha256:
        return _CURRENT, digest
    return (_LIST if verdict.outcome == SHOWN else _WHOLE), digest


def _restorable(
    private: bool, unsafe: bool, policy: PrivacyPolicy, tags: str, trust: float, settings: HolographicSettings, backed: bool
) -> bool:
    """Trust the judge once lowered that goes back now (not a retired fact's, not a stray mirror's)."""
    parts = tags.split(",")
    return (
        not _withheld_from_prefetch(private, unsafe, policy)
        and (PRIVATE_TAG in parts or UNSAFE_TAG in parts or private)
        and trust == settings.withheld_trust
        and RETIRED_TAG not in parts
        and (backed or PIPELINE_TAG not in parts)
    )


def _settled(
    private: bool,
    unsafe: bool,
    tags: str,
    links_right: bool,
    trust: float,
    backed: bool,
    *,
    policy: PrivacyPolicy,
    settings: HolographicSettings,
) -> bool:
    """Tags, links and trust already as the judgement wants them (a pure function of its
    arguments: the scan asks it once per distinct state)."""
    normal = normalise_tags(tags)[0]
    too_visible = _withheld_from_prefetch(private, unsafe, policy) and trust >= settings.min_trust
    return (
        _target_tags(normal, private, unsafe) == tags
        and links_right
        and not too_visible
        and not _restorable(private, unsafe, policy, normal, trust, settings, backed)
    )


def tag_written(writes: StoreWrites, fact_ids: list[int], judge: PrivacyJudge) -> RetagReport:
    """Judge the facts a sync just wrote, inside its transaction, so that no fact is ever visible
    untagged or without its verdict; `retag_store` still re-checks the whole store afterwards.
    The facts were just written for entries in the files, so every one of them is backed by an
    entry."""
    report = RetagReport()
    written = dict.fromkeys(fact_ids)  # ordered and a set at once
    backed = set(written)
    for fact_id in written:
        _apply(writes, fact_id, judge, report, backed, None)
    writes.records.record_verdicts(report.verdicts)
    return report


def _apply(
    writes: StoreWrites,
    fact_id: int,
    judge: PrivacyJudge,
    report: RetagReport,
    backed: set[int],
    scanned: Judgement | None,
) -> None:
    """One fact brought in line with its judgement, read again under the write lock (the scan's
    judgement reused while the text is the one it judged)."""
    state = writes.reads.fact_state(fact_id)
    if state is None:
        return
    raw, tags, trust, settings = state.raw, state.tags, state.trust, writes.settings
    current = scanned is not None and scanned.content_sha256 == content_sha256(raw)
    judgement = scanned if current else None
    judgement = judgement or judge.judge(raw)
    report.verdicts[fact_id] = judge.outcome_of(judgement)
    if judgement.unreadable:
        return  # nothing can be read to tag or link: withheld by its verdict alone
    content, tags = raw.decode("utf-8"), tags or ""
    normal = normalise_tags(tags)[0]
    private, unsafe = judgement.private, bool(judgement.unsafe)
    target_tags = _target_tags(normal, private, unsafe)
    was_private = PRIVATE_TAG in normal.split(",")
    if any(p.strip() and p.strip() != PRIVATE_TAG and normalise_tags(p)[0] == PRIVATE_TAG for p in tags.split(",")):
        report.normalised += 1
    if judgement.private and not was_private:
        report.newly_private.append(fact_id)
    elif was_private and not judgement.private:
        report.no_longer_private.append(fact_id)
    if judgement.unsafe:
        report.unsafe.append(fact_id)

    new_trust = trust
    if _withheld_from_prefetch(private, unsafe, judge.policy) and trust >= settings.min_trust:
        new_trust = settings.withheld_trust
        report.hidden += 1
    elif _restorable(private, unsafe, judge.policy, normal, trust, settings, fact_id in backed):
        new_trust = settings.default_trust
        report.unhidden += 1

    if judgement.private:
        links = writes.facts.resolve([PRIVATE_ENTITY])
    elif was_private:
        # The real entities come back, found as the extractor finds them.
        entity = title_entity(content) if PIPELINE_TAG in tags else None
        links = writes.facts.links_for(content, entity)
    else:
        links = None
    if links is not None and writes.facts.current_links(fact_id) != [entity_id for entity_id, _ in links]:
        writes.facts.relink(fact_id, content, links)
        report.relinked += 1
    if target_tags != tags or new_trust != trust:
        writes.records.set_tags_and_trust(fact_id, target_tags, new_trust)
