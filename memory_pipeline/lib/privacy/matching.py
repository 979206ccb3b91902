"""What counts as personal data in a fact: the user's keyword list and built-in detectors.

Nothing here ever returns or formats a matched term or value: callers learn *that* a text is
private and *which kinds* of rule matched (`keyword`, `email`, …), nothing else; only the owner's
`why` on the command line asks which term (`KeywordList.terms_in`). The keyword list's terms are
otherwise known only by their count and the file's SHA-256.

Every rule reads the folded text (`folding.py`). A plain term is folded the same way and matches
as a word where it starts or ends with a Latin letter, digit or `_` (`Lin` finds `Lin`, `找Lin聊`,
`Lin's`, never `LinkedIn` or `pipeline`): any other character, a Chinese one included, is a
boundary. A Chinese, Japanese or Korean term matches anywhere, as such words are written without
spaces. `re:` lines are RE2 expressions over the folded, case-folded text.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import re2

from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file
from memory_pipeline.lib.in_hermes.search_gate import list_digest, united_sha256
from memory_pipeline.lib.in_hermes.search_query import CJK_CHAR
from memory_pipeline.lib.privacy.detectors import DEFAULT_CATEGORIES, DETECTOR_GATE_RE2, detect  # noqa: F401 - re-exported
from memory_pipeline.lib.privacy.folding import Folded, folded
from memory_pipeline.lib.privacy.keyword_sets import compiled_sets
from memory_pipeline.lib.store.schema.database import PRIVATE_TAG

PRIVATE_ENTITY = "private-person"
# Spellings of the tag seen in the wild (`audit_consistency.py`'s `private_person`), folded to one.
_TAG_VARIANT = re.compile(r"^private[\s_\-]*person$", re.IGNORECASE)


class KeywordListError(Exception):
    """The keyword list cannot be used. The message names the file and line, never a term."""


@dataclass(frozen=True)
class KeywordList:
    """The user's private terms, compiled by RE2, which runs in time linear in the text (no pattern
    can hang a sync): each `re:` line on its own, so no group numbering or inline flag of one line
    can change another's meaning; plain terms in alternations of up to `_GROUP` terms that share
    their word edges (one expression each, so a list of thousands compiles in a moment)."""

    path: Path | None
    sha256: str  # the list's digest (`list_digest`): keyed by the file `key_file` holds
    terms: int
    # A list too large for one RE2 set (its memory budget) is several: the same matches, still in
    # linear time. Each set's expressions in `_chunks`, in the same order.
    _sets: tuple[re2.Set, ...]
    _chunks: tuple[tuple[str, ...], ...]
    _members: tuple[tuple[str, ...], ...] = ()  # the lines each expression stands for, in order: for the owner alone
    # The lists a shared store's union was made of, each (path, digest); empty for one list.
    sources: tuple[tuple[Path | None, str], ...] = ()
    key_file: Path | None = None  # the home's digest key the digest was made with; None: a plain SHA-256

    def matches(self, text: str | Folded) -> bool:
        caseless = (text if isinstance(text, Folded) else folded(text)).caseless_utf8
        return any(terms.Match(caseless) for terms in self._sets)

    def terms_in(self, text: str | Folded) -> list[str]:
        """The terms (as their lines read) that match a text: what `why` tells the list's owner on
        the command line, and nothing else ever asks."""
        caseless = (text if isinstance(text, Folded) else folded(text)).caseless
        found, offset = [], 0
        for terms, chunk in zip(self._sets, self._chunks, strict=True):
            for index in sorted(terms.Match(caseless) or ()):
                lines = self._members[offset + index]
                found += [line for line in lines if len(lines) == 1 or _line_matches(line, caseless)]
            offset += len(chunk)
        return found

    def matching(self, texts: Mapping[int, str]) -> set[int]:
        """The keys of the texts the list matches, exactly as `matches` says of each: the texts
        folded and scanned as one (a re-tag after a list edit asks this of every fact), then each
        text the scan points at judged alone."""
        scanners = self._scanners
        if not texts or not self._sets:
            return set()
        keys, values = list(texts), list(texts.values())
        blob = folded("\x00".join(values)).caseless_utf8 if scanners else b""
        ends = [m.start() for m in _NUL.finditer(blob)]
        if not scanners or len(ends) != len(values) - 1:  # a text holding NUL: each on its own
            return {key for key, text in texts.items() if self.matches(text)}
        pointed: set[int] = set()
        for scanner in scanners:
            found = scanner.search(blob, 0)
            while found is not None:
                index = bisect.bisect_right(ends, found.start())
                pointed.add(index)
                # On from this text's end (the NUL, the next one's leading edge): a match that ran on
                # past it must not hide one in the next text.
                found = scanner.search(blob, ends[index]) if index < len(ends) else None
        return {keys[i] for i in pointed if self.matches(values[i])}

    @functools.cached_property
    def _scanners(self) -> tuple[re2._Regexp, ...] | None:
        """One expression per set for scanning many texts joined by NUL; None when an `re:` line
        anchors to a text's start or end (`^`, `$`, `\\A`, `\\z`), which a joined text moves.
        Every expression of ours reads NUL as the word edge a text's end is."""
        own = [m for m in self._members if len(m) == 1 and m[0].startswith("re:")]
        if len(self._members) != sum(map(len, self._chunks)) or any(_ANCHOR.search(line[3:]) for (line,) in own):
            return None
        try:
            return tuple(re2.compile(prefilter, options=_re2_options()) for prefilter in self.re2_prefilters)
        except re2.error:  # too large as one expression: the sets still judge each text
            return None

    @property
    def re2_prefilters(self) -> list[str]:
        """RE2 expressions (DuckDB's `regexp_matches`, flag `i`), one per set, that together match
        exactly what the list matches on folded text, for a vectorised scan; none for an empty
        list. Never to be shown anywhere."""
        return ["|".join(f"(?:{e})" for e in chunk) for chunk in self._chunks]


