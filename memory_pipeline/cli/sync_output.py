"""What `memory-pipeline sync` says: the `--json` shape of a profile's run, the lines that need a
person, and on a terminal each profile as it is done, naming the entries that changed."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from memory_pipeline.cli.common import shown_path
from memory_pipeline.lib.audit.checks import ERROR, WARN, fix_command
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES, title_entity
from memory_pipeline.lib.hermes.profiles import Profile, read_profile
from memory_pipeline.lib.store.database import PRIVATE_TAG, has_tag_sql, opened
from memory_pipeline.lib.store.settings import holographic_settings

_TITLE_CHARS = 60
_NAMED = 25  # changed entries named per profile; a first sync of a large file says how many more
_MARKS = {"new": "+", "changed": "~", "moved": "→", "removed": "-", "compacted": "⇢"}


def profile_summary(run) -> dict:
    """The stable `--json` shape of one profile's run (README, `sync --json`)."""
    extracted = run.metadata.get("extracted_facts", {})
    stored = run.metadata.get("fact_store", {})
    tagged = run.metadata.get("privacy_tags", {})
    diffed = run.metadata.get("ledger_diff", {})
    return {
        "profile": run.profile,
        "skipped": False,
        "extractor": str(extracted.get("extractor", "")),
        "extractor_reason": str(extracted.get("extractor_reason", "")),
        "model": str(extracted.get("model", "")),
        "added": int(stored.get("added", 0)),
        "updated": int(stored.get("updated", 0)),
        "unchanged": int(stored.get("unchanged", 0)),
        "removed": int(stored.get("removed", 0)),
        "quarantined": int(stored.get("quarantined", 0)),
        "llm_calls": int(extracted.get("llm_calls", 0)),
        "facts_total": int(stored.get("facts_total", 0)),
        "store": str(stored.get("store", "")),
        "private_facts": int(tagged.get("private_facts", 0)),
        "mirrors": {
            "found": int(diffed.get("mirror_rows", 0)),
            "adopted": int(stored.get("mirrors_adopted", 0)),
            "updated": int(diffed.get("mirror_previous_versions", 0)),
            "retired": int(stored.get("mirrors_retired", 0)),
            "unexplained": int(diffed.get("mirror_unexplained", 0)),
        },
        "failing_checks": sorted(run.failing_errors + run.failing_warnings),
        "error": run.error,
    }


NO_MIRRORS = {"found": 0, "adopted": 0, "updated": 0, "retired": 0, "unexplained": 0}


def mirror_line(summary: dict) -> str | None:
    """What became of Holographic's mirror rows, when the run found any."""
    m = summary["mirrors"]
    if not m["found"]:
        return None
    parts = [
        f"{m['adopted']} adopted by their entry" if m["adopted"] else "",
        f"{m['updated']} updated in place (their entry was edited)" if m["updated"] else "",
        f"{m['retired']} retired (their entry is gone)" if m["retired"] else "",
        f"{m['unexplained']} unexplained (`memory-pipeline mirrors --profile {summary['profile']}`)" if m["unexplained"] else "",
    ]
    return f"Holographic mirror rows: {m['found']} found; {', '.join(p for p in parts if p)}"


def skipped_summary(home: Path, profile: Profile, failing: list[tuple[str, str, str]]) -> dict:
    """A profile nothing could have changed in since its last sync: every entry unchanged, the
    store's counts as they are, the checks that sync's audit left failing."""
    store = holographic_settings(profile.home).db_path
    with opened(store, create=False) as conn:
        facts, private = conn.execute(
            f"SELECT count(*), coalesce(sum({has_tag_sql(PRIVATE_TAG, case_sensitive=False)}), 0) FROM facts"
        ).fetchone()
    return {
        "profile": profile.name,
        "skipped": True,
        "extractor": "",
        "extractor_reason": "nothing changed since the last sync",
        "model": "",
        "added": 0,
        "updated": 0,
        "unchanged": sum(len(r.entries) for r in read_profile(profile)),
        "removed": 0,
        "quarantined": 0,
        "llm_calls": 0,
        "facts_total": int(facts),
        "store": str(store),
        "private_facts": int(private),
        "mirrors": dict(NO_MIRRORS),
        "failing_checks": sorted(name for name, _, _ in failing),
        "error": None,
    }


def retry_can_fix(run) -> bool:
    """Whether the same inputs run again may end otherwise: a failed run (but one a blocking check
    stopped), entries waiting in quarantine, a memory file that could not be read. Any other
    failing check stands until the files, the store or the settings change (a person's fix
    changes them)."""
    if run.stopped_by_a_blocking_check:
        return False
    quarantined = int(run.metadata.get("fact_store", {}).get("quarantined", 0))
    return not run.success or quarantined > 0 or bool(run.metadata.get("parsed_entries", {}).get("unreadable"))


