"""The `extract` stage: facts for the new and changed entries of the diff, from the rules or a
local Ollama model, with the two checks that judge the calls of the run that just made them."""

import dagster as dg

from memory_pipeline.defs.checks import CHECK_ASSETS, IN_ASSET_STEP, per_profile
from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.resources import ExtractorResource, FactStoreResource, HermesHomeResource
from memory_pipeline.defs.step_order import IN_STEP_FIRST
from memory_pipeline.lib.audit.checks import CHECK_REGISTRY
from memory_pipeline.lib.audit.extraction_health import extraction_checks
from memory_pipeline.lib.audit.metrics import latency_summary
from memory_pipeline.lib.extraction import ExtractionOutcome, entries_to_extract
from memory_pipeline.lib.extraction.choice import ExtractorUnavailable
from memory_pipeline.lib.extraction.history import record_calls
from memory_pipeline.lib.sync.stages import EntryDiff, Extraction, Provenance
from memory_pipeline.runs.stage_reports import ExtractReport

# Emitted by `extracted_facts` itself (`IN_ASSET_STEP`).
EXTRACTION_CHECK_SPECS = [
    dg.AssetCheckSpec(spec.name, asset=CHECK_ASSETS[spec.name], partitions_def=hermes_profiles, description=spec.description)
    for spec in CHECK_REGISTRY
    if spec.name in IN_ASSET_STEP
]


@dg.asset(
    partitions_def=hermes_profiles,
    op_tags=IN_STEP_FIRST,
    group_name="extract",
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
    settings = store.settings(hermes.context(context.partition_key))
    with store.opened_if_exists(settings) as fact_store:
        work = entries_to_extract(ledger_diff.frame, fact_store.reads if fact_store else None)
    # With nothing to extract no server is even asked: the configured mode stands as the name.
    outcome = ExtractionOutcome()
    name, model, prompt_version, reason = extractor.mode().value, "", "", "nothing new or changed to extract"
    if work:
        try:
            choice = extractor.choose()
        except (ExtractorUnavailable, ValueError) as exc:
            raise dg.Failure(description=str(exc)) from None
        chosen = choice.extractor
        name, model, prompt_version, reason = chosen.name, chosen.model, chosen.prompt_version, choice.reason
        outcome = chosen.extract(work)
    if outcome.calls:
        record_calls(hermes.data_dir(), context.run.run_id, context.partition_key, name, model, outcome.calls)
    extraction = Extraction.of(outcome, Provenance(name, model, prompt_version))
    frame = extraction.facts
    context.log.info(
        f"{name} extractor ({reason}): {len(work)} entries, {len(frame)} facts, {len(outcome.calls)} calls, "
        f"{len(outcome.quarantine)} quarantined"
    )
    yield dg.Output(
        extraction,
        metadata={
            **ExtractReport(extractor=name, extractor_reason=reason, model=model, llm_calls=len(outcome.calls)).metadata(),
            "entries_extracted": float(len(work)),
            "facts": float(len(frame)),
            "json_failures": float(outcome.json_failures),
            "transport_failures": float(outcome.transport_failures),
            "retries": float(outcome.retries),
            "quarantined": float(len(outcome.quarantine)),
            "prompt_tokens": float(outcome.prompt_tokens),
            "eval_tokens": float(outcome.eval_tokens),
            **latency_summary("fact_latency", list(frame["latency_s"])),
            **latency_summary("call_latency", outcome.call_latencies_s),
        },
    )
    for result in extraction_checks(
        outcome.calls, latency_bound_s=extractor.latency_p95_bound_s, failure_rate_bound=extractor.json_failure_rate_bound
    ):
        yield dg.AssetCheckResult(
            check_name=result.name,
            passed=result.passed,
            severity=dg.AssetCheckSeverity.WARN,
            description=result.detail,
            metadata=per_profile(context.partition_key, result.metrics),
        )
