import sqlite3
import warnings
from contextlib import contextmanager
from pathlib import Path

import dagster as dg

from memory_pipeline.defs.checks import profile_audit
from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.resources import ExtractorResource, FactStoreResource, HermesHomeResource, PrivacyResource
from memory_pipeline.lib.audit.checks import CHECK_REGISTRY
from memory_pipeline.lib.audit.history import history_path
from memory_pipeline.lib.audit.metrics import latency_summary
from memory_pipeline.lib.audit.report import failing_errors, write_reports
from memory_pipeline.lib.extraction import ExtractionOutcome, entries_to_extract
from memory_pipeline.lib.extraction.choice import ExtractorUnavailable
from memory_pipeline.lib.extraction.health import extraction_checks, record_calls
from memory_pipeline.lib.hermes.entries import hashed_frame, parsed_frame
from memory_pipeline.lib.hermes.memory_files import SourceReading
from memory_pipeline.lib.hermes.profiles import pipeline_data_dir, read_profile
from memory_pipeline.lib.privacy.tagging import retag_store
from memory_pipeline.lib.store.database import StoreError, connect, store_error
from memory_pipeline.lib.store.search_index import holographic_fts_health, rebuild_holographic_fts, sync_search_index
from memory_pipeline.lib.store.vector_codec import store_format, vector_counts
from memory_pipeline.lib.sync.ledger import EMPTY_LEDGER, STATUSES, active_ledger, diff_entries, ledger_fingerprint
from memory_pipeline.lib.sync.stages import Entries, EntryDiff, Extraction, Provenance, held_sources
from memory_pipeline.lib.sync.writer import write_sync


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
    profile = hermes.profile(context.partition_key)
    readings = read_profile(profile)
    for reading in readings:
        if not reading.readable:
            context.log.error(reading.error)
    frame = parsed_frame(profile.name, readings)
    metadata: dict = {"dagster/row_count": float(len(frame)), "findings": dg.MetadataValue.md(_findings_table(readings))}
    for reading in readings:
        metadata.update(_reading_metadata(reading))
    metadata["unreadable_files"] = float(sum(not r.readable for r in readings))
    # Paths and the problem only (never content): what the CLI names when it reports the skip.
    metadata["unreadable"] = "; ".join(r.error for r in readings if not r.readable)
    metadata["missing"] = ", ".join(str(r.path) for r in readings if not r.exists)
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


@contextmanager
def _opened_store(path: Path, *, create: bool):
    """The store's connection (None when reading a store that does not exist yet: reading never
    creates it). A store problem fails the step with one line naming the file."""
    conn = None
    try:
        if create or path.exists():
            conn = connect(path, create=create)
        yield conn
    except StoreError as exc:
        raise dg.Failure(description=str(exc)) from None
    except sqlite3.DatabaseError as exc:
        raise dg.Failure(description=str(store_error(path, exc))) from None
    finally:
        if conn is not None:
            conn.close()


@dg.asset(
    partitions_def=hermes_profiles,
    group_name="sync",
    kinds={"sqlite", "pandas"},
)
def ledger_diff(
    context: dg.AssetExecutionContext,
    hashed_entries: Entries,
    hermes: HermesHomeResource,
    store: FactStoreResource,
) -> dg.Output[EntryDiff]:
    """Every entry classified against the SHA-256 ledger in `memory_store.db`.

    `unchanged` (same hash, wherever it stands), `changed` (moved between files, or similar enough
    to a vanished entry: its fact ids are the update candidates), `new`, or `removed`. Entries of a
    file that could not be read are held, never counted as removed.
    """
    profile = hermes.profile(context.partition_key)
    settings = store.settings(profile)
    with _opened_store(settings.db_path, create=False) as conn:
        ledger = active_ledger(conn) if conn else {}
        fingerprint = ledger_fingerprint(conn) if conn else EMPTY_LEDGER
    unreadable = hashed_entries.held
    diff = diff_entries(hashed_entries.frame, ledger, unreadable_sources=unreadable, threshold=store.similarity_threshold)
    counts = diff["status"].value_counts()
    metadata = {status: float(counts.get(status, 0)) for status in STATUSES}
    held = sum(1 for e in ledger.values() if e.source in unreadable)
    metadata["held_unreadable_entries"] = float(held)
    if held:
        context.log.warning(f"{held} synced entries held: their file is missing or unreadable, so they are not treated as removed")
    return dg.Output(EntryDiff(diff, fingerprint, unreadable), metadata=metadata)


