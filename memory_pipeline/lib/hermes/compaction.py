"""Summary-plus-pointer compaction of a memory file (摘要 + 指针, as `memory-sync.sh` users write them).

The one place the pipeline writes a memory file, and only when the user asks: the longest
entries whose full text is already in the fact store become `**Title (→ fact_store#N)**: summary`
until the file fits its target share of the cap. Applying takes Hermes' own lock, keeps a backup,
writes Hermes' canonical form atomically and reads it back before anything else happens.
"""

from __future__ import annotations

import difflib
import fcntl
import hashlib
import os
import re
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from memory_pipeline.lib.choices import DEFAULT_CAP_TARGET, compact_target
from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file
from memory_pipeline.lib.files.writing import replace_file
from memory_pipeline.lib.hermes.hashing import entry_sha256, short_hash
from memory_pipeline.lib.hermes.memory_files import (
    ENTRY_DELIMITER,
    SourceReading,
    canonical_chars,
    fact_pointers,
    hermes_read_entries,
    parse_entries,
    title_entity,
)

_TITLE_PREFIX = re.compile(r"^(?:\*\*.+?\*\*|[^\s:：*`][^:：\n`]{0,40}?)\s*[:：]\s*")


class CompactionError(Exception):
    """Compaction cannot go on; the message names the file and why. Nothing was written."""


@dataclass(frozen=True)
class Rewrite:
    position: int  # 0-based index in the file's entries
    before: str
    after: str
    fact_ids: tuple[int, ...]
    left_out: tuple[int, ...] = ()  # lines of `before` (1-based) only the fact store keeps from now on


@dataclass
class Proposal:
    path: Path
    limit: int
    target: float
    file_sha256: str  # of the bytes the proposal was made from
    before: list[str]
    after: list[str]
    rewrites: list[Rewrite] = field(default_factory=list)

    @property
    def chars_before(self) -> int:
        return canonical_chars(self.before)

    @property
    def chars_after(self) -> int:
        return canonical_chars(self.after)

    @property
    def budget(self) -> int:
        return int(self.target * self.limit)

    @property
    def fits(self) -> bool:
        return self.chars_after <= self.budget

    def diff(self) -> str:
        # Every line ends in a newline, the file's last one too: a line never runs into the next.
        old = [line + "\n" for line in ENTRY_DELIMITER.join(self.before).splitlines()]
        new = [line + "\n" for line in ENTRY_DELIMITER.join(self.after).splitlines()]
        return "".join(difflib.unified_diff(old, new, f"{self.path.name} (now)", f"{self.path.name} (compacted)"))


# A title taken from an entry's first words ends before a clause's punctuation (ASCII or CJK) or an
# opening bracket, else at white space.
_CLAUSE_END = re.compile(r"[，、。．；：！？（(【\[「『《〈]|[.,;:!?](?=\s|$)")  # an ASCII stop only before white space (`v2.1`, `22:00`)
_BRACKETS = {"（": "）", "(": ")", "【": "】", "[": "]", "「": "」", "『": "』", "《": "》", "〈": "〉"}
_TITLE_CHARS = 24
_LONGEST_CLAUSE_TITLE = 40
_STRIP_AFTER_TITLE = " ，,、。．；;：:-—"


def _first_words(line: str, limit: int = _TITLE_CHARS) -> str:
    """The line's first clause when it is short, else its first words within `limit` characters,
    with every bracket it opens closed (text with no boundary at all is cut at the limit)."""
    clause = _CLAUSE_END.search(line, 1)
    spaces = [m.start() for m in re.finditer(r"\s", line[: limit + 1])]
    if clause and clause.start() <= limit:
        title = line[: clause.start()]
    elif len(line) <= limit:
        title = line
    elif spaces and spaces[-1] >= limit // 3:
        title = line[: spaces[-1]]
    elif clause and clause.start() <= _LONGEST_CLAUSE_TITLE:
        title = line[: clause.start()]
    else:
        title = line[:limit]
    while (opened := _unclosed(title)) is not None:
        title = title[:opened]
    return title.rstrip(_STRIP_AFTER_TITLE) or line[:limit]


