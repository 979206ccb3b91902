"""The one normal form every judge reads: the keyword list, the built-in detectors and the unsafe
scan all see a fact's text folded the same way, so what a user types with a CJK input method in
full-width mode (`１３８００１３８０００`, `ｐａｓｓｗｏｒｄ：`), with a look-alike letter from
another script (Cyrillic `о` for `o`) or with invisible characters between letters is judged as
the plain text it reads as.

The fold: NFKC (full-width and compatibility forms to their plain ones, U+3000 to a space),
zero-width and bidirectional controls removed, the common Cyrillic and Greek look-alikes of Latin
letters mapped to those letters; `caseless` is the same text case-folded. Which characters a
boundary is (CJK next to Latin or digits is one) is the judges' own business: they read ASCII
word characters as words (`re.ASCII`, RE2's ASCII classes).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

# Characters that render as nothing or reorder what is shown: removed before judging (and their
# presence is itself a sign of hiding something, which the unsafe scan reports).
INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u202a\u202b\u202c\u202d\u202e"
    "\u2066\u2067\u2068\u2069\u180e\u00ad\u034f\u061c"
)
_REMOVED = {ord(c): None for c in INVISIBLE}
# Letters of other scripts drawn like Latin ones (Unicode's confusables, the common ones only).
_LOOK_ALIKES = str.maketrans(
    "аеорсухіјѕԁԛԝһӏАВЕКМНОРСТХІЈЅԜοαειкνρτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijsdqwhlABEKMHOPCTXIJSWoaeikvptuxABEZHIKMNOPTYX",
)


@dataclass(frozen=True)
class Folded:
    """A text as every judge reads it; never shown, logged or stored."""

    text: str  # width, compatibility forms and look-alikes folded, invisible characters removed; case kept
    caseless: str  # the same, case-folded (what case-insensitive judges read)
    hidden: bool  # the original held invisible or bidirectional control characters
    caseless_utf8: bytes  # `caseless` as RE2 reads it, encoded once for every rule that runs on it


_INVISIBLE_RE = re.compile("[" + "".join(sorted(INVISIBLE)) + "]")
_LOOK_ALIKE_RE = re.compile("[\u0370-\u052f]")  # the Greek and Cyrillic blocks, where every look-alike is


def folded(text: str) -> Folded:
    if text.isascii():  # nothing to fold but case (most facts of English memory files)
        lower = text.lower()
        return Folded(text, lower, False, lower.encode("ascii"))
    hidden = _INVISIBLE_RE.search(text) is not None
    plain = text.translate(_REMOVED) if hidden else text
    if not unicodedata.is_normalized("NFKC", plain):
        plain = unicodedata.normalize("NFKC", plain)
    if _LOOK_ALIKE_RE.search(plain):
        plain = plain.translate(_LOOK_ALIKES)
    # Case-folding a dotted capital I leaves `i` and a combining dot: the dot would hide the word.
    caseless = plain.casefold().replace("i\u0307", "i")
    return Folded(plain, caseless, hidden, caseless.encode("utf-8", "surrogatepass"))


@functools.cache
def foldable_class_re2() -> str:
    """An RE2 character class of every character the fold changes other than by lower-casing:
    a text without any is judged as it is (less case), so a database's plain RE2 scan of it is
    exact; a text with one must be folded first."""
    changed = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and _changes(chr(c))]
    ranges, start = [], None
    for index, code in enumerate(changed):
        if start is None:
            start = code
        if index + 1 == len(changed) or changed[index + 1] != code + 1:
            ranges.append(f"\\x{{{start:x}}}" + (f"-\\x{{{code:x}}}" if code != start else ""))
            start = None
    return "[" + "".join(ranges) + "]"


def _changes(char: str) -> bool:
    """Whether `folded(char).caseless` differs from `char.lower()` (the same test, in C's time)."""
    return (
        char in INVISIBLE
        or ord(char) in _LOOK_ALIKES
        or not unicodedata.is_normalized("NFKC", char)
        or char.casefold() != char.lower()
        or (char.lower() != char and folded(char).caseless != char.lower())  # a capital NFKC keeps, its fold differs
    )