# Emitted by `extracted_facts` itself: they judge the calls of the run that just happened.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.PreviewWarning)  # partitioned asset checks: preview in Dagster 1.13
    EXTRACTION_CHECK_SPECS = [
        dg.AssetCheckSpec(spec.name, asset=spec.asset, partitions_def=hermes_profiles, description=spec.description)
        for spec in CHECK_REGISTRY if spec.in_run
    ]


@dg.asset(
    partitions_def=hermes_profiles,
    group_name="sync",
    kinds={"python", "pandas", "ollama"},
    check_specs=EXTRACTION_CHECK_SPECS,
)
def extracted_facts(
    context: dg.AssetExecutionContext,
    ledger_diff: EntryDiff,
    extractor: ExtractorResource,
    hermes: HermesHomeResource,
    store: FactStoreResource,
):
    """Facts for the `new` and `changed` entries only, from the chosen extractor.

    `rules` gives one verbatim fact per entry; `ollama` asks a local model in batches, with a
    per-batch JSON schema, validates every reply and retries once; `auto` picks Ollama when it
    answers and has the model. Unchanged entries cost nothing: a run on unchanged files calls no
    extractor at all. Entries no reply could be trusted for are quarantined and stay pending.
    Calls, tokens and latency are metadata (plotted) and rows of the DuckDB `extraction_calls`.
    """
    settings = store.settings(hermes.profile(context.partition_key))
    with _opened_store(settings.db_path, create=False) as conn:
        work = entries_to_extract(ledger_diff.frame, conn)
    # With nothing to extract no server is even asked: the configured mode stands as the name.
    outcome = ExtractionOutcome()
    name, model, prompt_version, reason = extractor.mode(), "", "", "nothing new or changed to extract"
    if work:
        try:
            choice = extractor.choose()
        except (ExtractorUnavailable, ValueError) as exc:
            raise dg.Failure(description=str(exc)) from None
        chosen = choice.extractor
        name, model, prompt_version, reason = chosen.name, chosen.model, chosen.prompt_version, choice.reason
        outcome = chosen.extract(work)
    if outcome.calls:
        record_calls(pipeline_data_dir(hermes.path()), context.run.run_id, context.partition_key, name, model, outcome.calls)
    extraction = Extraction.of(outcome, Provenance(name, model, prompt_version))
    frame = extraction.facts
    context.log.info(f"{name} extractor ({reason}): {len(work)} entries, {len(frame)} facts, {len(outcome.calls)} calls, "
                     f"{len(outcome.quarantine)} quarantined")
    yield dg.Output(extraction, metadata={
        "extractor": name,
        "extractor_reason": reason,
        "model": model,
        "entries_extracted": float(len(work)),
        "facts": float(len(frame)),
        "llm_calls": float(len(outcome.calls)),
        "json_failures": float(outcome.json_failures),
        "transport_failures": float(outcome.transport_failures),
        "retries": float(outcome.retries),
        "quarantined": float(len(outcome.quarantine)),
        "prompt_tokens": float(outcome.prompt_tokens),
        "eval_tokens": float(outcome.eval_tokens),
        **latency_summary("fact_latency", list(frame["latency_s"])),
        **latency_summary("call_latency", outcome.call_latencies_s),
    })
    for result in extraction_checks(outcome.calls, latency_bound_s=extractor.latency_p95_bound_s,
                                    failure_rate_bound=extractor.json_failure_rate_bound):
        yield dg.AssetCheckResult(check_name=result.name, passed=result.passed, severity=dg.AssetCheckSeverity.WARN,
                                  description=result.detail, metadata=result.metrics)


