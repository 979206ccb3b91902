"""What counts as personal data in a fact: the user's keyword list and built-in detectors.

Nothing here ever returns or formats a matched term or value: callers learn *that* a text is
private and *which kinds* of rule matched (`keyword`, `email`, …), nothing else. The keyword
list's terms are known only by their count and the file's SHA-256.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import re
from dataclasses import dataclass
from pathlib import Path

import re2

from memory_pipeline.lib.hermes.safe_files import UnreadableFile, read_regular_file
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


def keyword_list_path(explicit: str | os.PathLike | None, hermes_home: Path) -> Path:
    """The list named (`environment.keywords_named`: the flag, else the variable), else the home's own
    `<hermes-home>/memory-pipeline/privacy_keywords.txt` (which may not exist)."""
    # absolute(), not resolve(): messages name the path the user gave, not where a link points.
    if explicit:
        return Path(explicit).expanduser().absolute()
    return hermes_home / "memory-pipeline" / "privacy_keywords.txt"


def load_keyword_list(explicit: str | os.PathLike | None, hermes_home: Path) -> KeywordList:
    """The list that applies. A list named by flag or variable must be there; the home's own may
    be absent: then there are no terms, and the built-in detectors alone decide what is private."""
    path = keyword_list_path(explicit, hermes_home)
    if not explicit and not path.exists():
        return KeywordList(path, EMPTY_LIST_SHA256, 0, (), ())
    return load_keywords(path)


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


# --- built-in detectors ---------------------------------------------------------------------

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
# CN mobile: 1[3-9] + 9 digits, optionally as 3-4-4 groups, optionally +86; not inside a longer
# number or an ASCII identifier (order numbers, `#13800138000`, `ORD13800138000`). Chinese text
# may touch it directly (`手机13800138000`).
_CN_MOBILE = re.compile(r"(?<![A-Za-z0-9#])(?:\+?86[\s-]?)?1[3-9]\d(?:[\s-]?\d{4}){2}(?![A-Za-z0-9-])")
# International: a leading + and country code, then 6-14 more digits in groups.
_INTL_PHONE = re.compile(r"(?<![\w+])\+[1-9]\d{0,2}(?:[\s.-]?\(?\d{1,4}\)?){2,5}(?![\w-])")
_IPV4 = re.compile(r"(?<![\w.])((?:\d{1,3}\.){3}\d{1,3})(?![\w.-])")
_VERSION_CONTEXT = re.compile(r"(?:\b(?:v|version|ver\.?|release|semver)|版本)\s*$", re.IGNORECASE)
_IPV6 = re.compile(r"(?<![\w:])((?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4})(?![\w:])")
_CN_ID = re.compile(r"(?<!\d)(\d{17}[\dXx])(?![\dXx])")
_CARD = re.compile(r"(?<![\d-])((?:\d[ -]?){12,18}\d)(?![\d-])")
_CARD_PREFIX = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[47]|6(?:011|5|2)|35)")
_ADDRESS = re.compile(
    r"(?:[\u4e00-\u9fff]{1,8}(?:省|市|区|县)[\u4e00-\u9fff\d]{0,12}(?:路|街|道|巷|弄)\d{1,5}号)"
    r"|(?:\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,4}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Parkway|Pkwy|Way|Place|Pl)\b)"
)
_SECRET = re.compile(
    r"(?:\bsk-[A-Za-z0-9_-]{20,}|\bghp_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{40,}|\bAKIA[0-9A-Z]{16}\b"
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}|-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----"
    r"|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r"|(?i:\b(?:api[_-]?key|access[_-]?token|secret|password|passwd)\b\s*[:=]\s*['\"]?[^\s'\"]{8,}))"
)
# Every secret pattern contains one of these (lower-cased); text without any skips the scan.
_SECRET_MARKERS = ("sk-", "ghp_", "github_pat_", "akia", "xox", "-----begin", "eyj", "key", "token", "secret", "passw")
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def _cn_id_valid(number: str) -> bool:
    total = sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS, strict=True))
    if _ID_CHECK[total % 11] != number[17].upper():
        return False
    year, month, day = int(number[6:10]), int(number[10:12]), int(number[12:14])
    return 1900 <= year <= 2100 and 1 <= month <= 12 and 1 <= day <= 31


def _luhn_valid(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _ipv4_found(text: str) -> bool:
    for match in _IPV4.finditer(text):
        if _VERSION_CONTEXT.search(text[max(0, match.start() - 12) : match.start()]):
            continue  # "version 1.2.3.4", "v10.0.0.1"
        try:
            address = ipaddress.IPv4Address(match.group(1))
        except ValueError:
            continue
        if not (address.is_loopback or address.is_unspecified):  # 127.0.0.1 says nothing about anyone
            return True
    return False


def _ipv6_found(text: str) -> bool:
    for match in _IPV6.finditer(text):
        candidate = match.group(1)
        if candidate.count(":") < 2 or not re.search(r"[0-9A-Fa-f]", candidate):
            continue
        try:
            address = ipaddress.IPv6Address(candidate)
        except ValueError:
            continue
        if not (address.is_loopback or address.is_unspecified):
            return True
    return False


def _card_found(text: str) -> bool:
    for match in _CARD.finditer(text):
        digits = re.sub(r"[ -]", "", match.group(1))
        if 13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) and _luhn_valid(digits):
            return True
    return False


def _cn_id_found(text: str) -> bool:
    return any(_cn_id_valid(m.group(1)) for m in _CN_ID.finditer(text))


# Cheap gates: a phone, ID or card number needs eleven digits in a row (single separators aside:
# a CN mobile has 11, a card 13, an ID 18; an international number also starts with `+`), an IP
# address a digit-dot-digit or a double colon; most facts have neither, and skip those scans.
_LONG_NUMBER = re.compile(r"\d(?:[\s-]?\d){10,}")
_IP_HINT = re.compile(r"\d\.\d|:[0-9A-Fa-f]*:")

DETECTORS = {
    "email": lambda t, long_number: "@" in t and bool(_EMAIL.search(t)),
    "phone": lambda t, long_number: bool((long_number and _CN_MOBILE.search(t)) or ("+" in t and _INTL_PHONE.search(t))),
    "ip_address": lambda t, long_number: bool(_IP_HINT.search(t)) and (_ipv4_found(t) or _ipv6_found(t)),
    "cn_resident_id": lambda t, long_number: long_number and _cn_id_found(t),
    "payment_card": lambda t, long_number: long_number and _card_found(t),
    "street_address": lambda t, long_number: bool(_ADDRESS.search(t)),
    "secret": lambda t, long_number: any(m in t.lower() for m in _SECRET_MARKERS) and bool(_SECRET.search(t)),
}


# What every detector needs at the least, in one pass: an @, eleven digits in a row, a +, a
# digit-dot-digit or a double colon, a 号 or a house number before a capitalised word, a secret's
# marker. A text with none of these cannot match any detector (most facts).
_ANY_DETECTOR = re.compile(
    r"@|\d(?:[\s-]?\d){10}|\+[1-9]|\d\.\d|:[0-9A-Fa-f]*:|号|\d\s+[A-Z]|sk-|ghp_|github_pat_|AKIA|xox|-----BEGIN|eyJ"
    r"|(?i:api[_-]?key|access[_-]?token|secret|passw)"
)


# The same gate in RE2 syntax (DuckDB's regexp_matches), for filtering many facts at once; a
# superset of every detector, so facts it rejects need no further look. Python's `\\d` and `\\s`
# are Unicode-wide, so they become RE2's `\\pN` and the Unicode spaces here.
_RE2_SPACE = r"[\s\x{0b}\pZ\x{1c}-\x{1f}\x{85}]"
DETECTOR_GATE_RE2 = (
    rf"@|\pN(?:(?:{_RE2_SPACE}|-)?\pN){{10}}|\+[1-9]|\pN\.\pN|:[0-9A-Fa-f]*:|号|\pN{_RE2_SPACE}+[A-Z]"
    r"|sk-|ghp_|github_pat_|AKIA|xox|-----BEGIN|eyJ|(?i:api[_-]?key|access[_-]?token|secret|passw)"
)


def detect(text: str) -> list[str]:
    """Names of the built-in detectors that fire on a text (never what they matched)."""
    if not _ANY_DETECTOR.search(text):
        return []
    long_number = bool(_LONG_NUMBER.search(text))
    return [name for name, found in DETECTORS.items() if found(text, long_number)]


def private_reasons(text: str, keywords: KeywordList) -> list[str]:
    reasons = ["keyword"] if keywords.matches(text) else []
    return reasons + detect(text)


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
