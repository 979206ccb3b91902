"""Writing one profile's sync into its store: facts, entity links, HRR vectors, banks and ledger,
in one transaction. A crash leaves the store exactly as it was before."""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from memory_pipeline.lib.choices import REMOVAL_POLICIES
from memory_pipeline.lib.hermes.hashing import entry_id as entry_id_of
from memory_pipeline.lib.hermes.hashing import entry_sha256
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES
from memory_pipeline.lib.privacy.matching import KeywordList
from memory_pipeline.lib.privacy.tagging import tag_written
from memory_pipeline.lib.store.database import LEDGER_TABLE, PIPELINE_TAG, RETIRED_TAG, write_transaction
from memory_pipeline.lib.store.fact_writes import FactWrites, banks_off
from memory_pipeline.lib.store.quarantine import quarantine, releasable_entries, release
from memory_pipeline.lib.store.settings import HolographicSettings
from memory_pipeline.lib.store.watermark import WatermarkChain
from memory_pipeline.lib.sync.ledger import ledger_exists, ledger_fingerprint, ledger_problems
from memory_pipeline.lib.sync.retirement import merge_tags, retire, unbacked_facts_to_retire
from memory_pipeline.lib.sync.stages import EntryDiff, Extraction
from memory_pipeline.lib.sync.sync_report import LedgerCorrupt, StaleDiff, SyncReport

# Tags a rewrite sets afresh: the entry's file, and `retired` (an entry backs the fact again).
_RESET_TAGS = frozenset(SOURCE_FILES) | {RETIRED_TAG}


