"""The cross-layer audits as Dagster asset checks, each on the asset whose invariant it guards."""

import warnings
from contextlib import contextmanager

import dagster as dg

from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.resources import FactStoreResource, HermesHomeResource, PrivacyResource
from memory_pipeline.lib.audit.checks import CHECK_REGISTRY, CHECK_SPECS, ERROR, AuditResult
from memory_pipeline.lib.audit.engine import Audit, AuditInputs
from memory_pipeline.lib.hermes.profiles import pipeline_data_dir, read_profile
from memory_pipeline.lib.store.database import connect


@contextmanager
def profile_audit(
    profile_name: str, hermes: HermesHomeResource, store: FactStoreResource, privacy: PrivacyResource, names=None
):
    """One profile's three layers, for the checks named (all when None): only what they need is read."""
    profile = hermes.profile(profile_name)
    settings = store.settings(profile)
    # Only privacy_coverage reads the keyword list: a list that cannot be loaded is its failure
    # (and fact_store's), never the ledger check's.
    keywords = privacy.keywords_for_step(hermes.path()) if names is None or "privacy_coverage" in names else None
    conn = connect(settings.db_path, create=False) if settings.db_path.exists() else None
    try:
        inputs = AuditInputs(read_profile(profile), conn, settings, keywords,
                             data_dir=pipeline_data_dir(hermes.path()), profile=profile.name)
        with Audit(inputs, names) as audit:
            yield audit
    finally:
        if conn is not None:
            conn.close()


def _result(key: dg.AssetCheckKey, result: AuditResult) -> dg.AssetCheckResult:
    severity = dg.AssetCheckSeverity.ERROR if result.severity == ERROR else dg.AssetCheckSeverity.WARN
    return dg.AssetCheckResult(
        asset_key=key.asset_key, check_name=key.name, passed=result.passed, severity=severity,
        description=result.detail, metadata=result.metrics,
    )


# Partitioned asset checks are a preview feature in Dagster 1.13 (pinned here); the warning says nothing new.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.PreviewWarning)

    _BLOCKING = CHECK_SPECS["ledger_integrity"]

    @dg.asset_check(
        asset=dg.AssetKey(_BLOCKING.asset),
        name=_BLOCKING.name,
        description=_BLOCKING.description,
        blocking=_BLOCKING.blocking,
        partitions_def=hermes_profiles,
    )
    def ledger_integrity(
        context: dg.AssetCheckExecutionContext, hermes: HermesHomeResource, store: FactStoreResource, privacy: PrivacyResource
    ) -> dg.AssetCheckResult:
        with profile_audit(context.partition_key, hermes, store, privacy, [_BLOCKING.name]) as audit:
            return _result(dg.AssetCheckKey(dg.AssetKey(_BLOCKING.asset), _BLOCKING.name), audit.run(_BLOCKING.name))

    # The other audits share one load of the three layers: one step, after the last stage. Every
    # check of the registry that is neither the blocking one nor judged inside its asset's step.
    AUDIT_SPECS = [
        dg.AssetCheckSpec(spec.name, asset=dg.AssetKey(spec.asset), description=spec.description, partitions_def=hermes_profiles)
        for spec in CHECK_REGISTRY if not (spec.blocking or spec.in_run)
    ]

    @dg.multi_asset_check(specs=AUDIT_SPECS, can_subset=True, name="memory_audits")
    def memory_audits(
        context: dg.AssetCheckExecutionContext, hermes: HermesHomeResource, store: FactStoreResource, privacy: PrivacyResource
    ):
        """The cross-layer audits (all but the blocking ledger check), on one load of the entries, the ledger and the facts."""
        keys = sorted(context.selected_asset_check_keys, key=lambda k: k.name)
        with profile_audit(context.partition_key, hermes, store, privacy, [k.name for k in keys]) as audit:
            results = audit.run_many(k.name for k in keys)
        for key, result in zip(keys, results, strict=True):
            yield _result(key, result)


AUDIT_CHECKS = [ledger_integrity, memory_audits]
