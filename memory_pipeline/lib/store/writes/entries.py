"""`FactStore`'s writes a sync makes for entries: their facts added, updated in place, adopted from
a mirror row and released by the removal policy, with the ledger rows that say so."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from memory_pipeline.lib.choices import RemovalPolicy
from memory_pipeline.lib.hermes.hashing import entry_id as entry_id_of
from memory_pipeline.lib.hermes.hashing import entry_sha256
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES, title_entity
from memory_pipeline.lib.store.reads.receipts import Receipt
from memory_pipeline.lib.store.schema.database import KEPT_TABLE, LEDGER_TABLE, PIPELINE_TAG, RETIRED_TAG, SOURCE_CATEGORY
from memory_pipeline.lib.store.sync_report import StaleDiff
from memory_pipeline.lib.store.writes.facts import FactWrites
from memory_pipeline.lib.store.writes.ledger import LedgerWrites
from memory_pipeline.lib.store.writes.part import OpenStore, StorePart, inserted_id
from memory_pipeline.lib.store.writes.records import RecordWrites
from memory_pipeline.lib.store.writes.tags import merge_tags
from memory_pipeline.lib.store.writes.written import WrittenWrites


class FactToWrite(Protocol):
    """What the store needs of a fact to write it (the extractor's `ExtractedFact` is one)."""

    @property
    def content(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def tags(self) -> tuple[str, ...]: ...
    @property
    def entity(self) -> str | None: ...


@dataclass(frozen=True)
class _Kept:
    """A fact's text as a sync wrote it, to be written again under another id."""

    content: str
    category: str
    tags: tuple[str, ...]
    entity: str | None = None


# Tags a rewrite sets afresh: the entry's file, and `retired` (an entry backs the fact again).
_RESET_TAGS = frozenset(SOURCE_FILES) | {RETIRED_TAG}


class EntryWrites(StorePart):
    """Part of a transaction (`StoreWrites`): every write of a sync to the facts of entries, counted in the
    transaction's `report`; what its removals took away kept as `receipts`. It writes a fact's
    links, vector and banks through `facts`, the entry's ledger rows through `ledger`, receipts
    and retirements through `records`, and what it wrote through `written`."""

    def __init__(self, store: OpenStore, *, facts: FactWrites, ledger: LedgerWrites, records: RecordWrites, written: WrittenWrites) -> None:
        super().__init__(store)
        self.facts, self.ledger, self.records, self.written = facts, ledger, records, written

    # --- facts -------------------------------------------------------------------------------

    def add(self, fact: FactToWrite, source: str) -> int:
        # The entry came back: its archived fact returns with its own id (a pointer to it resolves again).
        self.facts.restore(fact.content)
        tags = merge_tags([PIPELINE_TAG, source], fact.tags)
        links = self.facts.links_for(fact.content, fact.entity)
        blob = self.facts.vector(fact.content, links)
        cursor = self.conn.execute(
            """INSERT INTO facts (content, category, tags, trust_score, hrr_vector) VALUES (?, ?, ?, ?, ?)
               ON CONFLICT(content) DO NOTHING""",
            (fact.content, fact.category, tags, self.settings.default_trust, blob),
        )
        self.report.added += 1
        if cursor.rowcount == 1:
            fact_id = inserted_id(cursor)
            self.facts.set_links(fact_id, links, fresh=True)
            self.facts.vector_changed(None, None, fact.category, blob)
            self.written.note_written(fact_id, fact.content)
            return fact_id
        # Identical content already stored (Holographic's own add-mirror, or another entry):
        # adopt that row instead of duplicating it.
        row = self.conn.execute(
            "SELECT fact_id, category, tags, trust_score, hrr_vector FROM facts WHERE content = ?", (fact.content,)
        ).fetchone()
        fact_id = int(row[0])
        category, old_tags, trust, old_blob = row[1:]
        self._rewrite(fact_id, fact, source, old_category=category, old_tags=old_tags, links=links, trust=trust, old_blob=old_blob)
        self.written.note_written(fact_id, fact.content)
        return fact_id

    def update(self, fact_id: int, fact: FactToWrite, source: str) -> int:
        row = self.conn.execute(
            "SELECT content, category, tags, trust_score, hrr_vector FROM facts WHERE fact_id = ?", (fact_id,)
        ).fetchone()
        if row is None:
            return self.add(fact, source)
        content, category, old_tags, trust, old_blob = row
        if self.written.changed_by_agent(fact_id):  # the agent's words are never overwritten: they stay its own fact
            self.hand_to_agent(fact_id)
            return self.add(fact, source)
        if content != fact.content and self.ledger.backed_by_sharer(fact_id):
            return self.add(fact, source)  # another profile's entry backs this text too: it stays as it is
        if content != fact.content:
            clash = self.conn.execute("SELECT 1 FROM facts WHERE content = ? AND fact_id != ?", (fact.content, fact_id)).fetchone()
            if clash:
                return self.add(fact, source)  # the new text is already another fact: adopt it
        links = self.facts.links_for(fact.content, fact.entity)
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
        self.written.note_written(fact_id, fact.content)
        self.report.updated += 1
        return fact_id

    def _rewrite(
        self,
        fact_id: int,
        fact: FactToWrite,
        source: str,
        *,
        old_category: str | None,
        old_tags: str | None,
        links: list[tuple[int, str]],
        trust: float | None,
        old_blob: bytes | None,
        old_content: str | None = None,
    ) -> None:
        tags = merge_tags([t for t in (old_tags or "").split(",") if t.strip() not in _RESET_TAGS], [PIPELINE_TAG, source], fact.tags)
        current_links = self.facts.current_links(fact_id)
        content_changed = old_content is not None and old_content != fact.content
        links_changed = current_links != [entity_id for entity_id, _ in links]
        # A fact the pipeline retired comes back to full trust when an entry backs it again.
        new_trust = self.settings.default_trust if trust is not None and trust < self.settings.min_trust else trust
        if not (content_changed or links_changed or tags != old_tags or fact.category != old_category or new_trust != trust):
            return
        assignments = ["content = ?", "category = ?", "tags = ?", "trust_score = ?", "updated_at = CURRENT_TIMESTAMP"]
        params: list[Any] = [fact.content, fact.category, tags, new_trust]
        blob = old_blob
        if content_changed or links_changed:
            blob = self.facts.vector(fact.content, links)
            assignments.append("hrr_vector = ?")
            params.append(blob)
            self.facts.set_links(fact_id, links)
        self.conn.execute(f"UPDATE facts SET {', '.join(assignments)} WHERE fact_id = ?", (*params, fact_id))
        self.facts.vector_changed(old_category, old_blob, fact.category, blob)

    def give_back_ids(self, entry: tuple[str, str, str], current: list[int], replaced: str, archived: list[int]) -> list[int]:
        """An edit a sync took for a removal and an addition (the journal line naming it arrived
        after that sync) made whole: the entry's facts (`current`, written by that sync) take back
        the ids of the removed version's facts (`archived`) in order, their text, links and vector
        kept; the newer rows go to the archive under the entry. `entry`: (id, source, SHA-256).
        The facts written (none when one of them is the agent's own now)."""
        entry_id, source, sha = entry
        pairs = list(zip(current, archived, strict=False))
        if not pairs or any(self.written.changed_by_agent(new) for new, _ in pairs):
            return []
        old_identity = self.ledger.ledger_identity(replaced)
        kept: list[int] = []
        for new, old in pairs:
            content, category, tags = self.conn.execute("SELECT content, category, tags FROM facts WHERE fact_id = ?", (new,)).fetchone()
            links = self.conn.execute(
                "SELECT e.entity_id, e.name FROM fact_entities fe JOIN entities e USING (entity_id) WHERE fe.fact_id = ?", (new,)
            ).fetchall()
            self.facts.archive(new)  # its text moves to the old id: no two facts may hold it
            if self.facts.restore_id(old) is None:
                raise StaleDiff(f"{self.settings.db_path}: fact {old} is no longer archived; run the sync again")
            was = self.conn.execute(
                "SELECT content, category, tags, trust_score, hrr_vector FROM facts WHERE fact_id = ?", (old,)
            ).fetchone()
            fact = _Kept(content, category, tuple(t for t in (tags or "").split(",") if t.strip()))
            self._rewrite(
                old, fact, source, old_category=was[1], old_tags=was[2], links=links, trust=was[3], old_blob=was[4], old_content=was[0]
            )
            self.written.note_written(old, content)
            kept.append(old)
        self.ledger.drop_entry(entry_id)
        self.ledger.drop_entry(replaced)
        self.ledger.record_entry(entry_id, source, sha, [*kept, *current[len(pairs) :]])
        self.ledger.record_entry(entry_id, source, sha, [new for new, _ in pairs], status="retired")
        if old_identity is not None and archived[len(pairs) :]:
            self.ledger.record_entry(replaced, *old_identity, archived[len(pairs) :], status="retired")
        self.report.updated += len(pairs)
        return kept

    def hand_to_agent(self, fact_id: int) -> None:
        """The fact leaves the pipeline as the agent's own: its text, id, trust and links kept, the
        pipeline's tags taken off, kept (`memory_pipeline_kept_facts`) so no sync retires it."""
        (tags,) = self.conn.execute("SELECT coalesce(tags, '') FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
        left = ",".join(t for t in (p.strip() for p in tags.split(",")) if t and t not in (PIPELINE_TAG, *SOURCE_CATEGORY))
        if left != tags:
            self.conn.execute("UPDATE facts SET tags = ? WHERE fact_id = ?", (left, fact_id))
        self.conn.execute(f"INSERT OR IGNORE INTO {KEPT_TABLE} (fact_id) VALUES (?)", (fact_id,))
        self.written.forget_written(fact_id)
        self.report.handed_to_agent += 1

    def restore_written(self, fact_id: int) -> bool:
        """A synced fact the agent changed given back the text the pipeline wrote, its links and
        vector as the extractor makes them (the privacy stage judges it again before it is served)."""
        written = self.written.written_if_changed(fact_id)
        if written is None:
            return False
        self.conn.execute("UPDATE facts SET content = ?, updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?", (written, fact_id))
        self.facts.relink(fact_id, written, self.facts.links_for(written, title_entity(written)))
        return True

    # --- removals ----------------------------------------------------------------------------

    def _backed_elsewhere(self, fact_id: int) -> bool:
        return (
            self.conn.execute(f"SELECT 1 FROM {LEDGER_TABLE} WHERE fact_id = ? AND status = 'active' LIMIT 1", (fact_id,)).fetchone()
            is not None
        )

    def release(self, fact_ids: list[int], policy: RemovalPolicy, entry: tuple[str, str] | None = None) -> None:
        """Apply the removal policy to facts no entry backs any more; what it took away is left
        as a receipt per action (`entry`: the removed entry's id and hash, when known; the receipt
        keeps its file alone)."""
        taken: dict[str, list[tuple[int, str | None, int]]] = {}
        for fact_id in fact_ids:
            if self.written.changed_by_agent(fact_id):  # the agent changed it: its own now, never retired or deleted
                self.hand_to_agent(fact_id)
                continue
            if policy is RemovalPolicy.KEEP or self._backed_elsewhere(fact_id):
                continue
            row = self.conn.execute(
                "SELECT category, (SELECT count(*) FROM fact_entities WHERE fact_id = ?) FROM facts WHERE fact_id = ?", (fact_id, fact_id)
            ).fetchone()
            if row is None:
                continue
            if policy is RemovalPolicy.RETIRE:
                action = self._retire(fact_id)
                self.report.retired_facts += bool(action)
            elif self.facts.delete(fact_id):
                self.ledger.drop_retired_rows_of(fact_id)
                self.report.deleted_facts += 1
                action = "deleted"
            else:
                action = ""
            if action:
                taken.setdefault(action, []).append((fact_id, row[0], row[1]))
        for action, facts in taken.items():
            moved = action != "retired"  # archived or deleted: out of Hermes' tables, links and index rows with them
            receipt = Receipt(
                action,
                entry[0].split(":", 1)[0] if entry and entry[0] else None,  # the file alone: no hash of what was removed
                tuple(f for f, _, _ in facts),
                sum(n for _, _, n in facts) if moved else 0,
                2 * len(facts) if moved else 0,  # facts_fts and the pipeline's trigram index
                tuple(sorted({f"cat:{c}" for _, c, _ in facts if c})) if moved else (),
                self.run_id,
            )
            self.records.write_receipt(receipt)
            self.receipts.append(receipt)

    def _retire(self, fact_id: int) -> str:
        """The pipeline's own fact moves to the archive (no Hermes tool returns it); another's
        (a mirror row Hermes wrote) is tagged `retired` below the prefetch threshold, never
        deleted. What was done (`archived`, `retired`), or "" when nothing changed."""
        row = self.conn.execute("SELECT tags FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
        if row is None:
            return ""
        if PIPELINE_TAG in (row[0] or "").split(","):
            return "archived" if self.facts.archive(fact_id) else ""
        return "retired" if self.records.retire_in_place(fact_id) else ""

    # --- mirror rows and the ledger ---------------------------------------------------------

    def adopt(self, entry_id: str, source: str, sha: str, fact_id: int) -> bool:
        """A mirror row of an entry in the files becomes one of that entry's facts."""
        row = self.conn.execute("SELECT tags FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
        if row is None:
            return False
        tags = merge_tags(row[0] or "", [PIPELINE_TAG, source])
        self.conn.execute("UPDATE facts SET tags = ?, updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?", (tags, fact_id))
        self.ledger.record_entry(entry_id, source, sha, [fact_id])
        self.report.mirrors_adopted += 1
        return True

    def release_gone(self, fact_ids: list[int], source: str, policy: RemovalPolicy) -> None:
        """Facts of an entry version the ledger never held (a mirror row): recorded as retired
        rows of that version, then handled by the removal policy."""
        for fact_id in fact_ids:
            row = self.conn.execute("SELECT content FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
            if row is None or not isinstance(row[0], str):
                continue
            sha = entry_sha256(row[0].strip())
            self.ledger.record_entry(entry_id_of(source, sha), source, sha, [fact_id], status="retired")
            self.release([fact_id], policy, (entry_id_of(source, sha), sha))
            self.report.mirrors_retired += 1
