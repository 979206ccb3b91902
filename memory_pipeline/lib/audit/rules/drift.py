"""`facts_match_entries`: every synced fact still holds the text its entry gave it. A fact the
agent changed (`fact_store update`) is named with its entry (by file and position, never by its
id, a hash of its text), never decided silently: `memory-
pipeline drift` keeps the agent's text as a fact of its own or writes the entry's back."""

from __future__ import annotations

from memory_pipeline.lib.audit.checks import WARN, AuditResult
from memory_pipeline.lib.audit.loaded_layers import LoadedLayers
from memory_pipeline.lib.hermes.hashing import entry_identities
from memory_pipeline.lib.store.fact_store import FactStore

_NAMED = 10


def drifted(store: FactStore) -> list[tuple[int, tuple[str, ...]]]:
    """(fact id, entry ids) of every synced fact whose text is no longer what the sync wrote."""
    return [(d.fact_id, d.entry_ids) for d in store.reads.drifted_facts()]


def facts_match_entries(layers: LoadedLayers) -> AuditResult:
    found = layers.store_side("facts_match_entries") if layers.inputs.reads is not None else []
    where = _positions(layers)
    gone = "an entry no longer in the files"
    named = "; ".join(f"fact {fact_id} of {', '.join(where.get(e, gone) for e in entries)}" for fact_id, entries in found[:_NAMED])
    more = f" and {len(found) - _NAMED} more" if len(found) > _NAMED else ""
    detail = (
        f"{len(found)} synced facts changed outside the memory files (the agent's fact_store update?): {named}{more}"
        if found
        else "every synced fact holds the text its entry gave it"
    )
    return AuditResult("facts_match_entries", not found, WARN, detail, {"changed_facts": float(len(found))})


def _positions(layers: LoadedLayers) -> dict[str, str]:
    """Each entry by its file and position (`MEMORY.md entry 3`): never by its id, a hash of its text."""
    found = {}
    for reading in layers.inputs.readings:
        _, _, ids = entry_identities([reading.source] * len(reading.entries), reading.entries)
        found.update({entry_id: f"{reading.path.name} entry {n}" for n, entry_id in enumerate(ids, start=1)})
    return found


RULES = {"facts_match_entries": facts_match_entries}
STORE_SIDE = {"facts_match_entries": drifted}
