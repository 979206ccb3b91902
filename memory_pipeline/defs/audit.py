"""The `audit` stage: every check of the registry on one load of a profile's three layers. The
`audit_report` asset runs them all and writes the report; the asset checks of the same run take
their results from it, each on the asset whose invariant it guards. Only the blocking ledger
check runs on its own, before any write."""

from contextlib import contextmanager

import dagster as dg

from memory_pipeline.defs.checks import BLOCKING, CHECK_ASSETS, IN_ASSET_STEP, per_profile
from memory_pipeline.defs.embeddings import fact_embeddings
from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.resources import FactStoreResource, HermesHomeResource, PrivacyResource
from memory_pipeline.defs.search import fts_index
from memory_pipeline.lib.audit.checks import CHECK_REGISTRY, CHECK_SPECS, ERROR, AuditResult, AuditRun
from memory_pipeline.lib.audit.engine import Audit
from memory_pipeline.lib.audit.layers import AuditInputs
from memory_pipeline.lib.audit.report import changed_during_run, failing_errors, write_reports
from memory_pipeline.lib.hermes.profiles import read_profile
from memory_pipeline.lib.history import history_path
from memory_pipeline.runs.stage_reports import AuditReport


@contextmanager
def profile_audit(profile_name: str, hermes: HermesHomeResource, store: FactStoreResource, privacy: PrivacyResource, names=None):
    """One profile's three layers, for the checks named (all when None): only what they need is
    read. The files are read as they are now (`moved_since_read` says whether the run read them so)."""
    here = hermes.context(profile_name)
    profile = here.profile
    readings = read_profile(profile)
    settings = store.settings(here)
    # Only privacy_coverage reads the keyword list: a list that cannot be loaded is its failure
    # (and fact_store's), never the ledger check's.
    judge = privacy.judge_for_step(here) if names is None or "privacy_coverage" in names else None
    with store.opened_if_exists(settings) as fact_store:
        inputs = AuditInputs(
            readings,
            fact_store.reads if fact_store else None,
            settings,
            judge,
            data_dir=hermes.data_dir(),
            profile=profile.name,
            profile_home=profile.home,
            cap_target=profile.cap_target(hermes.cap_target),
            owner=here.owner,
        )
        with Audit(inputs, names) as audit:
            yield audit


@dg.asset(
    partitions_def=hermes_profiles,
    group_name="audit",
    kinds={"duckdb"},
    deps=[fts_index, fact_embeddings],
    io_manager_key="audit_runs",
)
def audit_report(
    context: dg.AssetExecutionContext,
    hermes: HermesHomeResource,
    store: FactStoreResource,
    privacy: PrivacyResource,
) -> dg.Output[AuditRun]:
    """The six cross-layer audits and the extra checks for the profile, on one load of its layers,
    as a Markdown and a JSON report under the pipeline's data directory and rows of the DuckDB
    `audit_history` table. The asset checks of the same run show these results. Counts and ids
    only: no entry, fact or keyword text."""
    with profile_audit(context.partition_key, hermes, store, privacy) as audit:
        results = audit.run_all()
        loads = audit.loads
        files_moved = hermes.moved_since_read(context.partition_key, audit.layers.inputs.readings)
    chain = store.watermarks
    if audit.watermark is not None:
        chain.saw(audit.watermark)
    # Another writer (Hermes, most often) wrote while the run worked: what it wrote is the next sync's.
    moved = [what for what, changed in (("the store", chain.broken), ("a memory file", files_moved)) if changed]
    if moved:
        context.log.warning(f"{' and '.join(moved)} changed during the run; the next sync picks the change up")
        results = changed_during_run(results, " and ".join(moved))
    data_dir = hermes.data_dir()
    markdown_path, json_path = write_reports(data_dir, context.partition_key, context.run.run_id, results)
    errors = failing_errors(results)
    return dg.Output(
        AuditRun(context.run.run_id, tuple(results), loads),
        metadata={
            "checks": float(len(results)),
            "passed": float(sum(r.passed for r in results)),
            "error_failures": float(len(errors)),
            "warn_failures": float(sum(not r.passed for r in results) - len(errors)),
            "failing": ", ".join(r.name for r in results if not r.passed) or "none",
            "layer_loads": float(loads),
            # What a skipped sync compares the store with: a digest, never content.
            **AuditReport(store_in_step=chain.in_step, store_watermark=chain.last or "").metadata(),
            "report": dg.MetadataValue.path(str(markdown_path)),
            "report_json": dg.MetadataValue.path(str(json_path)),
            "history": dg.MetadataValue.path(str(history_path(data_dir))),
        },
    )


def _result(key: dg.AssetCheckKey, result: AuditResult, profile: str) -> dg.AssetCheckResult:
    severity = dg.AssetCheckSeverity.ERROR if result.severity == ERROR else dg.AssetCheckSeverity.WARN
    return dg.AssetCheckResult(
        asset_key=key.asset_key,
        check_name=key.name,
        passed=result.passed,
        severity=severity,
        description=result.detail,
        metadata=per_profile(profile, result.metrics),
    )


(_BLOCKING_NAME,) = BLOCKING
_BLOCKING = CHECK_SPECS[_BLOCKING_NAME]
_BLOCKING_ASSET = dg.AssetKey(CHECK_ASSETS[_BLOCKING_NAME])


@dg.asset_check(
    asset=_BLOCKING_ASSET,
    name=_BLOCKING.name,
    description=_BLOCKING.description,
    blocking=True,
    partitions_def=hermes_profiles,
)
def ledger_integrity(
    context: dg.AssetCheckExecutionContext, hermes: HermesHomeResource, store: FactStoreResource, privacy: PrivacyResource
) -> dg.AssetCheckResult:
    with profile_audit(context.partition_key, hermes, store, privacy, [_BLOCKING.name]) as audit:
        return _result(dg.AssetCheckKey(_BLOCKING_ASSET, _BLOCKING.name), audit.run(_BLOCKING.name), context.partition_key)


# Every check of the registry that is neither the blocking one nor judged inside its asset's
# step; each reads `audit_report`, whose results it shows.
AUDIT_SPECS = [
    dg.AssetCheckSpec(
        spec.name,
        asset=dg.AssetKey(CHECK_ASSETS[spec.name]),
        description=spec.description,
        partitions_def=hermes_profiles,
        additional_deps=[audit_report],
    )
    for spec in CHECK_REGISTRY
    if spec.name not in BLOCKING | IN_ASSET_STEP
]


@dg.multi_asset_check(specs=AUDIT_SPECS, can_subset=True, name="memory_audits", ins={"audit_report": dg.AssetIn(audit_report.key)})
def memory_audits(
    context: dg.AssetCheckExecutionContext,
    audit_report: AuditRun | None,
    hermes: HermesHomeResource,
    store: FactStoreResource,
    privacy: PrivacyResource,
):
    """The cross-layer audits (all but the blocking ledger check): the results `audit_report`
    got in this run, or, when the checks run without it, a fresh audit of the layers."""
    keys = sorted(context.selected_asset_check_keys, key=lambda k: k.name)
    if audit_report is not None and audit_report.run_id == context.run.run_id:
        results = [audit_report.result(k.name) for k in keys]
    else:  # no report in this run (a subset of the stages): earlier results would be stale
        with profile_audit(context.partition_key, hermes, store, privacy, [k.name for k in keys]) as audit:
            results = audit.run_many(k.name for k in keys)
    for key, result in zip(keys, results, strict=True):
        yield _result(key, result, context.partition_key)


AUDIT_CHECKS = [ledger_integrity, memory_audits]