def _unclosed(text: str) -> int | None:
    """The position of the first bracket left open in `text`, if any."""
    stack: list[tuple[int, str]] = []
    for i, ch in enumerate(text):
        if ch in _BRACKETS:
            stack.append((i, _BRACKETS[ch]))
        elif stack and ch == stack[-1][1]:
            stack.pop()
    return stack[0][0] if stack else None


def title_and_body(text: str) -> tuple[str, str]:
    """(title, body): the entry's own title (`**Title**:`, `Title:`) and what follows it, else its
    first words and the rest, so a summary of the body never repeats the title."""
    stripped = text.strip()
    if title := title_entity(stripped):
        return title, _TITLE_PREFIX.sub("", stripped, count=1)
    first_line = " ".join(stripped.split("\n", 1)[0].split())
    title = _first_words(first_line)
    rest = " ".join(stripped.split())[len(title) :].lstrip(_STRIP_AFTER_TITLE)
    return title, rest


# What an entry holds that the agent needs without a lookup: code spans, URLs, paths, addresses,
# key=value pairs, numbers (times, dates, amounts, percentages) and codes holding a digit, `-` or `_`.
VALUE = re.compile(
    r"`[^`]+`|https?://\S+|~?/[\w./<>+-]+|[\w.+-]+@[\w-]+\.[\w.-]+|[A-Za-z_][\w.-]*=[\w.-]+"
    r"|[A-Za-z]*\d[\w.:/%+-]*|[A-Za-z]+[-_][A-Za-z0-9_-]+"
)
# A clause ends at a sentence's or clause's punctuation; never at a list's `、`, inside brackets or
# code, or at a dot that belongs to a number (`1.`, `v2.1`).
_CLAUSE_SEPARATOR = re.compile(r"[。！？!?；;，,]|(?<![\d\s])\.(?=\s|$)")


def values(text: str) -> list[str]:
    """The values of a text, in order: what a summary of it must keep."""
    return [m.group(0).rstrip(".,;:") for m in VALUE.finditer(text)]


def _clauses(body: str) -> list[str]:
    """The body cut after each clause separator that stands outside brackets and code spans."""
    pieces, start, depth, code = [], 0, 0, False
    for match in _CLAUSE_SEPARATOR.finditer(body):
        depth = _depth(body[: match.start()])
        code = body[: match.start()].count("`") % 2 == 1
        if depth == 0 and not code:
            pieces.append(body[start : match.end()])
            start = match.end()
    pieces.append(body[start:])
    return [p for p in pieces if p.strip()]


def _depth(text: str) -> int:
    return sum(text.count(o) - text.count(c) for o, c in _BRACKETS.items())


def shorten(body: str) -> str:
    """Deterministic one-line summary of an entry's body that takes out prose, never values: its
    first clause, then every clause holding a value (a number, a code, a path, a URL), whole."""
    body = " ".join(body.split())
    clauses = _clauses(body)
    kept = [c for i, c in enumerate(clauses) if i == 0 or VALUE.search(c)]
    return "".join(kept).strip().rstrip("；;，,、 ")


def lines_left_out(text: str, summary: str) -> tuple[int, ...]:
    """The entry's lines (1-based, after its first) of which the summary keeps nothing: from then
    on only the fact store holds them."""
    lines = [line.strip() for line in text.strip().split("\n")]
    return tuple(n for n, line in enumerate(lines[1:], start=2) if line and line[:12] not in summary)


def pointer_entry(title: str, fact_ids: tuple[int, ...], summary: str) -> str:
    return f"**{title} (→ fact_store#{'/'.join(map(str, fact_ids))})**" + (f": {summary}" if summary else ":")


# The shortest entry `propose` can write: a one-character title pointing at a one-digit fact id.
_SHORTEST_POINTER = len(pointer_entry("t", (1,), ""))


def fewest_chars(entries: list[str]) -> int:
    """A floor under what any proposal leaves of these entries (each at best the shortest pointer,
    never longer than it was): when the floor is over the budget, no proposal fits, and the work
    of making one can be spared."""
    return sum(min(len(text), _SHORTEST_POINTER) for text in entries) + len(ENTRY_DELIMITER) * max(len(entries) - 1, 0)


