"""What counts as personal data in a fact: the user's keyword list and built-in detectors.

Nothing here ever returns or formats a matched term or value: callers learn *that* a text is
private and *which kinds* of rule matched (`keyword`, `email`, …), nothing else. The keyword
list's terms are known only by their count and the file's SHA-256.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import re2

from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file
from memory_pipeline.lib.privacy.detectors import DEFAULT_CATEGORIES, DETECTOR_GATE_RE2, detect  # noqa: F401 - re-exported
from memory_pipeline.lib.privacy.keyword_sets import compiled_sets
from memory_pipeline.lib.store.database import PRIVATE_TAG

PRIVATE_ENTITY = "private-person"
EMPTY_LIST_SHA256 = hashlib.sha256(b"").hexdigest()  # an absent own list: no terms, as an empty file
# Spellings of the tag seen in the wild (`audit_consistency.py`'s `private_person`), folded to one.
_TAG_VARIANT = re.compile(r"^private[\s_\-]*person$", re.IGNORECASE)


class KeywordListError(Exception):
    """The keyword list cannot be used. The message names the file and line, never a term."""


@dataclass(frozen=True)
class KeywordList:
    """The user's private terms, each compiled on its own by RE2, which runs in time linear in the
    text (no pattern can hang a sync) and keeps no state across terms (no group numbering or
    inline flag of one line can change another's meaning)."""

    path: Path | None
    sha256: str
    terms: int
    # A list too large for one RE2 set (its memory budget) is several: the same matches, still in
    # linear time. Each set's expressions in `_chunks`, in the same order.
    _sets: tuple[re2.Set, ...]
    _chunks: tuple[tuple[str, ...], ...]  # the RE2 expression of each term (plain terms escaped)

    def matches(self, text: str) -> bool:
        return any(terms.Match(text) for terms in self._sets)

    @property
    def re2_prefilters(self) -> list[str]:
        """RE2 expressions (DuckDB's `regexp_matches`, flag `i`), one per set, that together match
        exactly what the list matches, for a vectorised scan; none for an empty list. Never to be
        shown anywhere."""
        return ["|".join(f"(?:{e})" for e in chunk) for chunk in self._chunks]


def load_keywords(path: Path) -> KeywordList:
    """One term per line; `#` starts a comment line; `re:` makes the rest a regular expression.
    Plain terms match case-insensitively anywhere in a fact."""
    try:
        raw = read_regular_file(path)
    except UnreadableFile as exc:
        raise KeywordListError(f"privacy keyword list {exc}") from None
    if raw is None:
        raise KeywordListError(f"{path}: privacy keyword list not found")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise KeywordListError(f"{path}: privacy keyword list is not UTF-8 (byte {exc.start})") from None
    expressions = []
    for number, line in enumerate(text.splitlines(), start=1):
        term = line.strip()
        if not term or term.startswith("#"):
            continue
        expression = term[3:].strip() if term.startswith("re:") else re2.escape(term)
        problem = _re2_problem(expression)
        if problem:
            raise KeywordListError(f"{path}: line {number}: {problem}")
        expressions.append(expression)
    chunks = compiled_sets(expressions, _re2_options())
    if chunks is None:
        raise KeywordListError(
            f"{path}: privacy keyword list of {len(expressions)} terms cannot be compiled (RE2 ran out of memory even in small sets); "
            "shorten it or simplify its re: lines"
        )
    return KeywordList(path, hashlib.sha256(raw).hexdigest(), len(expressions), tuple(s for s, _ in chunks), tuple(c for _, c in chunks))


def _re2_options() -> re2.Options:
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False  # RE2 would print the pattern, a private term, on stderr
    return options


def _re2_problem(expression: str) -> str | None:
    """Why RE2 refuses an expression, in words that quote none of it; None when it compiles."""
    try:
        re2.compile(expression, options=_re2_options())
    except re2.error as exc:
        raw = exc.args[0] if exc.args else b""
        message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        if "escape" in message and re.search(r"\\[1-9]", expression):
            return "back-references are not supported (keyword patterns run on RE2, in linear time)"
        if "perl operator" in message and re.search(r"\(\?<?[=!]", expression):
            return "look-arounds are not supported (keyword patterns run on RE2, in linear time)"
        # RE2 puts the offending fragment after a colon: keep only the kind of error.
        kind = message.split(":")[0].strip() or "invalid"
        return f"not a regular expression RE2 can run ({kind})"
    return None


def private_reasons(text: str, keywords: KeywordList, categories: frozenset[str] = DEFAULT_CATEGORIES) -> list[str]:
    """Why a text is private: `keyword` when the list matches, and each detector on that fires."""
    reasons = ["keyword"] if keywords.matches(text) else []
    return reasons + detect(text, categories)


def normalise_tags(tags: str) -> tuple[str, bool]:
    """Fold tag variants to `private-person`; (tags, whether a variant was folded)."""
    parts, folded = [], False
    for tag in (tags or "").split(","):
        tag = tag.strip()
        if not tag:
            continue
        if _TAG_VARIANT.match(tag):
            folded = folded or tag != PRIVATE_TAG
            tag = PRIVATE_TAG
        if tag not in parts:
            parts.append(tag)
    return ",".join(parts), folded