def united(lists: list[KeywordList]) -> KeywordList:
    """Several profiles' lists as one (the profiles share a store): a text any of them matches is
    private. Known by the hash of their hashes (`united_sha256`); the first list's path stays the
    one its profile remembers."""
    distinct = list({(lst.path, lst.sha256): lst for lst in lists}.values())
    if len(distinct) == 1:
        return distinct[0]
    return KeywordList(
        distinct[0].path,
        united_sha256([lst.sha256 for lst in distinct]),
        sum(lst.terms for lst in distinct),
        tuple(s for lst in distinct for s in lst._sets),
        tuple(c for lst in distinct for c in lst._chunks),
        tuple(m for lst in distinct for m in lst._members),
        tuple((lst.path, lst.sha256) for lst in distinct),
        distinct[0].key_file,
    )


_GROUP = 256  # plain terms per alternation
_NUL = re.compile(b"\x00")
_ANCHOR = re.compile(r"[\^$]|\\[Az]")


def no_terms(path: Path | None, key: bytes | None = None, key_file: Path | None = None) -> KeywordList:
    """No list (or an absent own list): no terms, known as an empty file is."""
    return KeywordList(path, list_digest(b"", key), 0, (), (), key_file=key_file)


def load_keywords(path: Path, key: bytes | None = None, key_file: Path | None = None) -> KeywordList:
    """One term per line; `#` starts a comment line; `re:` makes the rest a regular expression.
    Plain terms match case-insensitively as words (see the module's docstring). Known by its
    digest under `key` (the home's digest key, read from `key_file`)."""
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
    expressions: list[str] = []
    members: list[tuple[str, ...]] = []
    plain: dict[tuple[bool, bool], list[tuple[str, str]]] = {}  # by word edges: (line, folded term)
    for number, line in enumerate(text.splitlines(), start=1):
        term = line.strip()
        if not term or term.startswith("#"):
            continue
        if not term.startswith("re:"):
            caseless = folded(term).caseless
            plain.setdefault(_edges(caseless), []).append((term, caseless))
            continue
        problem = _re2_problem(term[3:].strip())
        if problem:
            raise KeywordListError(f"{path}: line {number}: {problem}")
        expressions.append(term[3:].strip())
        members.append((term,))
    for edges, group in plain.items():
        for start in range(0, len(group), _GROUP):
            part = group[start : start + _GROUP]
            expressions.append(_bounded("|".join(spelled(caseless) for _, caseless in part), edges))
            members.append(tuple(line for line, _ in part))
    chunks = compiled_sets(expressions, _re2_options())
    if chunks is None:
        raise KeywordListError(
            f"{path}: privacy keyword list of {len(members)} terms cannot be compiled (RE2 ran out of memory even in small sets); "
            "shorten it or simplify its re: lines"
        )
    sets, chunked = tuple(s for s, _ in chunks), tuple(c for _, c in chunks)
    return KeywordList(path, list_digest(raw, key), sum(map(len, members)), sets, chunked, tuple(members), key_file=key_file)


