"""Re-checking every fact of a store against the keyword list and detectors.

A private fact carries the tag `private-person` and one entity link, `private-person`, so probing
a person's name never surfaces it; with policy `hide` its trust also drops below the prefetch
threshold, because Holographic's prefetch ignores tags. A fact that stops matching gets its tag,
links and trust back. Only facts whose state changes are written.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass, field

from memory_pipeline.lib.choices import PRIVACY_POLICIES
from memory_pipeline.lib.hermes.memory_files import title_entity
from memory_pipeline.lib.privacy.matching import PRIVATE_ENTITY, PRIVATE_TAG, KeywordList, normalise_tags, private_reasons
from memory_pipeline.lib.store.database import LEDGER_TABLE, PIPELINE_TAG, read_snapshot, table_exists, write_transaction
from memory_pipeline.lib.store.fact_writes import FactWrites
from memory_pipeline.lib.store.settings import HolographicSettings
from memory_pipeline.lib.store.watermark import WatermarkChain


@dataclass
class RetagReport:
    facts: int = 0
    private: int = 0
    normalised: int = 0  # a tag variant folded to `private-person`
    relinked: int = 0
    hidden: int = 0
    unhidden: int = 0
    reasons: Counter = field(default_factory=Counter)  # detector kind -> facts (never the matches)
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
        return bool(self.tagged or self.untagged or self.normalised or self.relinked or self.hidden or self.unhidden)


def hidden_trust(settings: HolographicSettings) -> float:
    return max(0.0, round(settings.min_trust - 0.1, 6))


@dataclass(frozen=True)
class _Target:
    private: bool
    tags: str


def _target(content: str, normal_tags: str, keywords: KeywordList, report: RetagReport | None) -> _Target:
    reasons = private_reasons(content, keywords)
    parts = [t for t in normal_tags.split(",") if t and t != PRIVATE_TAG]
    if reasons:
        parts.append(PRIVATE_TAG)
        if report is not None:
            report.reasons.update(reasons)
    return _Target(bool(reasons), ",".join(parts))


def retag_store(
    conn: sqlite3.Connection,
    keywords: KeywordList,
    settings: HolographicSettings,
    policy: str = "tag",
    watermarks: WatermarkChain | None = None,
) -> RetagReport:
    """Scan without a lock (one snapshot), then write only the facts that must change, re-checked
    under the lock. `watermarks` hears how the store was found and left."""
    if policy not in PRIVACY_POLICIES:
        raise ValueError(f"privacy policy must be one of {', '.join(PRIVACY_POLICIES)}, not {policy!r}")
    watermarks = watermarks if watermarks is not None else WatermarkChain(watching=False)
    with read_snapshot(conn):
        watermarks.observe(conn)
        report, candidates = _scan(conn, keywords, settings, policy)
    if not candidates:
        return report
    with write_transaction(conn):
        watermarks.observe(conn)
        writes = FactWrites(conn, settings)
        backed = _backed_by_entries(conn)
        for fact_id in candidates:
            _apply(writes, fact_id, keywords, settings, policy, report, backed)
        writes.rebuild_banks()
        watermarks.wrote(conn)
    return report


def _scan(conn: sqlite3.Connection, keywords: KeywordList, settings: HolographicSettings, policy: str) -> tuple[RetagReport, list[int]]:
    """Every fact judged against the list: the counts, and the facts whose tags, links or trust must change."""
    report = RetagReport()
    private_entity = conn.execute("SELECT entity_id FROM entities WHERE name = ? ORDER BY entity_id", (PRIVATE_ENTITY,)).fetchone()
    private_links = {
        fact_id: entity_ids
        for fact_id, entity_ids in conn.execute("SELECT fact_id, group_concat(entity_id) FROM fact_entities GROUP BY fact_id")
    }
    candidates = []
    for fact_id, content, tags, trust in conn.execute("SELECT fact_id, content, tags, trust_score FROM facts"):
        report.facts += 1
        normal = normalise_tags(tags)[0]
        target = _target(content, normal, keywords, report)
        report.private += target.private
        links_right = not target.private or (private_entity is not None and private_links.get(fact_id) == str(private_entity[0]))
        trust_right = not (policy == "hide" and target.private and trust >= settings.min_trust)
        was_private = PRIVATE_TAG in normal.split(",")
        if target.tags != (tags or "") or not links_right or not trust_right or (was_private and not target.private):
            candidates.append(fact_id)
    return report, candidates


def tag_written(
    writes: FactWrites, fact_ids: list[int], keywords: KeywordList, settings: HolographicSettings, policy: str = "tag"
) -> RetagReport:
    """Tag the facts a sync just wrote, inside its transaction, so that no fact is ever visible
    untagged; `retag_store` still re-checks the whole store afterwards. The facts were just
    written for entries in the files, so every one of them is backed by an entry."""
    report = RetagReport()
    written = dict.fromkeys(fact_ids)  # ordered and a set at once
    backed = set(written)
    for fact_id in written:
        _apply(writes, fact_id, keywords, settings, policy, report, backed)
    return report


def _backed_by_entries(conn: sqlite3.Connection) -> set[int]:
    if not table_exists(conn, LEDGER_TABLE):
        return set()
    return {r[0] for r in conn.execute(f"SELECT DISTINCT fact_id FROM {LEDGER_TABLE} WHERE status = 'active'")}


def _apply(
    writes: FactWrites,
    fact_id: int,
    keywords: KeywordList,
    settings: HolographicSettings,
    policy: str,
    report: RetagReport,
    backed: set[int],
) -> None:
    row = writes.conn.execute("SELECT content, tags, category, trust_score FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
    if row is None:
        return
    content, tags, category, trust = row
    tags = tags or ""
    normal = normalise_tags(tags)[0]
    target = _target(content, normal, keywords, None)
    old_parts = tags.split(",")
    was_private = PRIVATE_TAG in normal.split(",")
    if any(p.strip() and p.strip() != PRIVATE_TAG and normalise_tags(p)[0] == PRIVATE_TAG for p in old_parts):
        report.normalised += 1
    if target.private and not was_private:
        report.newly_private.append(fact_id)
    elif was_private and not target.private:
        report.no_longer_private.append(fact_id)

    new_trust = trust
    if target.private and policy == "hide" and trust >= settings.min_trust:
        new_trust = hidden_trust(settings)
        report.hidden += 1
    elif not target.private and was_private and trust == hidden_trust(settings) and (fact_id in backed or PIPELINE_TAG not in tags):
        new_trust = settings.default_trust
        report.unhidden += 1

    if target.private:
        links = writes.resolve([PRIVATE_ENTITY])
    elif was_private:
        # The real entities come back, found as the extractor finds them.
        entity = title_entity(content) if PIPELINE_TAG in tags else None
        links = writes.links_for(content, entity)
    else:
        links = None
    if links is not None and writes.current_links(fact_id) != [entity_id for entity_id, _ in links]:
        writes.relink(fact_id, content, links)
        report.relinked += 1
    if target.tags != tags or new_trust != trust:
        writes.conn.execute(
            "UPDATE facts SET tags = ?, trust_score = ?, updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?",
            (target.tags, new_trust, fact_id),
        )
