"""`entries_distinct`: no two entries of a memory file say the same thing, judged by meaning (the
vectors recall by meaning keeps). Real files hold one fact written two or three times; each copy
costs cap and gives the agent nothing more."""

from __future__ import annotations

from memory_pipeline.lib.audit.checks import WARN, AuditResult
from memory_pipeline.lib.audit.layers import on_own_store
from memory_pipeline.lib.audit.loaded_layers import LoadedLayers
from memory_pipeline.lib.hermes.duplicates import DUPLICATE_COSINE, MOST_COMPARED, duplicate_groups, too_many_to_compare
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES
from memory_pipeline.lib.in_hermes.meaning import OFF_MODEL
from memory_pipeline.lib.store.reads.ledger import synced_facts


def entries_distinct(layers: LoadedLayers) -> AuditResult:
    """Groups of entries of one file whose facts' vectors lie within the duplicate cosine, by file
    and entry number (never their text); passes, saying so, when recall by meaning is off."""
    inputs = layers.inputs
    if inputs.reads is None:
        return AuditResult("entries_distinct", True, WARN, "no store yet")
    model, synced, vectors = on_own_store(
        inputs.settings,
        lambda store: (store.reads.embedding_model(), synced_facts(store.reads.active_ledger()), store.reads.shown_vectors()),
        inputs.owner,
    )
    if model in (None, OFF_MODEL):
        return AuditResult("entries_distinct", True, WARN, "not checked: recall by meaning is off (sync --embedder bundled)")
    readable = [r for r in inputs.readings if r.readable]
    groups = duplicate_groups(readable, synced, vectors)
    named = [f"{SOURCE_FILES[g.source]} entries {g.numbers()} (cosine {g.closest:.2f})" for g in groups]
    detail = (
        f"entries saying the same thing, by meaning ({model}, cosine ≥ {DUPLICATE_COSINE}): {'; '.join(named)}"
        if named
        else f"no two entries of a file say the same thing by meaning ({model}, cosine ≥ {DUPLICATE_COSINE})"
    )
    if skipped := [r for r in readable if too_many_to_compare(r)]:
        files = ", ".join(f"{SOURCE_FILES[r.source]} ({len(r.entries):,} entries)" for r in skipped)
        detail += f"; not compared: {files}, more than {MOST_COMPARED:,} entries (far over the cap: `cap_usage` says what to do)"
    metrics = {"duplicate_groups": float(len(groups)), "duplicate_entries": float(sum(len(g.positions) for g in groups))}
    return AuditResult("entries_distinct", not groups, WARN, detail, metrics)


RULES = {"entries_distinct": entries_distinct}
