"""The `ingest` stage: the memory files read and split into entries, then hashed."""

import dagster as dg

from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.resources import HermesHomeResource
from memory_pipeline.lib.hermes.entries import hashed_frame, parsed_frame
from memory_pipeline.lib.hermes.memory_files import SourceReading
from memory_pipeline.lib.hermes.profiles import readings_digest
from memory_pipeline.lib.sync.stages import Entries, held_sources
from memory_pipeline.runs.stage_reports import ParseReport


def _findings_table(readings: list[SourceReading]) -> str:
    rows = [f"| {r.source} | `{f.code}` | {f.detail} |" for r in readings for f in r.findings]
    if not rows:
        return "No format findings."
    return "\n".join(["| source | code | detail |", "|---|---|---|", *rows])


def _reading_metadata(reading: SourceReading) -> dict[str, float]:
    prefix = reading.source
    return {
        f"{prefix}_entries": float(len(reading.entries)),
        f"{prefix}_hermes_entries": float(len(reading.hermes_entries)),
        f"{prefix}_chars": float(reading.chars),
        f"{prefix}_char_limit": float(reading.limit),
        f"{prefix}_cap_usage_pct": round(100.0 * reading.cap_usage, 2),
        f"{prefix}_findings": float(len(reading.findings)),
        # 1.0 while config.yaml switches the file off: its entries are not the agent's, so not synced.
        f"{prefix}_switched_off": float(bool(reading.switched_off)),
    }


@dg.asset(
    partitions_def=hermes_profiles,
    group_name="ingest",
    kinds={"python", "pandas"},
)
def parsed_entries(context: dg.AssetExecutionContext, hermes: HermesHomeResource) -> dg.Output[Entries]:
    """The profile's MEMORY.md and USER.md split into entries exactly as the pipeline reads them (a `§` line ends an entry).

    One row per entry (profile, source, position, text, chars). Cap usage, Hermes' own entry
    count and every format finding are metadata; an unreadable file is logged and skipped, never
    treated as empty. The files are only read.
    """
    profile = hermes.context(context.partition_key).profile
    readings = hermes.read(profile.name)
    for reading in readings:
        if not reading.readable:
            context.log.error(reading.error)
    frame = parsed_frame(profile.name, readings)
    metadata: dict = {"dagster/row_count": float(len(frame)), "findings": dg.MetadataValue.md(_findings_table(readings))}
    for reading in readings:
        metadata.update(_reading_metadata(reading))
    metadata["unreadable_files"] = float(sum(not r.readable for r in readings))
    report = ParseReport(
        # The bytes this run read (never their content): what a skipped sync compares the files with.
        files_sha256=readings_digest(readings),
        # Paths and the problem only (never content): what the CLI names when it reports the skip.
        unreadable="; ".join(r.error or "" for r in readings if not r.readable),
        missing=", ".join(str(r.path) for r in readings if not r.exists),
    )
    metadata.update(report.metadata())
    return dg.Output(Entries(frame, held_sources(readings)), metadata=metadata)


@dg.asset(
    partitions_def=hermes_profiles,
    group_name="ingest",
    kinds={"python", "pandas"},
)
def hashed_entries(parsed_entries: Entries) -> dg.Output[Entries]:
    """Each entry with its SHA-256, the ledger's 16-char short hash and its stable `entry_id`."""
    frame = hashed_frame(parsed_entries.frame)
    return dg.Output(
        Entries(frame, parsed_entries.held),
        metadata={
            "dagster/row_count": float(len(frame)),
            "distinct_hashes": float(frame["entry_sha256"].nunique()),
        },
    )
