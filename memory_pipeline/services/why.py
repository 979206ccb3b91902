"""The why service: one fact's story, from the entry to the agent. Which entry of which file it
came from and where that entry stands now, when the entry was added and each time it changed and
by what (a Hermes session and turn from the journal, or an edit outside Hermes), the sync that
wrote the fact (when, extractor, model), its privacy verdict (the category, or "on your keyword
list", naming the term only to the list's owner at the command line), its trust, which of the
agent's surfaces may show it, and the turns the plugin added it to."""

from __future__ import annotations

import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

from memory_pipeline.context.home import ProfileContext
from memory_pipeline.lib.hermes.hashing import entry_identities
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES, fact_pointers, title_entity
from memory_pipeline.lib.hermes.profiles import Profile, read_profile
from memory_pipeline.lib.in_hermes.visible import is_ignorable, visible
from memory_pipeline.lib.privacy.folding import folded
from memory_pipeline.lib.privacy.matching import KeywordListError
from memory_pipeline.lib.privacy.unsafe import unsafe_kinds
from memory_pipeline.lib.store.reads.story import FactRecord
from memory_pipeline.lib.store.schema.database import RETIRED_TAG
from memory_pipeline.lib.sync.journal import journal_path, read_journal

_LABEL_CHARS = 60


@dataclass
class FactStory:
    profile: str
    fact_id: int
    found: bool
    content: str | None = None
    category: str | None = None
    trust: float | None = None
    state: str = "not in this profile's store"  # current, retired, removed (archived), Hermes' own
    entries: list[dict[str, Any]] = field(default_factory=list)  # each entry version the ledger ties it to
    history: list[dict[str, Any]] = field(default_factory=list)  # the agent's writes of those entries, from the journal
    privacy: str = ""
    surfaces: dict[str, bool] = field(default_factory=dict)  # may this surface hand it to the agent
    injected: list[dict[str, Any]] = field(default_factory=list)  # turns the plugin added it to
    invisible: list[str] = field(default_factory=list)  # for the owner: the code points the agent is not shown

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def fact_story(context: ProfileContext, fact_id: int, *, owner: bool = False) -> FactStory:
    """One fact's story; `owner` (the user at the command line, never the agent) also hears which
    keyword terms make it private."""
    profile, where = context.profile, context.store
    story = FactStory(profile.name, fact_id, False)
    if not where.exists:
        return story
    with where.read_only(context.owner) as reads:
        record = reads.fact_record(fact_id)
        shown = bool(reads.facts_by_id([fact_id])[0]) if record is not None else False
    if record is None:
        return story
    content = record.content or ""
    # The agent is handed the visible text; the owner sees the stored text and what the agent is not shown.
    story.found, story.content, story.category, story.trust = True, content if owner else visible(content), record.category, record.trust
    if owner:
        story.invisible = [f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in content if not c.isascii() and is_ignorable(c)]
    story.state = _state(record, compacted_into(profile, fact_id))
    journal = read_journal(journal_path(context.home.data_dir, profile.name)).lines
    story.entries = _entries(profile, record)
    hashes = {line.entry_sha256 for line in record.ledger}
    story.history = [
        {k: w.get(k) for k in ("at", "session", "turn", "action", "target")}
        for w in journal
        if hashes & set(w.get("before", []) + w.get("after", []))
    ]
    story.injected = [{k: w.get(k) for k in ("at", "session", "turn")} for w in journal if fact_id in (w.get("facts") or [])]
    story.privacy = _privacy(context, record, owner)
    live = not record.archived
    story.surfaces = {
        "prefetch": live and record.trust is not None and record.trust >= where.settings.min_trust,
        "fact_store search": live and record.trust is not None and record.trust >= where.settings.min_trust,
        "fact_store list": live,
        "MCP server and plugin": shown and not where.per_user,  # under `scope: user` they serve nothing of it
    }
    return story


def compacted_into(profile: Profile, fact_id: int) -> str | None:
    """The file whose entry (a compacted summary) points at the fact (`fact_store#N`), if one does."""
    for reading in read_profile(profile):
        if any(fact_id in fact_pointers(text) for text in reading.entries):
            return SOURCE_FILES.get(reading.source, reading.source)
    return None


def _state(record: FactRecord, compacted: str | None) -> str:
    if record.archived:
        return "removed: its entry left the files; kept in the pipeline's archive, out of every Hermes tool"
    if RETIRED_TAG in record.tags.split(","):
        return "retired: its entry left the files; below the prefetch threshold"
    if not record.pipeline:
        return "Hermes' own fact (no entry of the memory files)"
    if record.changed_outside:
        return (
            "changed outside the memory files (the agent's fact_store update?): its text is not the one its entry gave it; "
            "`memory-pipeline drift` keeps it as the agent's own fact or writes the entry's back"
        )
    if compacted:
        return f"compacted: a summary in {compacted} points at it (fact_store#{record.fact_id}); its full text stays in the agent's reach"
    return "current"


def _entries(profile: Profile, record: FactRecord) -> list[dict[str, Any]]:
    """Each entry version the ledger ties the fact to, with where that entry stands now."""
    where: dict[str, tuple[int, str]] = {}
    for reading in read_profile(profile):
        _, _, ids = entry_identities([reading.source] * len(reading.entries), reading.entries)
        for position, (entry_id, text) in enumerate(zip(ids, reading.entries, strict=True), start=1):
            label = title_entity(text) or " ".join(text.split())
            where[entry_id] = (position, label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "…")
    found = []
    for line in record.ledger:
        now = where.get(line.entry_id)  # None: the entry is no longer in the files
        found.append(
            {
                "entry_id": line.entry_id,
                "file": SOURCE_FILES.get(line.source, line.source),
                "status": line.status,
                "position_now": now[0] if now else None,
                "label": now[1] if now else None,
                "synced_at": line.synced_at,
                "extractor": line.extractor,
                "model": line.model,
                "prompt_version": line.prompt_version,
                "run_id": line.run_id,
            }
        )
    return found


def _privacy(context: ProfileContext, record: FactRecord, owner: bool) -> str:
    """The verdict in words: kinds, and for the owner the keyword terms; never a detector's match."""
    try:
        judge = context.judge
    except KeywordListError:
        return "the keyword list cannot be read now: withheld from the agent until it can"
    text = folded(record.content or "")
    listed = f"on your keyword list ({', '.join(judge.keywords.terms_in(text))})" if owner else "on your keyword list"
    reasons = [listed if r == "keyword" else r for r in judge.reasons(text)]
    unsafe = unsafe_kinds(text)
    said = []
    if reasons:
        said.append(f"private ({', '.join(reasons)}; policy {judge.policy.value})")
    if unsafe:
        said.append(f"unsafe ({', '.join(unsafe)})")
    if record.archived:
        said.append("not judged any more: removed, out of every surface the agent has")
    elif record.verdict is None:
        said.append("no verdict recorded yet: withheld from the MCP server and the plugin until the next sync")
    return "; ".join(said) or "not private"
