"""Entities as Holographic 0.19.0's `add_fact` finds and resolves them (DESIGN §3)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

_CAPITALISED = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b")
_DOUBLE_QUOTED = re.compile(r'"([^"]+)"')
_SINGLE_QUOTED = re.compile(r"'([^']+)'")
_AKA = re.compile(r"(\w+(?:\s+\w+)*)\s+(?:aka|also known as)\s+(\w+(?:\s+\w+)*)", re.IGNORECASE)
# SQLite's LIKE folds ASCII letters only.
_ASCII_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_LIKE_WILDCARDS = ("%", "_")


def extract_entities(text: str, explicit: Iterable[str] = ()) -> list[str]:
    """Capitalised phrases, quoted spans, both sides of `X aka Y`, then any explicit entities;
    de-duplicated case-insensitively keeping the first spelling."""
    seen: set[str] = set()
    names: list[str] = []

    def add(name: str) -> None:
        stripped = name.strip()
        if stripped and stripped.lower() not in seen:
            seen.add(stripped.lower())
            names.append(stripped)

    for match in _CAPITALISED.finditer(text):
        add(match.group(1))
    # The quote and aka patterns cannot match without their marker; skipping the scan then
    # spares the aka pattern's backtracking on every entry.
    if '"' in text:
        for match in _DOUBLE_QUOTED.finditer(text):
            add(match.group(1))
    if "'" in text:
        for match in _SINGLE_QUOTED.finditer(text):
            add(match.group(1))
    lowered = text.lower()
    if "aka" in lowered or "also known as" in lowered:
        for match in _AKA.finditer(text):
            add(match.group(1))
            add(match.group(2))
    for name in explicit:
        add(name)
    return names


class EntityResolver:
    """Resolves names to entity rows the way Holographic does (`name LIKE ?`, then aliases, else
    a new row), without a table scan per name: LIKE without wildcards is ASCII-case-insensitive
    equality, so an index of folded names answers it; the rare wildcard or alias case asks SQLite."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn
        self._by_folded: dict[str, tuple[int, str]] = {}
        self._has_aliases = False
        for entity_id, name, aliases in conn.execute("SELECT entity_id, name, aliases FROM entities ORDER BY entity_id"):
            self._by_folded.setdefault((name or "").translate(_ASCII_FOLD), (entity_id, name))
            self._has_aliases = self._has_aliases or bool(aliases)

    def resolve(self, name: str) -> tuple[int, str]:
        """(entity_id, stored name) — the stored spelling is what the fact's vector encodes."""
        if any(w in name for w in _LIKE_WILDCARDS):
            row = self._conn.execute("SELECT entity_id, name FROM entities WHERE name LIKE ? ORDER BY entity_id", (name,)).fetchone()
            if row is not None:
                return row[0], row[1]
        else:
            found = self._by_folded.get(name.translate(_ASCII_FOLD))
            if found is not None:
                return found
        if self._has_aliases:
            row = self._conn.execute(
                "SELECT entity_id, name FROM entities WHERE ',' || aliases || ',' LIKE '%,' || ? || ',%' ORDER BY entity_id",
                (name,),
            ).fetchone()
            if row is not None:
                return row[0], row[1]
        entity_id = self._conn.execute("INSERT INTO entities (name) VALUES (?)", (name,)).lastrowid
        self._by_folded.setdefault(name.translate(_ASCII_FOLD), (entity_id, name))
        return entity_id, name
