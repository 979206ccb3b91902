"""What `memory-pipeline sync` says: the lines that need a person, and on a terminal each profile
as it is done, naming the entries that changed (the service's typed results, formatted)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from memory_pipeline.cli.common import shown_path
from memory_pipeline.lib.audit.checks import ERROR, WARN, fix_command
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES, title_entity
from memory_pipeline.lib.sync.state import FailingCheck
from memory_pipeline.runs.outputs import EntryChange, RetagChange
from memory_pipeline.runs.summary import ProfileSummary

_TITLE_CHARS = 60
_NAMED = 25  # changed entries named per profile; a first sync of a large file says how many more
_MARKS = {"new": "+", "changed": "~", "moved": "→", "removed": "-", "compacted": "⇢"}


def mirror_line(summary: ProfileSummary) -> str | None:
    """What became of Holographic's mirror rows, when the run found any."""
    m, profile = summary.mirrors, summary.profile
    new_own = m.unexplained - m.named_before  # the agent's own facts are named once, by the sync that first finds them
    found = m.found - m.named_before
    if not found:
        return None
    parts = [
        f"{m.adopted} adopted by their entry" if m.adopted else "",
        f"{m.updated} updated in place (their entry was edited)" if m.updated else "",
        f"{m.retired} retired (their entry is gone)" if m.retired else "",
        f"{new_own} left as the agent's own facts (`memory-pipeline mirrors --profile {profile}` lists them)" if new_own else "",
    ]
    return f"Holographic mirror rows: {found} found; {', '.join(p for p in parts if p)}"


def check_errors(profile: str, failing: list[FailingCheck]) -> list[str]:
    """The failing ERROR checks, one line each ending with the command that fixes it (stderr)."""
    return [
        f"profile {profile}: {name} failed: {detail}; fix: {fix_command(name, profile)}"
        for name, severity, detail in failing
        if severity == ERROR
    ]


def check_warnings(profile: str, failing: list[FailingCheck]) -> list[str]:
    """The failing WARN checks, as a profile's block shows them."""
    return [f"  {name}: {detail}; fix: {fix_command(name, profile)}" for name, severity, detail in failing if severity == WARN]


def retag_changes(change: RetagChange) -> str:
    """`2 newly private (#12, #31), 1 no longer private (#7)`: what a re-tag changed, by fact id."""
    said = []
    for count, shown, label in (
        (change.tagged, change.newly_private, "newly private"),
        (change.untagged, change.no_longer_private, "no longer private"),
    ):
        named = ", ".join(f"#{i}" if i.isdigit() else i for i in shown)
        said.append(f"{count} {label}" + (f" ({named})" if shown else ""))
    return ", ".join(said)


def entry_title(text: str | None) -> str:
    """An entry's `**Title**:` or `Title:`, else its first characters, on one line."""
    line = " ".join((text or "").split())
    if line.startswith("**") and "**" in line[2:]:
        line = line[2 : line.index("**", 2)]
    else:
        line = title_entity(line) or line
    return line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1] + "…"


def change_lines(changes: list[EntryChange], judge) -> list[str]:
    """`+ MEMORY.md "Title" added`, `→ "Title" moved MEMORY.md → USER.md`, … A private entry is
    not named at all."""
    lines = []
    for change in changes:
        status, name = change.status, SOURCE_FILES[change.source]
        # Without the keyword list (it failed to load) no entry is named.
        private = judge is None or (bool(change.text) and bool(judge.reasons(change.text)))
        # Not even its id: the id is a hash of the text, and a short private entry is found from it.
        shown = "an entry (private)" if private else f'"{entry_title(change.text)}"'
        matched = change.matched_entry_id or ""
        if status == "changed" and matched and not matched.startswith(change.source + ":"):
            old = SOURCE_FILES.get(matched.split(":")[0], "?")
            lines.append(f"{_MARKS['moved']} {shown} moved {old} → {name}")
        else:
            verb = {"new": "added"}.get(status, status)
            lines.append(f"{_MARKS.get(status, '?')} {name} {shown} {verb}")
    return lines


@dataclass
class Printer:
    """Text output: a `syncing <profile>…` line while a profile runs (on a terminal only), then
    its summary, its changed entries by name and its failing checks with their fix; the
    extractor's fallback is said once per sync."""

    tty: bool
    asked_extractor: str
    judge_of: Callable[[str], object]  # a profile's PrivacyJudge (None: its list failed), to show private entries by id only
    retag: bool = False
    _reasons: set[str] = field(default_factory=set)

    def starting(self, profile: str) -> None:
        if self.tty:
            sys.stdout.write(f"{'re-tagging' if self.retag else 'syncing'} {profile}…\r")
            sys.stdout.flush()

    def embedding(self, done: int, total: int) -> None:
        """A bar while a long embedding runs (a change of model re-embeds every fact)."""
        if self.tty and total >= 200:
            filled = 30 * done // total
            sys.stdout.write(f"\r\x1b[2Kembedding [{'#' * filled}{'.' * (30 - filled)}] {done}/{total} facts")
            sys.stdout.flush()

    def clear(self) -> None:
        if self.tty:
            sys.stdout.write("\r\x1b[2K")

    def skipped(self, profile: str, failing: list[FailingCheck]) -> None:
        print(f"{profile}: unchanged (skipped; --force runs it anyway)")
        for line in check_warnings(profile, failing):
            print(line)

    def done(self, run, summary: ProfileSummary) -> None:
        self.clear()
        s = summary
        if s.error:
            return  # said on stderr, with the way out
        if self.retag:
            print(f"{s.profile}: re-tagged: {retag_changes(run.retag_change())}; {s.private_facts} private facts")
            return
        print(
            f"{s.profile}: {s.added} added, {s.updated} updated, {s.unchanged} unchanged, "
            f"{s.removed} removed, {s.quarantined} pending; {s.facts_total} facts "
            f"({s.extractor}, {s.private_facts} private) in {shown_path(Path(s.store))}"
        )
        reason = f"{s.extractor}{' ' + s.model if s.model else ''}; {s.extractor_reason}"
        if (s.llm_calls or s.extractor != self.asked_extractor) and reason not in self._reasons:
            self._reasons.add(reason)  # which extractor ran and why, once, when it was not simply the one asked for
            extractor, why = reason.split("; ", 1)
            print(f"  extractor: {extractor}, {s.llm_calls} LLM calls; {why}")
        if line := mirror_line(s):
            print(f"  {line}")
        if s.embedded:
            print(f"  meaning: {s.embedded} facts embedded with {s.embedder}")
        if s.vectors_added:
            print(
                f"  HRR vectors: {s.vectors_added} added to facts Hermes stored without one, as Holographic computes them "
                "(NumPy is missing from Hermes' environment; with it there, Holographic adds its own)"
            )
        for line in change_lines(run.changes[:_NAMED], self.judge_of(run.profile)):
            print(f"  {line}")
        if len(run.changes) > _NAMED:
            print(f"  … and {len(run.changes) - _NAMED} more (`memory-pipeline entries --profile {run.profile}` lists every entry)")
        for line in check_warnings(run.profile, run.failing):
            print(line)
