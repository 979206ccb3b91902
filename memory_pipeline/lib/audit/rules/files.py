"""The memory files themselves and what waits beside them: `cap_usage`, `format_parity`,
`pointers_resolve`, `quarantine_empty`, and the extraction checks read back from the history."""

from __future__ import annotations

import pandas as pd

from memory_pipeline.lib.audit.checks import ERROR, WARN, AuditResult
from memory_pipeline.lib.audit.layers import on_own_store
from memory_pipeline.lib.audit.loaded_layers import LoadedLayers
from memory_pipeline.lib.choices import compact_target
from memory_pipeline.lib.hermes.compaction import fewest_chars, propose
from memory_pipeline.lib.hermes.hashing import SHORT_HASH_CHARS
from memory_pipeline.lib.hermes.memory_files import SourceReading, fact_pointers


def cap_usage(layers: LoadedLayers) -> AuditResult:
    """Both files within the profile's target share of their caps (WARN above it); ERROR once a
    file is over its cap. The detail says the room left and what `compact` would free."""
    target = layers.inputs.cap_target
    readings = layers.inputs.readings
    share = {r.source: r.chars / r.limit if r.limit > 0 else 0.0 for r in readings}
    over = {r.source for r in readings if share[r.source] > target}
    budget = {r.source: int(compact_target(target) * r.limit) for r in readings}
    # A file no proposal could fit is said so at once: proposing for it would cost a pass over every entry.
    floors = {r.source: floor for r in readings if r.source in over and (floor := fewest_chars(r.entries)) > budget[r.source]}
    synced = _synced_entries(layers) if over - floors.keys() else {}
    parts = []
    for r in readings:
        if r.switched_off:  # Hermes' rule: a file switched off is not in the prompt, so no cap binds it
            parts.append(f"{r.path.name} switched off ({r.switched_off}: false): not injected, no cap")
            continue
        room = f"{r.limit - r.chars} left" if r.chars <= r.limit else f"{r.chars - r.limit} over"
        part = f"{r.path.name} {r.chars}/{r.limit} chars ({100 * share[r.source]:.0f}%), {room}"
        if r.source in floors:
            part += f", too far over for `compact` ({len(r.entries)} entries need {floors[r.source]} chars even as pointers)"
        elif r.source in over:
            part += _what_compact_frees(r, synced, target)
        parts.append(part)
    return AuditResult(
        "cap_usage",
        not over,
        ERROR if any(s > 1.0 for s in share.values()) else WARN,
        "; ".join(parts) + f"; target ≤ {100 * target:.0f}%",
        {f"{source}_usage_pct": round(100.0 * s, 2) for source, s in share.items()},
    )


def _what_compact_frees(reading: SourceReading, synced: dict[tuple[str, str], list[int]], target: float) -> str:
    """What `compact` would propose, from this audit's reading (no bytes: nothing is applied)."""
    if not reading.readable:
        return ", no synced entry for `compact` to shorten"
    proposal = propose(reading, b"", synced, target=compact_target(target))
    freed = proposal.chars_before - proposal.chars_after
    if not freed:
        return ", no synced entry for `compact` to shorten"
    reached = f"{100 * proposal.chars_after / reading.limit:.0f}%"
    if not proposal.fits:  # as far as it gets: said, never promised
        short = f"short of its {100 * proposal.target:.0f}% target: remove or merge entries for the rest"
        return f", `compact` would free {freed} (→ {reached}, {short})"
    return f", `compact` would free {freed} (→ {reached})"