def run_problems(run) -> list[str]:
    """One line per thing about the run itself a person must look at, each ending with the way out."""
    if run.error:
        return [f"sync of profile {run.profile} failed: {run.error}"]
    found = []
    parsed = run.metadata.get("parsed_entries", {})
    if parsed.get("unreadable"):
        found.append(
            f"profile {run.profile}: skipped, entries held: {parsed['unreadable']} (see `memory-pipeline entries --profile {run.profile}`)"
        )
    held = int(run.metadata.get("ledger_diff", {}).get("held_unreadable_entries", 0))
    if held and parsed.get("missing"):
        found.append(
            f"profile {run.profile}: {held} synced entries held because {parsed['missing']} is missing; "
            "create it (even empty) to let them go"
        )
    return found


def check_errors(profile: str, failing: list[tuple[str, str, str]]) -> list[str]:
    """The failing ERROR checks, one line each ending with the command that fixes it (stderr)."""
    return [
        f"profile {profile}: {name} failed: {detail}; fix: {fix_command(name, profile)}"
        for name, severity, detail in failing
        if severity == ERROR
    ]


def check_warnings(profile: str, failing: list[tuple[str, str, str]]) -> list[str]:
    """The failing WARN checks, as a profile's block shows them."""
    return [f"  {name}: {detail}; fix: {fix_command(name, profile)}" for name, severity, detail in failing if severity == WARN]


def retag_changes(run) -> str:
    """`2 newly private (#12, #31), 1 no longer private (#7)`: what a re-tag changed, by fact id."""
    tags = run.metadata.get("privacy_tags", {})
    said = []
    for count, ids, label in (("tagged", "newly_private_ids", "newly private"), ("untagged", "no_longer_private_ids", "no longer private")):
        shown = [i for i in str(tags.get(ids, "")).split(",") if i]
        named = ", ".join(f"#{i}" if i.isdigit() else i for i in shown)
        said.append(f"{int(tags.get(count, 0))} {label}" + (f" ({named})" if shown else ""))
    return ", ".join(said)


def entry_title(text: str | None) -> str:
    """An entry's `**Title**:` or `Title:`, else its first characters, on one line."""
    line = " ".join((text or "").split())
    if line.startswith("**") and "**" in line[2:]:
        line = line[2 : line.index("**", 2)]
    else:
        line = title_entity(line) or line
    return line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1] + "…"


def change_lines(changes: list[dict], keywords) -> list[str]:
    """`+ MEMORY.md "Title" added`, `→ "Title" moved MEMORY.md → USER.md`, … A private entry is
    named by its id only."""
    from memory_pipeline.lib.privacy.matching import private_reasons

    lines = []
    for change in changes:
        status, name = change["status"], SOURCE_FILES[change["source"]]
        # Without the keyword list (it failed to load) every entry is named by its id only.
        private = keywords is None or (bool(change.get("text")) and bool(private_reasons(change["text"], keywords)))
        shown = f"{change['entry_id']} (private)" if private else f'"{entry_title(change.get("text"))}"'
        matched = change.get("matched_entry_id") or ""
        if status == "changed" and matched and not matched.startswith(change["source"] + ":"):
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
    keywords: object  # the KeywordList, to show private entries by id only
    retag: bool = False
    _reasons: set[str] = field(default_factory=set)

    def starting(self, profile: str) -> None:
        if self.tty:
            sys.stdout.write(f"{'re-tagging' if self.retag else 'syncing'} {profile}…\r")
            sys.stdout.flush()

    def clear(self) -> None:
        if self.tty:
            sys.stdout.write("\r\x1b[2K")

    def skipped(self, profile: str, failing: list[tuple[str, str, str]]) -> None:
        print(f"{profile}: unchanged (skipped; --force runs it anyway)")
        for line in check_warnings(profile, failing):
            print(line)

    def done(self, run, summary: dict) -> None:
        self.clear()
        s = summary
        if s["error"]:
            return  # said on stderr, with the way out
        if self.retag:
            print(f"{s['profile']}: re-tagged: {retag_changes(run)}; {s['private_facts']} private facts")
            return
        print(
            f"{s['profile']}: {s['added']} added, {s['updated']} updated, {s['unchanged']} unchanged, "
            f"{s['removed']} removed, {s['quarantined']} pending; {s['facts_total']} facts "
            f"({s['extractor']}, {s['private_facts']} private) in {shown_path(Path(s['store']))}"
        )
        reason = f"{s['extractor']}{' ' + s['model'] if s['model'] else ''}; {s['extractor_reason']}"
        if (s["llm_calls"] or s["extractor"] != self.asked_extractor) and reason not in self._reasons:
            self._reasons.add(reason)  # which extractor ran and why, once, when it was not simply the one asked for
            extractor, why = reason.split("; ", 1)
            print(f"  extractor: {extractor}, {s['llm_calls']} LLM calls; {why}")
        if line := mirror_line(s):
            print(f"  {line}")
        for line in change_lines(run.changes[:_NAMED], self.keywords):
            print(f"  {line}")
        if len(run.changes) > _NAMED:
            print(f"  … and {len(run.changes) - _NAMED} more (`memory-pipeline entries --profile {run.profile}` lists every entry)")
        for line in check_warnings(run.profile, run.failing):
            print(line)
