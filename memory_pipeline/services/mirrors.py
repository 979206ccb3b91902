"""The mirrors service: Holographic's mirror-shaped facts of a profile that no entry in its files
explains (an entry edited or removed before a sync, or the agent's own `fact_store add`), and,
on request, each of them retired or kept (adopted as the pipeline's)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memory_pipeline.context.home import ProfileContext
from memory_pipeline.lib.hermes.profiles import read_profile
from memory_pipeline.lib.store.reads.mirror_rows import MirrorRow
from memory_pipeline.lib.store.reads.receipts import Receipt
from memory_pipeline.lib.store.writes.transaction import StoreWrites
from memory_pipeline.lib.sync.mirror import settle_unexplained, unexplained_mirrors


@dataclass
class ProfileMirrors:
    store: Path
    unexplained: list[MirrorRow] = field(default_factory=list)
    settled: list[int] = field(default_factory=list)  # fact ids retired or kept, with `apply`


def profile_mirrors(context: ProfileContext, *, apply: bool = False, keep: bool = False) -> ProfileMirrors:
    """The profile's unexplained mirror rows; with `apply`, each retired (or kept, with `keep`)."""
    found = ProfileMirrors(context.store.path)
    if not context.store.exists:
        return found
    current = read_profile(context.profile)
    with context.opened(create=apply) as store:
        rows = {row.fact_id: row for row in store.reads.mirror_rows()}
        ids = unexplained_mirrors(list(rows.values()), current)
        if apply:
            found.settled = settle_unexplained(store, ids, current, keep=keep, retire_one=_retired)
    found.unexplained = [rows[i] for i in ids]
    return found


def _retired(writes: StoreWrites, fact_id: int) -> int:
    """A mirror row retired in place on request, with its receipt (Hermes' own fact: never moved)."""
    changed = writes.records.retire_in_place(fact_id)
    if changed:
        writes.records.write_receipt(Receipt("retired", None, (fact_id,), 0, 0, ()))
    return changed