@dg.asset(
    partitions_def=hermes_profiles,
    group_name="sync",
    kinds={"sqlite"},
)
def fact_store(
    context: dg.AssetExecutionContext,
    ledger_diff: EntryDiff,
    extracted_facts: Extraction,
    hermes: HermesHomeResource,
    store: FactStoreResource,
    privacy: PrivacyResource,
) -> dg.MaterializeResult:
    """The profile's Holographic `memory_store.db`, upserted so Hermes reads every fact as its own.

    Facts, entity links, HRR vectors, category banks, the ledger and the privacy tags of the facts
    written are one transaction, so no fact is ever visible untagged; a keyword list that cannot
    be loaded stops the run before anything is written. A run with nothing to do opens no
    transaction, so the file stays byte-for-byte the same.
    """
    profile = hermes.profile(context.partition_key)
    settings = store.settings(profile)
    keywords = privacy.keywords_for_step(hermes.path())
    with _opened_store(settings.db_path, create=True) as conn:
        report = write_sync(
            conn,
            ledger_diff,
            extracted_facts,
            settings=settings,
            removal_policy=store.removal(),
            privacy=(keywords, privacy.private_policy()),
        )
    if report.removed:
        context.log.info(f"{report.removed} entries left the files; policy {store.removal()!r} "
                         "applied to their facts")
    return dg.MaterializeResult(
        metadata={
            "added": float(report.added),
            "updated": float(report.updated),
            "unchanged": float(report.unchanged),
            "removed": float(report.removed),
            "compacted": float(report.compacted),
            "retired_facts": float(report.retired_facts),
            "deleted_facts": float(report.deleted_facts),
            "quarantined": float(report.quarantined),
            "tagged_private": float(report.tagged_private),
            "facts_total": float(report.facts_total),
            "wrote": report.wrote,
            "removal_policy": store.removal(),
            "store": dg.MetadataValue.path(str(settings.db_path)),
        }
    )


def privacy_keywords(hermes: HermesHomeResource, privacy: PrivacyResource) -> dg.ObserveResult:
    """The user's private keyword list (one term per line, `#` comments, `re:` regexes).

    Its data version is the file's SHA-256: a changed list makes `privacy_tags` stale everywhere.
    Its terms are never shown, only their count and the hash.
    """
    keywords = privacy.keywords_for_step(hermes.path())
    return dg.ObserveResult(
        data_version=dg.DataVersion(keywords.sha256),
        metadata={"sha256": keywords.sha256, "terms": float(keywords.terms), "path": dg.MetadataValue.path(str(keywords.path))},
    )


# Observable source assets are beta in Dagster 1.13 (pinned here); the warning says nothing new.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.BetaWarning)
    privacy_keywords = dg.observable_source_asset(
        group_name="privacy", description=privacy_keywords.__doc__, tags={"dagster/kind/text": ""}
    )(privacy_keywords)


@dg.asset(
    partitions_def=hermes_profiles,
    group_name="privacy",
    kinds={"sqlite"},
    deps=[fact_store, privacy_keywords],
)
def privacy_tags(
    context: dg.AssetExecutionContext,
    hermes: HermesHomeResource,
    store: FactStoreResource,
    privacy: PrivacyResource,
) -> dg.MaterializeResult:
    """Every fact of the store re-checked against the keyword list and the built-in detectors.

    A match gets the `private-person` tag and a single `private-person` entity link (probing a
    name never surfaces it); a fact that stops matching loses both; tag variants are folded.
    Metadata holds counts per detector kind and the list's hash, never a term or a match.
    """
    profile = hermes.profile(context.partition_key)
    settings = store.settings(profile)
    keywords = privacy.keywords_for_step(hermes.path())
    with _opened_store(settings.db_path, create=True) as conn:
        report = retag_store(conn, keywords, settings, policy=privacy.private_policy())
    metadata = {
        "facts": float(report.facts),
        "private_facts": float(report.private),
        "tagged": float(report.tagged),
        "untagged": float(report.untagged),
        "tag_variants_normalised": float(report.normalised),
        "hidden": float(report.hidden),
        "keyword_list_sha256": keywords.sha256,
        "keyword_terms": float(keywords.terms),
        "policy": privacy.private_policy(),
    }
    metadata.update({f"matched_{kind}": float(count) for kind, count in sorted(report.reasons.items())})
    return dg.MaterializeResult(metadata=metadata)


