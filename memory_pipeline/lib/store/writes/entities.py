"""Entities as Holographic 0.19.0's `add_fact` finds and resolves them."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

_CAPITALISED = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b")
_DOUBLE_QUOTED = re.compile(r'"([^"]+)"')
_SINGLE_QUOTED = re.compile(r"'([^']+)'")
# Holographic 0.19.0's alias rule is the regex
#     (\w+(?:\s+\w+)*)\s+(?:aka|also known as)\s+(\w+(?:\s+\w+)*)   (re.IGNORECASE)
# which backtracks quadratically on a long run of words with no usable "aka". `_aka_pairs` gives
# exactly its `finditer` groups in linear time, run by run (a run: words joined by white space).
_RUN = re.compile(r"\w+(?:\s+\w+)*")
_WORD = re.compile(r"\w+")
_AKA_WORD = re.compile(r"aka", re.IGNORECASE)
_ALSO_KNOWN_AS = re.compile(r"also known as", re.IGNORECASE)
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
    for alias, name in _aka_pairs(text):
        add(alias)
        add(name)
    for name in explicit:
        add(name)
    return names


def _aka_pairs(text: str) -> list[tuple[str, str]]:
    """Both sides of each `X aka Y` / `X also known as Y`, as the alias regex above finds them.

    That regex, scanning a run from its start, takes on the left the words up to the *last*
    `aka` (or `also known as`, its spaces single) that has a word before and after it, and on the
    right every word after it to the run's end; the scan then goes on after the run. A run with no
    such `aka` matches nowhere (a later start only has fewer words before each `aka`)."""
    lowered = text.lower()
    if "aka" not in lowered and "also known as" not in lowered:  # also spares the scan on nearly every entry
        return []
    pairs = []
    for run in _RUN.finditer(text):
        words = list(_WORD.finditer(run.group()))
        best = None  # (index of the last word before the marker, index of the first word after it)
        for i in range(1, len(words) - 1):
            if _AKA_WORD.fullmatch(words[i].group()):
                best = (i - 1, i + 1)
            elif i + 3 < len(words) and _ALSO_KNOWN_AS.fullmatch(run.group()[words[i].start() : words[i + 2].end()]):
                best = (i - 1, i + 3)
        if best is not None:
            left, right = best
            pairs.append((run.group()[: words[left].end()], run.group()[words[right].start() :]))
    return pairs


class EntityResolver:
    """Finds the entity row a name resolves to the way Holographic does (`name LIKE ?`, then
    aliases; `FactStore` adds a new row when none does), without a table scan per name: LIKE
    without wildcards is ASCII-case-insensitive equality, so an index of folded names answers it;
    the rare wildcard or alias case asks SQLite."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn
        self._by_folded: dict[str, tuple[int, str]] = {}
        self._has_aliases = False
        for entity_id, name, aliases in conn.execute("SELECT entity_id, name, aliases FROM entities ORDER BY entity_id"):
            self._by_folded.setdefault((name or "").translate(_ASCII_FOLD), (entity_id, name))
            self._has_aliases = self._has_aliases or bool(aliases)

    def find(self, name: str) -> tuple[int, str] | None:
        """(entity_id, stored name) — the stored spelling is what the fact's vector encodes; None
        when no entity answers to the name."""
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
        return None

    def added(self, entity_id: int, name: str) -> tuple[int, str]:
        """A row just added for the name, found from now on."""
        self._by_folded.setdefault(name.translate(_ASCII_FOLD), (entity_id, name))
        return entity_id, name
