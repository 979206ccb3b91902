"""The engine that runs the audits: one profile's layers loaded once (`loaded`), every rule of
`rules` run against them, two at a time. Details carry counts and ids only, never an entry's or a
fact's text."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

from memory_pipeline.lib.audit.checks import CHECK_REGISTRY, CHECK_SPECS, AuditResult
from memory_pipeline.lib.audit.layers import AuditInputs
from memory_pipeline.lib.audit.loaded_layers import LoadedLayers
from memory_pipeline.lib.audit.rules import RULES, STORE_SIDE

# Checks that need nothing of the store but the ledger (the blocking one runs alone, before any write).
_LEDGER_ONLY = {"ledger_integrity"}


class Audit:
    """The checks of one profile, looked up by name in CHECKS, so one (a Dagster asset check) or
    all of them (the report, the CLI) can run; the store-side work of the checks named up front
    starts at once, beside the loading."""

    def __init__(self, inputs: AuditInputs, names: Iterable[str] | None = None):
        wanted = set(CHECKS if names is None else names)
        store_side = {name: STORE_SIDE[name] for name in sorted(STORE_SIDE.keys() & wanted)}
        self.layers = LoadedLayers(inputs, store_side, load_store=bool(wanted - _LEDGER_ONLY))

    @property
    def loads(self) -> int:
        return self.layers.loads

    @property
    def watermark(self) -> str | None:
        return self.layers.watermark

    def run(self, name: str) -> AuditResult:
        return CHECKS[name](self.layers)

    def run_many(self, names: Iterable[str]) -> list[AuditResult]:
        """Several checks, two at a time: DuckDB and SQLite release the GIL, so one check's
        queries run beside another's Python work (hashing the entries, the privacy rules).
        The heaviest start first."""
        names = list(names)
        if len(names) < 2 or not self.layers.loads_store:
            return [self.run(name) for name in names]
        self.layers.read_on_this_thread()
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="audit-check") as pool:
            futures = {name: pool.submit(self.run, name) for name in sorted(names, key=lambda n: CHECK_SPECS[n].start)}
            return [futures[name].result() for name in names]

    def run_all(self) -> list[AuditResult]:
        return self.run_many(CHECKS)

    def close(self) -> None:
        self.layers.close()

    def __enter__(self) -> Audit:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def run_audits(inputs: AuditInputs) -> list[AuditResult]:
    with Audit(inputs) as audit:
        return audit.run_all()


# Every check of the registry, in its order (a check without a rule fails here, at import).
CHECKS: dict[str, Callable[[LoadedLayers], AuditResult]] = {spec.name: RULES[spec.name] for spec in CHECK_REGISTRY}
