"""Reading Hermes' memory files: the pipeline's entry parser, Hermes' own reading, format findings.

The pipeline only reads these files; it never rewrites them.
"""

from __future__ import annotations

import codecs
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file
from memory_pipeline.lib.in_hermes.entry_reader import BOUNDARY, ENTRY_DELIMITER, parse_entries, split_parts  # noqa: F401 - re-exported

SOURCE_FILES = {"memory": "MEMORY.md", "user": "USER.md"}
DEFAULT_CHAR_LIMITS = {"memory": 2200, "user": 1375}

# A Markdown heading or YAML front matter opening the file is header text, not memory.
_PREAMBLE_LINE = re.compile(r"#{1,6}(?:\s|$)|---\s*$")


@dataclass(frozen=True)
class Finding:
    code: str
    detail: str


@dataclass
class SourceReading:
    """One memory file as the pipeline reads it, beside what Hermes itself would read."""

    source: str
    path: Path
    limit: int
    exists: bool = False
    entries: list[str] = field(default_factory=list)
    hermes_entries: list[str] = field(default_factory=list)  # as Hermes 0.19.0 reads them
    current_hermes_entries: list[str] = field(default_factory=list)  # as Hermes' main branch reads them
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    digest: str = "missing"  # what was read: the bytes' SHA-256 (`content_digest`)
    switched_off: str = ""  # the config.yaml key that switched the file off: Hermes neither injects nor writes it

    @property
    def readable(self) -> bool:
        return self.error is None

    @property
    def held(self) -> bool:
        """Unreadable, or not there at all: its entries are unknown, not gone, so whatever the
        ledger holds for it is kept under every removal policy (an empty file lets them go)."""
        return not self.readable or not self.exists

    @property
    def chars(self) -> int:
        """Characters (code points) the entries take in Hermes' canonical form."""
        return canonical_chars(self.entries)

    @property
    def cap_usage(self) -> float:
        return self.chars / self.limit if self.limit > 0 else 0.0

    @property
    def finding_codes(self) -> list[str]:
        return [f.code for f in self.findings]


def canonical_chars(entries: list[str]) -> int:
    return len(ENTRY_DELIMITER.join(entries))


def hermes_read_entries(text: str) -> list[str]:
    """What Hermes loads from a decoded file (`MemoryStore._read_file` + its de-duplication). Both
    Hermes versions split this way; they differ in decoding (0.19.0 keeps a BOM, main strips it)."""
    if not text.strip():
        return []
    return _dedupe(part.strip() for part in text.split(ENTRY_DELIMITER))


def _dedupe(parts: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(p for p in parts if p))


def content_digest(raw: bytes | None, error: str | None = None) -> str:
    """What a read of a memory file found, as the skip state compares it: the bytes' SHA-256,
    `missing`, or the reason it could not be read (content, not mtime: a touch is no change)."""
    if error is not None:
        return f"unreadable: {error}"
    return "missing" if raw is None else hashlib.sha256(raw).hexdigest()


def read_source(path: Path, source: str, limit: int) -> SourceReading:
    """Read one memory file. Never raises for bad content: an unreadable file is a finding."""
    reading = SourceReading(source=source, path=path, limit=limit)
    try:
        raw = read_regular_file(path)
    except UnreadableFile as exc:
        reading.digest = content_digest(None, str(exc))
        return _unreadable(reading, str(exc), exists=True)
    if raw is None:
        return reading
    reading.exists = True
    reading.digest = content_digest(raw)
    had_bom = raw.startswith(codecs.BOM_UTF8)
    body = raw[len(codecs.BOM_UTF8) :] if had_bom else raw
    try:
        decoded = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + (len(codecs.BOM_UTF8) if had_bom else 0)
        return _unreadable(reading, f"{path}: invalid UTF-8 at byte {offset}", exists=True)
    # Universal newlines, as Python's text mode (and so Hermes) reads the file.
    text = decoded.replace("\r\n", "\n").replace("\r", "\n")
    reading.entries = parse_entries(text)
    # Hermes' readings hold the same entries, mostly: they share the pipeline's strings, so a
    # reading of a large file holds its text once, not three times.
    same = {entry: entry for entry in reading.entries}
    # Hermes 0.19.0 decodes as utf-8, so it keeps a BOM in its first entry; Hermes' main branch
    # decodes as utf-8-sig, which strips it.
    reading.hermes_entries = [same.get(e, e) for e in hermes_read_entries(("\ufeff" if had_bom else "") + text)]
    reading.current_hermes_entries = [same.get(e, e) for e in hermes_read_entries(text)]
    reading.findings = _format_findings(reading, decoded, text, had_bom)
    return reading