def propose(
    reading: SourceReading,
    raw: bytes,
    synced: dict[tuple[str, str], list[int]],
    *,
    target: float = compact_target(DEFAULT_CAP_TARGET),
    summarise: Callable[[str], str] = shorten,
) -> Proposal:
    """Shorten the longest entries whose facts exist, one at a time, until the file fits
    `target` × its cap. `synced` maps an entry's (source, short hash) to its facts, for entries
    whose facts all exist (`sync.ledger.synced_facts`). Entries that already point into the store,
    or whose facts are not all synced, are left as they are."""
    if not reading.readable:
        raise CompactionError(reading.error or f"{reading.path}: unreadable")
    proposal = Proposal(reading.path, reading.limit, target, hashlib.sha256(raw).hexdigest(), list(reading.entries), list(reading.entries))
    # Kept as entries are rewritten, not recounted: a file of many entries stays linear.
    chars, present = proposal.chars_after, set(proposal.after)
    order = sorted(range(len(reading.entries)), key=lambda i: (-len(reading.entries[i]), i))
    for position in order:
        if chars <= proposal.budget:
            break
        text = reading.entries[position]
        fact_ids = tuple(sorted(synced.get((reading.source, short_hash(entry_sha256(text))), ())))
        if not fact_ids or fact_pointers(text):
            continue
        title, body = title_and_body(text)
        summary = summarise(body)
        shorter = pointer_entry(title, fact_ids, summary)
        lost = [v for v in values(text) if v not in shorter]  # a summary takes out prose, never a value
        if lost or len(shorter) >= len(text) or shorter in present:
            continue
        proposal.after[position] = shorter
        present.discard(text)
        present.add(shorter)
        chars -= len(text) - len(shorter)
        proposal.rewrites.append(Rewrite(position, text, shorter, fact_ids, lines_left_out(text, summary)))
    return proposal


@contextmanager
def hermes_lock(path: Path, timeout_s: float):
    """Hermes' own lock for a memory file (`MEMORY.md.lock`, `fcntl.flock`), waited for up to
    `timeout_s` seconds."""
    lock_path = path.with_name(path.name + ".lock")
    with open(lock_path, "a+", encoding="utf-8") as handle:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise CompactionError(
                        f"{lock_path}: still held after {timeout_s:g} s (Hermes is writing the file); nothing written, try again"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _backup_path(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    candidate, n = path.with_name(f"{path.name}.bak-{stamp}"), 1
    while candidate.exists():
        candidate, n = path.with_name(f"{path.name}.bak-{stamp}-{n}"), n + 1
    return candidate


def apply(proposal: Proposal, *, lock_timeout_s: float = 10.0) -> Path:
    """Write the proposal under Hermes' lock; returns the backup's path. Refuses when the file
    changed since the proposal was made; restores the backup if the written file does not read
    back as exactly the proposed entries."""
    path = proposal.path
    with hermes_lock(path, lock_timeout_s):
        try:
            raw = read_regular_file(path) or b""
        except UnreadableFile as exc:
            raise CompactionError(str(exc)) from None
        if hashlib.sha256(raw).hexdigest() != proposal.file_sha256:
            raise CompactionError(
                f"{path}: changed since the proposal was made (the agent wrote meanwhile); nothing written, run compact again"
            )
        backup = _backup_path(path)
        replace_file(backup, raw, durable=True, like=path)
        # Through a link to its target, as Hermes' own writes go (a MEMORY.md kept in a dotfiles
        # repository stays linked, and the repository gets the new text).
        target = Path(os.path.realpath(path)) if path.is_symlink() else path
        replace_file(target, ENTRY_DELIMITER.join(proposal.after).encode("utf-8"), durable=True)
        text = (read_regular_file(path) or b"").decode("utf-8", errors="replace")
        if parse_entries(text) != proposal.after or hermes_read_entries(text) != proposal.after:
            replace_file(target, raw, durable=True)
            raise CompactionError(f"{path}: did not read back as the proposed entries; restored from {backup.name}")
    return backup
