"""What each stage tells the rest of the package through its run's metadata: one typed report per
stage. The asset writes `report.metadata()` among its metadata; a finished run's reader builds the
same report back with `from_metadata()` (a round trip, tested), so no name is read anywhere else.
Numbers are written as floats (the UI plots them), id lists as comma-joined text, never entry
text. Light: no Dagster import."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Self, get_type_hints

from memory_pipeline.lib.store.sync_report import SyncReport


class StageReport:
    """The round trip every report shares: each field one metadata entry of the same name."""

    def metadata(self) -> dict[str, Any]:
        return {f.name: _written(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any]) -> Self:
        hints = get_type_hints(cls)
        found = {f.name: _read(hints[f.name], metadata[f.name]) for f in fields(cls) if f.name in metadata}  # type: ignore[arg-type]
        return cls(**found)


def _written(value: object) -> object:
    if isinstance(value, bool) or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    raise TypeError(f"a report field of type {type(value).__name__}")


def _read(kind: object, value: object) -> object:
    if kind is bool:
        return value is True
    if kind is int:
        try:
            return int(float(value))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return 0
    if kind is str:
        return "" if value is None else str(value)
    parts = [part for part in str(value or "").split(",") if part]
    if kind == tuple[int, ...]:
        return tuple(int(part) for part in parts if part.isdigit())
    return tuple(parts)


@dataclass(frozen=True)
class ParseReport(StageReport):
    """`parsed_entries`: the files as read (their bytes' digest, never their content), the
    unreadable ones with their problem, the missing ones by path."""

    files_sha256: str = ""
    unreadable: str = ""
    missing: str = ""


@dataclass(frozen=True)
class DiffReport(StageReport):
    """`ledger_diff`: entries held because their file is unreadable, and Holographic's mirror rows
    (found, previous versions, the agent's own facts unexplained, by id: the first thousand)."""

    held_unreadable_entries: int = 0
    mirror_rows: int = 0
    mirror_previous_versions: int = 0
    mirror_unexplained: int = 0
    mirror_unexplained_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class ExtractReport(StageReport):
    """`extracted_facts`: the extractor that ran, why, its model and LLM calls."""

    extractor: str = ""
    extractor_reason: str = ""
    model: str = ""
    llm_calls: int = 0


@dataclass(frozen=True)
class WriteReport(StageReport):
    """`fact_store`: what the writer did (`SyncReport`'s counts) and the store it wrote."""

    report: SyncReport = field(default_factory=SyncReport)
    store: str = ""

    def metadata(self) -> dict[str, Any]:
        return {**self.report.metrics(), "store": self.store}

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any]) -> WriteReport:
        return cls(SyncReport.from_metrics(metadata), str(metadata.get("store") or ""))


@dataclass(frozen=True)
class PrivacyReport(StageReport):
    """`privacy_tags`: private facts, what this run tagged and untagged (by fact id: the first
    hundred), and the keyword list judged with (its digest)."""

    private_facts: int = 0
    tagged: int = 0
    untagged: int = 0
    newly_private_ids: tuple[int, ...] = ()
    no_longer_private_ids: tuple[int, ...] = ()
    keyword_list_digest: str = ""

    def metadata(self) -> dict[str, Any]:
        return {**super().metadata(), **{name: shown_ids(getattr(self, name)) for name in ("newly_private_ids", "no_longer_private_ids")}}


IDS_SHOWN = 100  # fact ids a run's metadata lists; the rest are counted


def shown_ids(fact_ids: tuple[int, ...] | list[int]) -> str:
    """The first hundred ids, comma-joined, and how many there are in all when more."""
    shown = ",".join(map(str, fact_ids[:IDS_SHOWN]))
    return shown + (f",… ({len(fact_ids)} in all)" if len(fact_ids) > IDS_SHOWN else "")


@dataclass(frozen=True)
class EmbeddingsReport(StageReport):
    """`fact_embeddings`: the model recall by meaning's vectors are made with, and how many facts
    this run embedded."""

    model: str = ""
    embedded: int = 0


@dataclass(frozen=True)
class AuditReport(StageReport):
    """`audit_report`: whether the store stayed in step while the run read it (no other writer),
    and its watermark then."""

    store_in_step: bool = False
    store_watermark: str = ""


@dataclass(frozen=True)
class RunOutputs:
    """A run's stage reports, each read from its asset's metadata; a step that did not run leaves
    its report at its zero."""

    parse: ParseReport = field(default_factory=ParseReport)
    diff: DiffReport = field(default_factory=DiffReport)
    extract: ExtractReport = field(default_factory=ExtractReport)
    write: WriteReport = field(default_factory=WriteReport)
    privacy: PrivacyReport = field(default_factory=PrivacyReport)
    embeddings: EmbeddingsReport = field(default_factory=EmbeddingsReport)
    audit: AuditReport = field(default_factory=AuditReport)

    # Which asset writes which report.
    ASSETS: ClassVar[dict[str, str]] = {
        "parse": "parsed_entries",
        "diff": "ledger_diff",
        "extract": "extracted_facts",
        "write": "fact_store",
        "privacy": "privacy_tags",
        "embeddings": "fact_embeddings",
        "audit": "audit_report",
    }

    @classmethod
    def from_metadata(cls, metadata: dict[str, dict[str, object]]) -> RunOutputs:
        """The reports from a run's plain metadata (asset -> name -> value)."""
        kinds = get_type_hints(cls)
        return cls(**{name: kinds[name].from_metadata(metadata.get(asset, {})) for name, asset in cls.ASSETS.items()})

    @property
    def report(self) -> SyncReport:
        return self.write.report
