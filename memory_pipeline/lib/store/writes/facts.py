"""`FactStore`'s writes every change to a fact needs so Holographic reads it as its own: entity
links resolved its way, the HRR vector over content and linked entities, the category banks, and
the archive a retired fact moves to and comes back from."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from memory_pipeline.lib.choices import VectorFormat
from memory_pipeline.lib.in_hermes.meaning import VECTORS_TABLE
from memory_pipeline.lib.store import hrr, vector_codec
from memory_pipeline.lib.store.reads.facts import facts_without_vector, linked_entity_names
from memory_pipeline.lib.store.schema.database import ARCHIVE_TABLE
from memory_pipeline.lib.store.writes.entities import EntityResolver, extract_entities
from memory_pipeline.lib.store.writes.part import OpenStore, StorePart, inserted_id
from memory_pipeline.lib.store.writes.written import WrittenWrites

BANK_SUMS = "memory_pipeline_bank_sums"
_BLOCK_ROWS = 1024  # vectors decoded at once when a bank is summed in full: bounded memory


class FactWrites(StorePart):
    """Part of a transaction (`StoreWrites`). Every change to a fact's vector or
    category is noted, so each touched bank is brought up to date by its change alone (see
    `rebuild_banks`). A fact it deletes or archives is forgotten by `written`."""

    def __init__(self, store: OpenStore, *, written: WrittenWrites) -> None:
        super().__init__(store)
        self.written = written
        self.begin()

    def begin(self) -> None:
        """Fresh per transaction: what a rolled-back one noted or cached is forgotten."""
        dim = self.settings.hrr_dim
        self._resolver: EntityResolver | None = None
        self.atoms = hrr.AtomCache(dim)
        self._decodable = vector_codec.decodable_sql("hrr_vector", dim)
        self._format: VectorFormat | None = None
        self._sum_delta: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(dim, dtype=np.complex128))
        self._count_delta: dict[str, int] = defaultdict(int)
        self._unlinked: set[int] = set()  # entities a relink took links from: dropped at commit if left with none
        self._needs_full: set[str] = set()

    @property
    def resolver(self) -> EntityResolver:
        """Built on first use (it reads every entity's name): opening a store to read costs nothing."""
        if self._resolver is None:
            self._resolver = EntityResolver(self.conn)
        return self._resolver

    @property
    def vector_format(self) -> VectorFormat:
        """The dialect this transaction writes vectors and banks in, decided on first use (a run
        that writes no vector never asks)."""
        if self._format is None:
            self._format = vector_codec.resolve_format(self.conn, self.settings.hrr_dim, self.settings.vector_format)
        return self._format

    def encode(self, phases: np.ndarray) -> bytes:
        return vector_codec.encode(phases, self.vector_format)

    @property
    def categories(self) -> set[str]:
        return set(self._sum_delta) | self._needs_full

    def vector_changed(self, old_category: str | None, old_blob: bytes | None, new_category: str | None, new_blob: bytes | None) -> None:
        """A fact's (category, vector) went from old to new (None: absent, e.g. inserted or deleted)."""
        if old_blob == new_blob and old_category == new_category:
            return
        for category, blob, sign in ((old_category, old_blob, -1), (new_category, new_blob, 1)):
            if category is None or blob is None:
                continue
            phases = vector_codec.decode(blob, self.settings.hrr_dim)
            if phases is None:
                self._needs_full.add(category)  # a malformed vector: only a full rebuild is right
                continue
            self._sum_delta[category] += sign * (np.cos(phases) + 1j * np.sin(phases))
            self._count_delta[category] += sign

    def resolve(self, names: Iterable[str]) -> list[tuple[int, str]]:
        """(entity_id, stored name) per distinct entity, in entity_id order: the order in which
        Holographic's vector query returns a fact's entities."""
        resolved: dict[int, str] = {}
        for name in names:
            entity_id, stored = self.entity(name)
            resolved.setdefault(entity_id, stored)
        return sorted(resolved.items())

    def entity(self, name: str) -> tuple[int, str]:
        """(entity_id, stored name) the name resolves to, a new entity row when none answers."""
        found = self.resolver.find(name)
        if found is None:
            found = self.resolver.added(inserted_id(self.conn.execute("INSERT INTO entities (name) VALUES (?)", (name,))), name)
        return found

    def links_for(self, content: str, entity: str | None = None) -> list[tuple[int, str]]:
        explicit = [entity] if isinstance(entity, str) and entity.strip() else []
        return self.resolve(extract_entities(content, explicit))

    def current_links(self, fact_id: int) -> list[int]:
        return [r[0] for r in self.conn.execute("SELECT entity_id FROM fact_entities WHERE fact_id = ? ORDER BY entity_id", (fact_id,))]

    def vector(self, content: str, links: list[tuple[int, str]]) -> bytes:
        return self.encode(hrr.encode_fact(content, [name for _, name in links], self.atoms))

    def set_links(self, fact_id: int, links: list[tuple[int, str]], *, fresh: bool = False) -> None:
        if not fresh:
            self.conn.execute("DELETE FROM fact_entities WHERE fact_id = ?", (fact_id,))
        self.conn.executemany(
            "INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) VALUES (?, ?)",
            [(fact_id, entity_id) for entity_id, _ in links],
        )

    def relink(self, fact_id: int, content: str, links: list[tuple[int, str]]) -> None:
        """New entity links and the vector that encodes them (the category's bank follows)."""
        category, old_blob = self.conn.execute("SELECT category, hrr_vector FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
        self._unlinked.update(self.current_links(fact_id))
        self.set_links(fact_id, links)
        blob = self.vector(content, links)
        self.conn.execute("UPDATE facts SET hrr_vector = ? WHERE fact_id = ?", (blob, fact_id))
        self.vector_changed(category, old_blob, category, blob)

    def add_missing_vectors(self) -> int:
        """Each fact stored without a vector (Holographic writes them so when NumPy is missing
        from Hermes' environment) given the one Holographic computes, from its content and linked
        entities: only the empty column is filled, nothing else of the fact changes. How many."""
        added = 0
        for fact_id, category, raw in facts_without_vector(self.conn):
            try:
                content = raw.decode("utf-8")
            except UnicodeDecodeError:
                continue  # fact_links names it; no vector can stand for what cannot be read
            blob = self.vector(content, [(0, name) for name in linked_entity_names(self.conn, fact_id)])
            self.conn.execute("UPDATE facts SET hrr_vector = ? WHERE fact_id = ?", (blob, fact_id))
            self.vector_changed(None, None, category, blob)
            added += 1
        return added

    def drop_unlinked_entities(self) -> None:
        """An entity a relink left with no fact at all (a person's name once its fact became private)
        would still answer a probe of that name: it goes, before the transaction commits. One look
        at the links for every relink of the transaction (fact_entities has no index by entity)."""
        unlinked, self._unlinked = sorted(self._unlinked), set()
        for start in range(0, len(unlinked), 500):
            chunk = unlinked[start : start + 500]
            self.conn.execute(
                f"""DELETE FROM entities WHERE entity_id IN ({",".join("?" * len(chunk))})
                    AND entity_id NOT IN (SELECT entity_id FROM fact_entities)""",
                chunk,
            )

    def delete(self, fact_id: int) -> bool:
        """The fact and its entity links deleted, its bank noted; False when there is no such fact."""
        row = self.conn.execute("SELECT category, hrr_vector FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
        if row is None:
            return False
        self.conn.execute("DELETE FROM fact_entities WHERE fact_id = ?", (fact_id,))
        self.conn.execute("DELETE FROM facts WHERE fact_id = ?", (fact_id,))
        self.conn.execute(f"DELETE FROM {VECTORS_TABLE} WHERE fact_id = ?", (fact_id,))  # gone from recall by meaning too
        self.written.forget_written(fact_id)
        self.vector_changed(row[0], row[1], None, None)
        return True

    def archive(self, fact_id: int) -> bool:
        """The fact moved out of Hermes' tables into the archive (its row, its entity links' ids),
        its bank noted: no Hermes tool returns it at any trust. False when there is no such fact."""
        moved = self.conn.execute(
            f"""INSERT OR REPLACE INTO {ARCHIVE_TABLE} (fact_id, content, category, tags, trust_score, retrieval_count,
                    helpful_count, created_at, updated_at, hrr_vector, entity_ids)
                SELECT fact_id, content, category, tags, trust_score, retrieval_count, helpful_count, created_at, updated_at,
                    hrr_vector, coalesce((SELECT group_concat(entity_id) FROM fact_entities WHERE fact_id = facts.fact_id), '')
                FROM facts WHERE fact_id = ?""",
            (fact_id,),
        ).rowcount
        return bool(moved) and self.delete(fact_id)

    def restore(self, content: str) -> int | None:
        """An archived fact with this content put back with its own id, tags, trust and links (the
        entities that still exist), its bank noted; its id, or None when none is archived or
        Hermes holds that content already."""
        row = self.conn.execute(f"SELECT fact_id FROM {ARCHIVE_TABLE} WHERE content = ? ORDER BY fact_id LIMIT 1", (content,)).fetchone()
        return self.restore_id(row[0]) if row is not None else None

    def restore_id(self, fact_id: int) -> int | None:
        """The archived fact with this id put back as `restore` does; None when it is not archived,
        or Hermes holds its id or its content already."""
        row = self.conn.execute(
            f"SELECT content, category, hrr_vector, entity_ids FROM {ARCHIVE_TABLE} WHERE fact_id = ?", (fact_id,)
        ).fetchone()
        if row is None or self.conn.execute("SELECT 1 FROM facts WHERE content = ? OR fact_id = ?", (row[0], fact_id)).fetchone():
            return None
        category, blob, entity_ids = row[1:]
        self.conn.execute(
            f"""INSERT INTO facts (fact_id, content, category, tags, trust_score, retrieval_count, helpful_count, created_at,
                    updated_at, hrr_vector)
                SELECT fact_id, content, category, tags, trust_score, retrieval_count, helpful_count, created_at,
                    CURRENT_TIMESTAMP, hrr_vector FROM {ARCHIVE_TABLE} WHERE fact_id = ?""",
            (fact_id,),
        )
        linked = [int(i) for i in (entity_ids or "").split(",") if i]
        self.conn.executemany(
            "INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) SELECT ?, entity_id FROM entities WHERE entity_id = ?",
            [(fact_id, i) for i in linked],
        )
        self.conn.execute(f"DELETE FROM {ARCHIVE_TABLE} WHERE fact_id = ?", (fact_id,))
        self.vector_changed(None, None, category, blob)
        return fact_id

    def rebuild_banks_in_full(self, categories: set[str]) -> None:
        """Rebuild these banks from their vectors, whatever the kept sums say (repairs)."""
        self._needs_full.update(categories)
        self.rebuild_banks()

    def rebuild_banks(self) -> None:
        """Bring every touched category's bank (`cat:<category>`: the bundle of its vectors) up to
        date. A bank is the angle of a sum of phasors; the pipeline keeps that sum beside it
        (`memory_pipeline_bank_sums`), so an update costs only the changed vectors. The kept sum is
        used only while the bank is exactly the one the pipeline wrote (same hash, same count, and
        the count still matches the facts): after Hermes rebuilt a bank itself, or anything odd,
        the bank is rebuilt in full, streamed from every vector of its category."""
        for category in sorted(c for c in self.categories if c is not None):
            name = f"cat:{category}"
            present = self.conn.execute(f"SELECT count(*) FROM facts WHERE category = ? AND {self._decodable}", (category,)).fetchone()[0]
            total = self._kept_sum(name, category, present)
            if total is None:
                total = self._full_sum(category)
            if present == 0:
                self.conn.execute("DELETE FROM memory_banks WHERE bank_name = ?", (name,))
                self.conn.execute(f"DELETE FROM {BANK_SUMS} WHERE bank_name = ?", (name,))
                continue
            blob = self.encode(np.angle(total) % hrr.TWO_PI)
            self.conn.execute(
                """INSERT INTO memory_banks (bank_name, vector, dim, fact_count, updated_at)
                   VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)
                   ON CONFLICT(bank_name) DO UPDATE SET vector = excluded.vector, dim = excluded.dim,
                       fact_count = excluded.fact_count, updated_at = excluded.updated_at""",
                (name, blob, self.settings.hrr_dim, present),
            )
            self.conn.execute(
                f"INSERT OR REPLACE INTO {BANK_SUMS} (bank_name, fact_count, sum_re, sum_im, bank_sha256) VALUES (?, ?, ?, ?, ?)",
                (name, present, total.real.tobytes(), total.imag.tobytes(), hashlib.sha256(blob).hexdigest()),
            )

    def _kept_sum(self, name: str, category: str, present: int) -> np.ndarray | None:
        if category in self._needs_full:
            return None
        kept = self.conn.execute(f"SELECT fact_count, sum_re, sum_im, bank_sha256 FROM {BANK_SUMS} WHERE bank_name = ?", (name,)).fetchone()
        bank = self.conn.execute("SELECT vector, fact_count, dim FROM memory_banks WHERE bank_name = ?", (name,)).fetchone()
        if kept is None or bank is None:
            return None
        count, real, imag, digest = kept
        if (bank[1], bank[2]) != (count, self.settings.hrr_dim) or hashlib.sha256(bank[0]).hexdigest() != digest:
            return None
        if count + self._count_delta.get(category, 0) != present:
            return None
        total = np.frombuffer(real, dtype=np.float64) + 1j * np.frombuffer(imag, dtype=np.float64)
        return total + self._sum_delta.get(category, 0)

    def _full_sum(self, category: str) -> np.ndarray:
        """The sum over every decodable vector of the category, whichever dialect, streamed."""
        dim = self.settings.hrr_dim
        bank = hrr.BankAccumulator(dim)
        cursor = self.conn.execute(f"SELECT hrr_vector FROM facts WHERE category = ? AND {self._decodable} ORDER BY fact_id", (category,))
        while block := cursor.fetchmany(_BLOCK_ROWS):
            bank.add_rows(vector_codec.decode_rows((blob for (blob,) in block), dim))
        return bank.sum()