def _synced_entries(layers: LoadedLayers) -> dict[tuple[str, str], list[int]]:
    """Each active ledger entry's (source, short hash) and its facts, where all of them exist: what
    `sync.ledger.synced_facts` gives `compact`, read here from the audit's one snapshot of the store
    (its loaded `ledger` and `facts`), not from the store again."""
    rows = layers.db.execute(
        f"""SELECT l.source, left(l.entry_sha256, {SHORT_HASH_CHARS}), list(l.fact_id ORDER BY l.fact_id), bool_and(f.fact_id IS NOT NULL)
            FROM ledger l LEFT JOIN loaded_facts f ON f.fact_id = l.fact_id
            WHERE l.status = 'active' AND l.fact_id IS NOT NULL GROUP BY 1, 2"""
    ).fetchall()
    return {(source, short): [int(i) for i in ids] for source, short, ids, complete in rows if complete}


# Findings that make Hermes read a file otherwise than the pipeline; each names the edit that ends it.
_PARITY_CAUSES = ("leading_delimiter", "doubled_delimiter", "bom")


def format_parity(layers: LoadedLayers) -> AuditResult:
    readings = layers.inputs.readings
    differs = [
        "; ".join(
            [f.detail for f in r.findings if f.code == "hermes_parse_differs"] + [f.detail for f in r.findings if f.code in _PARITY_CAUSES]
        )
        for r in readings
        if any(f.code == "hermes_parse_differs" for f in r.findings)
    ]
    unreadable = [r.path.name for r in readings if not r.readable]
    return AuditResult(
        "format_parity",
        not differs and not unreadable,
        WARN,
        ("; ".join(differs) if differs else "Hermes (0.19.0 and current) and the pipeline read the same entries")
        + (f"; unreadable: {', '.join(unreadable)}" if unreadable else ""),
        {"files_differing": float(len(differs)), "files_unreadable": float(len(unreadable))},
    )


def pointers_resolve(layers: LoadedLayers) -> AuditResult:
    """Every `fact_store#N` pointer names a fact the agent is given: one missing, retired (out of
    Hermes' tables) or withheld (private, unsafe, not judged) is a pointer it cannot follow."""
    pointers = [n for r in layers.inputs.readings for t in r.entries for n in fact_pointers(t)]
    existing: set[int] = set()
    unfollowable: list[int] = []
    if pointers and layers.inputs.reads is not None:
        wanted = sorted(set(pointers))
        layers.db.register("pointers", pd.DataFrame({"fact_id": wanted}))
        existing = {
            r[0] for r in layers.db.execute("SELECT fact_id FROM loaded_facts WHERE fact_id IN (SELECT fact_id FROM pointers)").fetchall()
        }
        unfollowable = on_own_store(layers.inputs.settings, lambda store: store.reads.facts_by_id(wanted)[1])
    dangling = sorted({p for p in pointers if p not in existing})
    withheld = sorted(set(unfollowable) - set(dangling))
    return AuditResult(
        "pointers_resolve",
        not (dangling or withheld),
        WARN,
        f"{len(pointers)} fact_store#N pointers in the memory files, {len(dangling)} name no fact"
        + (f" (#{', #'.join(map(str, dangling[:20]))})" if dangling else "")
        + f", {len(withheld)} name a fact the agent is not given (retired, private, unsafe or not judged)"
        + (f" (#{', #'.join(map(str, withheld[:20]))})" if withheld else ""),
        {"pointers": float(len(pointers)), "dangling_pointers": float(len(dangling)), "withheld_pointers": float(len(withheld))},
    )


def quarantine_empty(layers: LoadedLayers) -> AuditResult:
    quarantined = layers.quarantined
    return AuditResult(
        "quarantine_empty", not quarantined, WARN, f"{len(quarantined)} entries in quarantine", {"quarantined": float(len(quarantined))}
    )


def extraction_latency(layers: LoadedLayers) -> AuditResult:
    return layers.extraction["extraction_latency"]


def extraction_json_valid(layers: LoadedLayers) -> AuditResult:
    return layers.extraction["extraction_json_valid"]


RULES = {
    "cap_usage": cap_usage,
    "format_parity": format_parity,
    "pointers_resolve": pointers_resolve,
    "quarantine_empty": quarantine_empty,
    "extraction_latency": extraction_latency,
    "extraction_json_valid": extraction_json_valid,
}