def backup_entries(path: Path) -> set[str]:
    """The entries of Hermes' drift backups beside a memory file (`MEMORY.md.bak.<time>`, kept
    when Hermes found the file changed behind its back): texts that were entries once."""
    found: set[str] = set()
    for backup in sorted(path.parent.glob(f"{path.name}.bak.*")):
        try:
            raw = read_regular_file(backup)
            text = raw.decode("utf-8-sig") if raw is not None else ""
        except (UnreadableFile, UnicodeDecodeError):
            continue  # a backup that cannot be read is no evidence either way
        found.update(parse_entries(text.replace("\r\n", "\n").replace("\r", "\n")))
    return found


def _unreadable(reading: SourceReading, message: str, *, exists: bool) -> SourceReading:
    reading.exists = exists
    reading.error = message
    reading.findings = [Finding("unreadable", f"{message} (sync of this file skipped)")]
    return reading


def _boundary_lines(text: str) -> list[int]:
    """The line number of each boundary, so a finding says which line to delete (one pass)."""
    lines, line, last = [], 1, 0
    for match in BOUNDARY.finditer(text):
        line += text.count("\n", last, match.start())
        last = match.start()
        lines.append(line)
    return lines


def _format_findings(reading: SourceReading, decoded: str, text: str, had_bom: bool) -> list[Finding]:
    """Every way the file departs from what Hermes writes. Details never quote entry text."""
    name = reading.path.name
    return [
        Finding(code, detail)
        for code, detail in (
            *_byte_findings(name, decoded, had_bom),
            *_layout_findings(name, text),
            *_size_findings(reading, text),
            *_reader_findings(reading),
        )
    ]


def _byte_findings(name: str, decoded: str, had_bom: bool) -> list[tuple[str, str]]:
    found = []
    if had_bom:
        found.append(
            (
                "bom",
                f"{name} starts with a UTF-8 byte-order mark: Hermes 0.19.0 keeps it inside the first entry; "
                "current Hermes strips it, as the pipeline does: remove it",
            )
        )
    crlf = decoded.count("\r\n")
    lone_cr = decoded.count("\r") - crlf
    if crlf or lone_cr:
        found.append(("crlf", f"{name} has {crlf} CRLF and {lone_cr} bare CR line endings; read as LF: save it with LF line endings"))
    return found


def _layout_findings(name: str, text: str) -> list[tuple[str, str]]:
    """§ lines out of place, a header line, a trailing newline: each with the line to delete."""
    found = []
    parts = split_parts(text)
    leading = len(parts) > 1 and not parts[0].strip()
    empty = [i for i, p in enumerate(parts[1:-1], start=1) if not p.strip()]
    lines = _boundary_lines(text) if leading or empty else []
    if leading:
        found.append(("leading_delimiter", f"{name} starts with a § line before any entry: delete line {lines[0]}"))
    if empty:
        empty_between = [lines[i] for i in empty]
        found.append(
            (
                "doubled_delimiter",
                f"{name} has {len(empty_between)} empty entries between consecutive § lines: "
                f"delete line{'s' if len(empty_between) > 1 else ''} {', '.join(map(str, empty_between[:20]))}"
                + (f" and {len(empty_between) - 20} more" if len(empty_between) > 20 else ""),
            )
        )
    first = next((p for p in parts if p.strip()), "")
    first_line = first.strip().split("\n", 1)[0]
    if first and _PREAMBLE_LINE.match(first_line):
        line = text.count("\n", 0, text.index(first_line)) + 1
        found.append(
            (
                "preamble",
                f"{name} opens with header text ({len(first_line)} chars) that Hermes reads as part of the first entry: delete line {line}",
            )
        )
    if text.endswith("\n"):
        found.append(("trailing_newline", f"{name} ends with a newline; Hermes writes none"))
    return found