# Around a term's Latin edge: the start or end of the text, or a character that is no letter of
# a spaced script (Latin, Greek, Cyrillic, their accents), digit or `_` (so CJK, spaces and
# punctuation are). A few ranges, not Unicode's properties: a list of thousands of terms compiles.
_EDGE = r"[^0-9a-z_\x{c0}-\x{24f}\x{300}-\x{36f}\x{370}-\x{52f}\x{1e00}-\x{1fff}]"


def term_expression(term: str) -> str:
    """A plain term's RE2 expression over folded, case-folded text: the term folded, bounded as a
    word on each edge that is a letter or digit of a spaced script."""
    caseless = folded(term).caseless
    return _bounded(spelled(caseless), _edges(caseless))


# What stands between a name's words however it is typed: white space, hyphens and dashes, dots,
# underscores, middle dots, or nothing at all (an invisible character removed).
_GAP = "[ \\t\\-_.\\x{b7}\\x{2010}-\\x{2015}\\x{2027}\\x{30fb}]*"
_GAP_CHARS = re.compile(r"[ \t\-_.\u00b7\u2010-\u2015\u2027\u30fb]+")


def spelled(caseless: str) -> str:
    """A folded term as RE2 finds it however its words are joined: `Zhang Wei` is found as
    `ZhangWei`, `Zhang  Wei`, `ZHANG-WEI` and `Zhang.Wei` (a model reads each as the name)."""
    return _GAP.join(re2.escape(word) for word in _GAP_CHARS.split(caseless) if word) or re2.escape(caseless)


def _edges(caseless: str) -> tuple[bool, bool]:
    """Whether the term's start and its end must be a word's."""
    return _spaced_word_char(caseless[0]), _spaced_word_char(caseless[-1])


def _bounded(alternatives: str, edges: tuple[bool, bool]) -> str:
    return f"{f'(?:^|{_EDGE})' if edges[0] else ''}(?:{alternatives}){f'(?:$|{_EDGE})' if edges[1] else ''}"


def _spaced_word_char(char: str) -> bool:
    """A letter or digit of a script written with spaces between words (not CJK), or `_`."""
    return (char.isalnum() or char == "_") and not CJK_CHAR.match(char)


def _line_matches(line: str, caseless: str) -> bool:
    expression = line[3:].strip() if line.startswith("re:") else term_expression(line)
    return re2.compile(expression, options=_re2_options()).search(caseless) is not None


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


def private_reasons(text: str | Folded, keywords: KeywordList, categories: frozenset[str] = DEFAULT_CATEGORIES) -> list[str]:
    """Why a text is private: `keyword` when the list matches, and each detector on that fires."""
    text = text if isinstance(text, Folded) else folded(text)
    reasons = ["keyword"] if keywords.matches(text) else []
    return reasons + detect(text, categories)


def normalise_tags(tags: str) -> tuple[str, bool]:
    """Fold tag variants to `private-person`; (tags, whether a variant was folded)."""
    if "erson" not in (tags or "").lower():  # no variant to fold (most facts): only blanks and repeats go
        return ",".join(dict.fromkeys(t for t in (p.strip() for p in (tags or "").split(",")) if t)), False
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
