"""What a run's assets reported, read once into typed fields: the one place the package reads a
run's metadata by name (the names are what the assets write; a test runs a sync and checks that
every name read here is among them); the entries a run found changed and what a re-tag changed, typed. Light: no
Dagster import."""

from __future__ import annotations

from dataclasses import dataclass, field

from memory_pipeline.lib.store.sync_report import SyncReport

# (asset, metadata name) read here: checked against a real run's metadata by a test.
READ_METADATA = {
    ("parsed_entries", "files_sha256"),
    ("parsed_entries", "unreadable"),
    ("parsed_entries", "missing"),
    ("ledger_diff", "mirror_rows"),
    ("ledger_diff", "mirror_previous_versions"),
    ("ledger_diff", "mirror_unexplained"),
    ("ledger_diff", "mirror_unexplained_ids"),
    ("ledger_diff", "held_unreadable_entries"),
    ("extracted_facts", "extractor"),
    ("extracted_facts", "extractor_reason"),
    ("extracted_facts", "model"),
    ("extracted_facts", "llm_calls"),
    ("fact_store", "store"),
    ("privacy_tags", "private_facts"),
    ("privacy_tags", "tagged"),
    ("privacy_tags", "untagged"),
    ("privacy_tags", "newly_private_ids"),
    ("privacy_tags", "no_longer_private_ids"),
    ("privacy_tags", "keyword_list_digest"),
    ("fact_embeddings", "model"),
    ("fact_embeddings", "embedded"),
    ("audit_report", "store_in_step"),
    ("audit_report", "store_watermark"),
}


@dataclass(frozen=True)
class RunOutputs:
    """A run's reported values; a step that did not run leaves its fields at their zero."""

    report: SyncReport = field(default_factory=SyncReport)  # what `fact_store` wrote
    store: str = ""
    files_sha256: str = ""  # the files as the parse read them
    unreadable: str = ""  # files that could not be read (their entries held)
    missing: str = ""
    held_unreadable_entries: int = 0
    mirror_rows: int = 0
    mirror_previous_versions: int = 0
    mirror_unexplained: int = 0
    mirror_unexplained_ids: tuple[int, ...] = ()  # the agent's own facts (mirror-shaped), by id
    extractor: str = ""
    extractor_reason: str = ""
    model: str = ""
    llm_calls: int = 0
    private_facts: int = 0
    tagged: int = 0
    untagged: int = 0
    newly_private_ids: tuple[str, ...] = ()  # the first hundred, by fact id
    no_longer_private_ids: tuple[str, ...] = ()
    keyword_list_digest: str = ""
    embedder: str = ""  # the model recall by meaning's vectors are made with ("off": none)
    embedded: int = 0
    store_in_step: bool = False  # no other writer changed the store while the run read it
    store_watermark: str = ""


def read_outputs(metadata: dict[str, dict[str, object]]) -> RunOutputs:
    """The typed values from a run's plain metadata (asset -> name -> value)."""

    def value(asset: str, name: str, default: object) -> object:
        assert (asset, name) in READ_METADATA, (asset, name)  # every name read is listed (and tested)
        return metadata.get(asset, {}).get(name, default)

    def text(asset: str, name: str) -> str:
        return str(value(asset, name, "") or "")

    def number(asset: str, name: str) -> int:
        found = value(asset, name, 0)
        return int(found) if isinstance(found, int | float | str) and found else 0

    def ids(name: str) -> tuple[str, ...]:
        return tuple(i for i in text("privacy_tags", name).split(",") if i)

    return RunOutputs(
        report=SyncReport.from_metrics(metadata.get("fact_store", {})),
        store=text("fact_store", "store"),
        files_sha256=text("parsed_entries", "files_sha256"),
        unreadable=text("parsed_entries", "unreadable"),
        missing=text("parsed_entries", "missing"),
        held_unreadable_entries=number("ledger_diff", "held_unreadable_entries"),
        mirror_rows=number("ledger_diff", "mirror_rows"),
        mirror_previous_versions=number("ledger_diff", "mirror_previous_versions"),
        mirror_unexplained=number("ledger_diff", "mirror_unexplained"),
        mirror_unexplained_ids=tuple(int(i) for i in text("ledger_diff", "mirror_unexplained_ids").split(",") if i.isdigit()),
        extractor=text("extracted_facts", "extractor"),
        extractor_reason=text("extracted_facts", "extractor_reason"),
        model=text("extracted_facts", "model"),
        llm_calls=number("extracted_facts", "llm_calls"),
        private_facts=number("privacy_tags", "private_facts"),
        tagged=number("privacy_tags", "tagged"),
        untagged=number("privacy_tags", "untagged"),
        newly_private_ids=ids("newly_private_ids"),
        no_longer_private_ids=ids("no_longer_private_ids"),
        keyword_list_digest=text("privacy_tags", "keyword_list_digest"),
        embedder=text("fact_embeddings", "model"),
        embedded=number("fact_embeddings", "embedded"),
        store_in_step=value("audit_report", "store_in_step", False) is True,
        store_watermark=text("audit_report", "store_watermark"),
    )


@dataclass(frozen=True)
class EntryChange:
    """An entry a run found not unchanged. Its text is there for the command line to title it
    on the user's own terminal (a private one by id only); it is never part of the value's repr."""

    entry_id: str
    source: str
    status: str  # new, changed, compacted, removed
    matched_entry_id: str | None = None
    text: str = field(default="", repr=False)


@dataclass(frozen=True)
class RetagChange:
    """What a re-tag changed: how many facts became private and stopped being, by fact id (the
    ids listed may be fewer than the count: the metadata shows the first hundred)."""

    tagged: int
    newly_private: list[str]
    untagged: int
    no_longer_private: list[str]
