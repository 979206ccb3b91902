"""The audit's rules, one module per group of checks: `cross_layer` (the entries, the ledger and
the facts against each other), `drift` (synced facts the agent changed), `index` (facts_fts, vectors, banks), `privacy` (tags against the
keyword list and the detectors), `files` (the memory files themselves, the quarantine and the
extraction history), `meaning` (entries saying the same thing). Each rule takes the `LoadedLayers` and returns an `AuditResult`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memory_pipeline.lib.audit.rules import cross_layer, drift, files, index, meaning, privacy

RULES: dict[str, Callable[..., Any]] = {**cross_layer.RULES, **drift.RULES, **index.RULES, **privacy.RULES, **files.RULES, **meaning.RULES}
# Store-side work that is pure SQLite: started on its own connection in a thread while the
# frames load (sqlite3 releases the GIL while a statement runs), so on two cores it costs little.
STORE_SIDE: dict[str, Callable[..., Any]] = {**cross_layer.STORE_SIDE, **drift.STORE_SIDE, **index.STORE_SIDE, **privacy.STORE_SIDE}