class _Writer(FactWrites):
    def __init__(self, conn: sqlite3.Connection, settings: HolographicSettings, report: SyncReport, provenance: tuple[str, str, str]):
        super().__init__(conn, settings)
        self.report = report
        self.provenance = provenance  # extractor, model, prompt_version

    # --- facts -------------------------------------------------------------------------------

    def add(self, fact, source: str) -> int:
        tags = merge_tags([PIPELINE_TAG, source], fact.tags)
        links = self.links_for(fact.content, fact.entity)
        blob = self.vector(fact.content, links)
        cursor = self.conn.execute(
            """INSERT INTO facts (content, category, tags, trust_score, hrr_vector) VALUES (?, ?, ?, ?, ?)
               ON CONFLICT(content) DO NOTHING""",
            (fact.content, fact.category, tags, self.settings.default_trust, blob),
        )
        self.report.added += 1
        if cursor.rowcount == 1:
            fact_id = cursor.lastrowid
            self.set_links(fact_id, links, fresh=True)
            self.vector_changed(None, None, fact.category, blob)
            return fact_id
        # Identical content already stored (Holographic's own add-mirror, or another entry):
        # adopt that row instead of duplicating it.
        fact_id, category, old_tags, trust, old_blob = self.conn.execute(
            "SELECT fact_id, category, tags, trust_score, hrr_vector FROM facts WHERE content = ?", (fact.content,)
        ).fetchone()
        self._rewrite(fact_id, fact, source, old_category=category, old_tags=old_tags, links=links, trust=trust, old_blob=old_blob)
        return fact_id

    def update(self, fact_id: int, fact, source: str) -> int:
        row = self.conn.execute(
            "SELECT content, category, tags, trust_score, hrr_vector FROM facts WHERE fact_id = ?", (fact_id,)
        ).fetchone()
        if row is None:
            return self.add(fact, source)
        content, category, old_tags, trust, old_blob = row
        if content != fact.content:
            clash = self.conn.execute("SELECT 1 FROM facts WHERE content = ? AND fact_id != ?", (fact.content, fact_id)).fetchone()
            if clash:
                return self.add(fact, source)  # the new text is already another fact: adopt it
        links = self.links_for(fact.content, fact.entity)
        self._rewrite(
            fact_id,
            fact,
            source,
            old_category=category,
            old_tags=old_tags,
            links=links,
            trust=trust,
            old_blob=old_blob,
            old_content=content,
        )
        self.report.updated += 1
        return fact_id

    def _rewrite(self, fact_id, fact, source, *, old_category, old_tags, links, trust, old_blob, old_content=None) -> None:
        tags = merge_tags([t for t in (old_tags or "").split(",") if t.strip() not in _RESET_TAGS], [PIPELINE_TAG, source], fact.tags)
        current_links = self.current_links(fact_id)
        content_changed = old_content is not None and old_content != fact.content
        links_changed = current_links != [entity_id for entity_id, _ in links]
        # A fact the pipeline retired comes back to full trust when an entry backs it again.
        new_trust = self.settings.default_trust if trust is not None and trust < self.settings.min_trust else trust
        if not (content_changed or links_changed or tags != old_tags or fact.category != old_category or new_trust != trust):
            return
        assignments = ["content = ?", "category = ?", "tags = ?", "trust_score = ?", "updated_at = CURRENT_TIMESTAMP"]
        params: list = [fact.content, fact.category, tags, new_trust]
        blob = old_blob
        if content_changed or links_changed:
            blob = self.vector(fact.content, links)
            assignments.append("hrr_vector = ?")
            params.append(blob)
            self.set_links(fact_id, links)
        self.conn.execute(f"UPDATE facts SET {', '.join(assignments)} WHERE fact_id = ?", (*params, fact_id))
        self.vector_changed(old_category, old_blob, fact.category, blob)

    # --- removals ----------------------------------------------------------------------------

    def _backed_elsewhere(self, fact_id: int) -> bool:
        return (
            self.conn.execute(f"SELECT 1 FROM {LEDGER_TABLE} WHERE fact_id = ? AND status = 'active' LIMIT 1", (fact_id,)).fetchone()
            is not None
        )

    def release(self, fact_ids: list[int], policy: str) -> None:
        """Apply the removal policy to facts no entry backs any more."""
        for fact_id in fact_ids:
            if policy == "keep" or self._backed_elsewhere(fact_id):
                continue
            row = self.conn.execute("SELECT category, hrr_vector FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
            if row is None:
                continue
            if policy == "retire":
                self.report.retired_facts += retire(self.conn, fact_id, self.settings)
            else:
                self.conn.execute("DELETE FROM fact_entities WHERE fact_id = ?", (fact_id,))
                self.conn.execute("DELETE FROM facts WHERE fact_id = ?", (fact_id,))
                self.conn.execute(f"DELETE FROM {LEDGER_TABLE} WHERE fact_id = ? AND status = 'retired'", (fact_id,))
                self.vector_changed(row[0], row[1], None, None)
                self.report.deleted_facts += 1

    # --- ledger ------------------------------------------------------------------------------

    def record(self, entry_id: str, source: str, sha: str, fact_ids: list[int], status: str = "active") -> None:
        extractor, model, prompt_version = self.provenance
        self.conn.executemany(
            f"""INSERT INTO {LEDGER_TABLE}
                    (entry_id, source, entry_sha256, fact_id, status, extractor, model, prompt_version, synced_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP)
                ON CONFLICT(entry_id, fact_id) DO UPDATE SET
                    source = excluded.source, entry_sha256 = excluded.entry_sha256, status = excluded.status,
                    extractor = excluded.extractor, model = excluded.model,
                    prompt_version = excluded.prompt_version, synced_at = excluded.synced_at""",
            [(entry_id, source, sha, fact_id, status, extractor, model, prompt_version) for fact_id in dict.fromkeys(fact_ids)],
        )

    def retire_rows(self, entry_id: str) -> None:
        self.conn.execute(
            f"UPDATE {LEDGER_TABLE} SET status = 'retired', synced_at = CURRENT_TIMESTAMP WHERE entry_id = ? AND status = 'active'",
            (entry_id,),
        )

    def adopt(self, entry_id: str, source: str, sha: str, fact_id: int) -> bool:
        """A mirror row of an entry in the files becomes one of that entry's facts."""
        row = self.conn.execute("SELECT tags FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
        if row is None:
            return False
        tags = merge_tags(row[0] or "", [PIPELINE_TAG, source])
        self.conn.execute("UPDATE facts SET tags = ?, updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?", (tags, fact_id))
        self.record(entry_id, source, sha, [fact_id])
        self.report.mirrors_adopted += 1
        return True

    def release_gone(self, fact_ids: list[int], source: str, policy: str) -> None:
        """Facts of an entry version the ledger never held (a mirror row): recorded as retired
        rows of that version, then handled by the removal policy."""
        for fact_id in fact_ids:
            row = self.conn.execute("SELECT content FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
            if row is None or not isinstance(row[0], str):
                continue
            sha = entry_sha256(row[0].strip())
            self.record(entry_id_of(source, sha), source, sha, [fact_id], status="retired")
            self.release([fact_id], policy)
            self.report.mirrors_retired += 1

    def identity(self, entry_id: str) -> tuple[str, str] | None:
        """(source, hash) the ledger holds for an entry id."""
        return self.conn.execute(f"SELECT source, entry_sha256 FROM {LEDGER_TABLE} WHERE entry_id = ? LIMIT 1", (entry_id,)).fetchone()

    def drop_rows(self, entry_id: str) -> None:
        self.conn.execute(f"DELETE FROM {LEDGER_TABLE} WHERE entry_id = ?", (entry_id,))


def write_sync(
    conn: sqlite3.Connection,
    entry_diff: EntryDiff,
    extraction: Extraction,
    *,
    settings: HolographicSettings,
    removal_policy: str = "retire",
    privacy: tuple[KeywordList, str] | None = None,
    watermarks: WatermarkChain | None = None,
) -> SyncReport:
    """Apply a diff and its extracted facts. Entries without facts (quarantined or left out by the
    extractor) stay pending: their ledger rows are not touched, so the next run retries them.
    The quarantine table moves in the same transaction: failed entries in, written or vanished
    entries out. With `privacy` (the keyword list and policy), every fact written is tagged in
    that transaction too, so none is ever visible untagged. `watermarks` hears how the store was
    found and left."""
    watermarks = watermarks if watermarks is not None else WatermarkChain(watching=False)
    if removal_policy not in REMOVAL_POLICIES:
        raise ValueError(f"removal policy must be one of {', '.join(REMOVAL_POLICIES)}, not {removal_policy!r}")
    diff, held, provenance = entry_diff.frame, entry_diff.held, extraction.provenance
    report = SyncReport(unchanged=int((diff["status"] == "unchanged").sum()))
    facts_by_entry: dict[str, list] = defaultdict(list)
    for fact in extraction.facts.itertuples(index=False):
        facts_by_entry[fact.entry_id].append(fact)
    work = diff[diff["status"].isin(["new", "changed"])]
    ready = work[work["entry_id"].isin(facts_by_entry)]
    report.quarantined = len(work) - len(ready)
    removed = diff[diff["status"] == "removed"]
    report.removed = len(removed)
    compacted = diff[diff["status"] == "compacted"]
    report.compacted = len(compacted)
    failed = list(extraction.quarantine)
    mirrors = entry_diff.mirrors
    settled = set(diff.loc[diff["status"].isin(["unchanged", "compacted"]), "entry_id"]) | set(ready["entry_id"])
    adoptions = [(e, f) for e, f in mirrors.adopted if e in settled]  # an entry still waiting keeps its mirror for later
    releasable = releasable_entries(conn, set(diff.loc[diff["status"] != "removed", "entry_id"]), held, set(ready["entry_id"]))
    # Facts an older sync kept at full trust under `keep` move to `retire` when it is the policy.
    to_retire = unbacked_facts_to_retire(conn, settings) if removal_policy == "retire" and ledger_exists(conn) else []
    nothing_to_write = ready.empty and removed.empty and compacted.empty
    if nothing_to_write and not (failed or releasable or to_retire or adoptions or mirrors.retired or banks_off(conn, settings.hrr_dim)):
        report.facts_total = _count_facts(conn)
        watermarks.observe(conn)
        return report  # nothing to write: not even a transaction is opened

    with write_transaction(conn):
        watermarks.observe(conn)
        left_behind = banks_off(conn, settings.hrr_dim)  # by a Holographic write racing another
        if ledger_fingerprint(conn) != entry_diff.ledger_fingerprint:
            raise StaleDiff(f"{_db_path(conn)}: the ledger changed since the diff was made; run the sync again")
        problems = ledger_problems(conn)
        if problems:
            raise LedgerCorrupt(f"{_db_path(conn)}: ledger is corrupt, nothing written: {'; '.join(problems)}")
        writer = _Writer(conn, settings, report, (provenance.extractor, provenance.model, provenance.prompt_version))
        all_written: list[int] = []
        for entry in ready.itertuples(index=False):
            candidates = set(entry.existing_fact_ids)
            written: list[int] = []
            for fact in facts_by_entry[entry.entry_id]:
                if fact.action == "update" and fact.existing_fact_id in candidates and fact.existing_fact_id not in written:
                    written.append(writer.update(int(fact.existing_fact_id), fact, entry.source))
                else:
                    written.append(writer.add(fact, entry.source))
            leftover = [i for i in entry.existing_fact_ids if i not in written]
            previous = writer.identity(entry.matched_entry_id) if entry.matched_entry_id else None
            if entry.matched_entry_id:
                writer.drop_rows(entry.matched_entry_id)
                writer.drop_rows(entry.entry_id)
            writer.record(entry.entry_id, entry.source, entry.entry_sha256, written)
            all_written += written
            if leftover and previous is not None:
                # Facts of the old version that the new one did not take over: accounted for as
                # retired rows of the old entry, then handled by the removal policy.
                writer.record(entry.matched_entry_id, previous[0], previous[1], leftover, status="retired")
                writer.release(leftover, removal_policy)
            elif leftover:  # a mirror row of the old version the new one did not take over
                writer.release_gone(leftover, entry.source, removal_policy)
        for entry in compacted.itertuples(index=False):
            writer.drop_rows(entry.matched_entry_id)
            writer.record(entry.entry_id, entry.source, entry.entry_sha256, list(entry.existing_fact_ids))
        for entry in removed.itertuples(index=False):
            if removal_policy == "delete":
                writer.drop_rows(entry.entry_id)
            else:
                writer.retire_rows(entry.entry_id)
            writer.release(list(entry.existing_fact_ids), removal_policy)
        identities = diff.set_index("entry_id")[["source", "entry_sha256"]].to_dict("index") if adoptions else {}
        for owner, fact_id in adoptions:
            if writer.adopt(owner, identities[owner]["source"], identities[owner]["entry_sha256"], fact_id):
                all_written.append(fact_id)
        for gone in mirrors.retired:
            writer.release_gone([gone.fact_id], gone.source, removal_policy)
        release(conn, releasable)
        quarantine(conn, failed)
        writer.release(to_retire, removal_policy)
        if privacy is not None:
            report.tagged_private = tag_written(writer, all_written, privacy[0], settings, privacy[1]).tagged
        writer.rebuild_banks_in_full(left_behind)
        report.facts_total = _count_facts(conn)
        report.wrote = True
        watermarks.wrote(conn)
    return report


def _count_facts(conn: sqlite3.Connection) -> int:
    return conn.execute("SELECT count(*) FROM facts").fetchone()[0]


def _db_path(conn: sqlite3.Connection) -> str:
    row = conn.execute("PRAGMA database_list").fetchone()
    return row[2] if row else "memory_store.db"