def _size_findings(reading: SourceReading, text: str) -> list[tuple[str, str]]:
    """Duplicate entries, entries or a file over the cap, Hermes' drift backups beside it."""
    name, limit, found = reading.path.name, reading.limit, []
    duplicates = len([p for p in split_parts(text) if p.strip()]) - len(reading.entries)
    if duplicates:
        found.append(("duplicate_entry", f"{name} has {duplicates} duplicate entries; the first of each is kept"))
    for position, entry in enumerate(reading.entries, start=1):
        if len(entry) > limit:
            found.append(("entry_over_cap", f"{name} entry {position} alone is {len(entry)} chars, over the {limit}-char cap"))
    if reading.chars > limit:
        found.append(("over_cap", f"{name} uses {reading.chars} of {limit} chars ({100 * reading.chars / limit:.0f}%)"))
    backups = sorted(p.name for p in reading.path.parent.glob(f"{name}.bak.*"))
    if backups:
        found.append(("drift_backup", f"{len(backups)} Hermes drift backups beside {name}: {', '.join(backups)}"))
    return found


def _reader_findings(reading: SourceReading) -> list[tuple[str, str]]:
    """Hermes' readers (0.19.0 and current) against the pipeline's, by count."""
    name = reading.path.name
    readers = {"Hermes 0.19.0": reading.hermes_entries, "current Hermes": reading.current_hermes_entries}
    differing = {who: entries for who, entries in readers.items() if entries != reading.entries}
    if not differing:
        return []
    agreeing = [who for who in readers if who not in differing]
    detail = "; ".join(
        f"{who} reads {len(entries)} entries from {name}, the pipeline {len(reading.entries)}"
        + ("" if len(entries) != len(reading.entries) else " (same count, different text)")
        for who, entries in differing.items()
    )
    return [("hermes_parse_differs", detail + (f"; {agreeing[0]} reads the pipeline's entries" if agreeing else ""))]


# `fact_store#34`, and the grouped form `memory-sync.sh` users write, `fact_store#16/27/33`: an entry shortened into the
# fact store that holds its full text (the compaction command writes them).
FACT_POINTER = re.compile(r"fact_store#(\d+(?:/\d+)*)")


def fact_pointers(text: str) -> list[int]:
    """The fact ids an entry points at, in order."""
    if "fact_store#" not in text:  # nearly every entry: skip the regex
        return []
    return [int(n) for m in FACT_POINTER.finditer(text) for n in m.group(1).split("/")]


# `**Title**: …`, `Title: …` or `标题：…` on the entry's first line names its entity. A full-width
# colon ends a title wherever it stands; an ASCII one only when white space follows and no digit
# comes before it, so a time (`22:00`) or a URL (`https://`) is never cut.
_BOLD_TITLE = re.compile(r"^\*\*(.+?)\*\*\s*[:：]")
_PLAIN_TITLE = re.compile(r"^([^\s:：*`][^:：\n`]{0,40}?)\s*(?:：|(?<!\d):(?=\s))")
_MAX_TITLE_WORDS = 4
_SENTENCE_INSIDE = re.compile(r"[。！？]|[.!?]\s")
_MAX_TITLE = 40


def title_entity(text: str) -> str | None:
    """The entity an entry's title line names (`**Title**: …`, or a short `Title: …`), if any."""
    first_line = text.split("\n", 1)[0].strip()
    match = _BOLD_TITLE.match(first_line) or _PLAIN_TITLE.match(first_line)
    if not match:
        return None
    title = match.group(1).strip()
    if match.re is _PLAIN_TITLE and (len(title.split()) > _MAX_TITLE_WORDS or _SENTENCE_INSIDE.search(title)):
        return None  # a sentence (or two) that happens to contain a colon, not a title
    return title if 0 < len(title) <= _MAX_TITLE else None
