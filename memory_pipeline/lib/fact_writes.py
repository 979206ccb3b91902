"""The writes every change to a fact needs so Holographic reads it as its own: entity links
resolved its way, the HRR vector over content and linked entities, the category banks."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from memory_pipeline.lib import hrr
from memory_pipeline.lib.entities import EntityResolver, extract_entities
from memory_pipeline.lib.store import HolographicSettings


class FactWrites:
    """Used inside one write transaction; remembers which categories' banks went stale."""

    def __init__(self, conn: sqlite3.Connection, settings: HolographicSettings):
        self.conn = conn
        self.settings = settings
        self.resolver = EntityResolver(conn)
        self.atoms = hrr.AtomCache(settings.hrr_dim)
        self.categories: set[str] = set()

    def resolve(self, names: Iterable[str]) -> list[tuple[int, str]]:
        """(entity_id, stored name) per distinct entity, in entity_id order: the order in which
        Holographic's vector query returns a fact's entities."""
        resolved: dict[int, str] = {}
        for name in names:
            entity_id, stored = self.resolver.resolve(name)
            resolved.setdefault(entity_id, stored)
        return sorted(resolved.items())

    def links_for(self, content: str, entity: str | None = None) -> list[tuple[int, str]]:
        explicit = [entity] if isinstance(entity, str) and entity.strip() else []
        return self.resolve(extract_entities(content, explicit))

    def current_links(self, fact_id: int) -> list[int]:
        return [r[0] for r in self.conn.execute("SELECT entity_id FROM fact_entities WHERE fact_id = ? ORDER BY entity_id", (fact_id,))]

    def vector(self, content: str, links: list[tuple[int, str]]) -> bytes:
        return hrr.to_bytes(hrr.encode_fact(content, [name for _, name in links], self.atoms))

    def set_links(self, fact_id: int, links: list[tuple[int, str]], *, fresh: bool = False) -> None:
        if not fresh:
            self.conn.execute("DELETE FROM fact_entities WHERE fact_id = ?", (fact_id,))
        self.conn.executemany(
            "INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) VALUES (?, ?)",
            [(fact_id, entity_id) for entity_id, _ in links],
        )

    def relink(self, fact_id: int, content: str, links: list[tuple[int, str]]) -> None:
        """New entity links and the vector that encodes them (the category's bank follows)."""
        self.set_links(fact_id, links)
        self.conn.execute("UPDATE facts SET hrr_vector = ? WHERE fact_id = ?", (self.vector(content, links), fact_id))

    def rebuild_banks(self) -> None:
        """Each touched category's bank, streamed from every vector of that category (Hermes'
        own facts included), so memory stays flat however many facts there are."""
        expected = 8 * self.settings.hrr_dim
        for category in sorted(c for c in self.categories if c is not None):
            bank = hrr.BankAccumulator(self.settings.hrr_dim)
            for (blob,) in self.conn.execute(
                "SELECT hrr_vector FROM facts WHERE category = ? AND hrr_vector IS NOT NULL ORDER BY fact_id", (category,)
            ):
                if len(blob) == expected:
                    bank.add(hrr.from_bytes(blob))
            name = f"cat:{category}"
            if bank.count == 0:
                self.conn.execute("DELETE FROM memory_banks WHERE bank_name = ?", (name,))
                continue
            self.conn.execute(
                """INSERT INTO memory_banks (bank_name, vector, dim, fact_count, updated_at)
                   VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)
                   ON CONFLICT(bank_name) DO UPDATE SET vector = excluded.vector, dim = excluded.dim,
                       fact_count = excluded.fact_count, updated_at = excluded.updated_at""",
                (name, hrr.to_bytes(bank.vector()), self.settings.hrr_dim, bank.count),
            )
