"""Each profile's status: its files' entries and cap use, its store's facts (current, retired,
compacted, Hermes' own), quarantine, vectors, the last sync and the checks that did not pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory_pipeline.context.home import ProfileContext
from memory_pipeline.lib.audit.report import last_report
from memory_pipeline.lib.hermes.memory_files import fact_pointers
from memory_pipeline.lib.hermes.plugin_files import installed_plugin
from memory_pipeline.lib.hermes.profiles import Profile, read_profile
from memory_pipeline.lib.store.schema.database import StoreError
from memory_pipeline.lib.sync.journal import journal_path, read_journal
from memory_pipeline.services.meaning_status import recall_by_meaning


def _store_status(context: ProfileContext, pointers: set[int]) -> dict[str, Any]:
    """The store's facts: all, synced, and of those current, retired (a removed entry's) and
    compacted (full text a `fact_store#N` pointer in the files names)."""
    where = context.store
    settings = where.settings
    status: dict[str, Any] = {
        "store": str(where.path),
        "facts": None,
        "pipeline_facts": None,
        "current_facts": None,
        "retired_facts": None,
        "retired_in_place": None,
        "archived_facts": None,
        "compacted_facts": None,
        "hermes_own_facts": None,
        "quarantined": None,
        "last_write": None,
        "vector_dialect": None,
        "vectors": None,
        "embedder": None,
        "store_error": None,
    }
    if not where.exists:
        return status
    try:
        with where.read_only(context.owner) as reads:
            counts = reads.store_counts()
            status["facts"], status["pipeline_facts"], status["last_write"] = counts.facts, counts.pipeline_facts, counts.last_write
            # Each fact in Hermes' tables is counted once: current, compacted, Hermes' own or retired
            # in place (a mirror row Hermes wrote); the pipeline's retired facts wait in its archive.
            live = counts.pipeline_facts - counts.pipeline_retired
            status["retired_in_place"], status["archived_facts"] = counts.retired_in_place, counts.archived
            status["retired_facts"] = counts.retired_in_place + counts.archived
            status["compacted_facts"] = min(len(reads.existing_fact_ids(pointers)), live)
            status["current_facts"] = live - status["compacted_facts"]
            status["hermes_own_facts"] = counts.facts - counts.pipeline_facts - (counts.retired_in_place - counts.pipeline_retired)
            status["quarantined"] = len(reads.quarantined_entries())
            status["vectors"] = reads.vector_counts(settings.hrr_dim)
            status["vector_dialect"] = reads.vector_format(settings.hrr_dim).value
            status["embedder"] = reads.embedding_model()
    except StoreError as exc:
        status["store_error"] = str(exc)
    return status


def _last_audit(data_dir: Path, profile: Profile) -> dict[str, Any]:
    """The report the last full sync run wrote (every run ends with `audit_report`)."""
    report = last_report(data_dir, profile.name)
    failing = [f"{c['name']} ({c['severity']})" for c in report.get("checks", []) if not c.get("passed")]
    return {"last_sync": report.get("checked_at"), "failing_checks": failing}


def profile_status(context: ProfileContext) -> dict[str, Any]:
    """One profile as `status` (and the agent's `memory_status`) report it, with the profiles of
    its home sharing its store."""
    profile, data_dir = context.profile, context.home.data_dir
    readings = read_profile(profile)
    store = _store_status(context, {n for r in readings for entry in r.entries for n in fact_pointers(entry)})
    return {
        "profile": profile.name,
        "store_shared_with": [c.name for c in context.sharers],
        "entries": {r.source: len(r.entries) for r in readings},
        "cap_usage_pct": {r.source: round(100.0 * r.cap_usage, 1) for r in readings},
        "chars": {r.source: [r.chars, r.limit] for r in readings},  # what the text's whole percent is taken from, as everywhere
        "unreadable": [str(r.path) for r in readings if not r.readable],
        "switched_off": {r.source: r.switched_off for r in readings if r.switched_off},
        "journal_problems": read_journal(journal_path(data_dir, profile.name)).problems,
        **store,
        "recall_by_meaning": recall_by_meaning(profile, store["embedder"]),
        "hermes_plugin": installed_plugin(profile.home).value,
        **_last_audit(data_dir, profile),
    }