@dg.asset(
    partitions_def=hermes_profiles,
    group_name="privacy",
    kinds={"sqlite"},
    deps=[privacy_tags],
)
def fts_index(context: dg.AssetExecutionContext, hermes: HermesHomeResource, store: FactStoreResource) -> dg.MaterializeResult:
    """Holographic's `facts_fts` verified (integrity-check, one row per fact, a MATCH per sampled
    fact) and rebuilt only when off; the pipeline's trigram index `memory_pipeline_fts`, which
    finds Chinese inside a sentence, brought in step with the facts. Metadata counts the HRR
    vectors per storage dialect (legacy float64, HRR1 float32, malformed, missing) and names the
    dialect the store is written in."""
    profile = hermes.profile(context.partition_key)
    settings = store.settings(profile)
    with _opened_store(settings.db_path, create=True) as conn:
        before = holographic_fts_health(conn)
        if not before.healthy:
            context.log.warning(
                f"facts_fts out of step ({before.integrity}, "
                f"{before.indexed} indexed for {before.facts} facts, {before.probe_misses} probe misses): rebuilding"
            )
            rebuild_holographic_fts(conn)
        after = holographic_fts_health(conn) if not before.healthy else before
        synced = sync_search_index(conn)
        vectors = vector_counts(conn, settings.hrr_dim)
        dialect = store_format(conn, settings.hrr_dim)
    return dg.MaterializeResult(
        metadata={
            # Per dialect, so the UI plots a store's migration from legacy float64 to HRR1.
            **{f"{kind}_vectors": float(n) for kind, n in vectors.items()},
            "vector_dialect": dialect.value,
            "facts_fts_healthy_before": before.healthy,
            "facts_fts_rebuilt": not before.healthy,
            "facts_fts_healthy": after.healthy,
            "facts_fts_rows": float(after.indexed),
            "facts": float(after.facts),
            "probe_misses": float(after.probe_misses),
            "search_index_added": float(synced.added),
            "search_index_updated": float(synced.updated),
            "search_index_removed": float(synced.removed),
        }
    )


@dg.asset(
    partitions_def=hermes_profiles,
    group_name="audit",
    kinds={"duckdb"},
    deps=[fts_index],
)
def audit_report(
    context: dg.AssetExecutionContext,
    hermes: HermesHomeResource,
    store: FactStoreResource,
    privacy: PrivacyResource,
) -> dg.MaterializeResult:
    """The six cross-layer audits and the extra checks for the profile, as a Markdown and a JSON
    report under the pipeline's data directory and rows of the DuckDB `audit_history` table.
    Counts and ids only: no entry, fact or keyword text."""
    with profile_audit(context.partition_key, hermes, store, privacy) as audit:
        results = audit.run_all()
    data_dir = pipeline_data_dir(hermes.path())
    markdown_path, json_path = write_reports(data_dir, context.partition_key, context.run.run_id, results)
    errors = failing_errors(results)
    return dg.MaterializeResult(
        metadata={
            "checks": float(len(results)),
            "passed": float(sum(r.passed for r in results)),
            "error_failures": float(len(errors)),
            "warn_failures": float(sum(not r.passed for r in results) - len(errors)),
            "failing": ", ".join(r.name for r in results if not r.passed) or "none",
            "report": dg.MetadataValue.path(str(markdown_path)),
            "report_json": dg.MetadataValue.path(str(json_path)),
            "history": dg.MetadataValue.path(str(history_path(data_dir))),
        }
    )
