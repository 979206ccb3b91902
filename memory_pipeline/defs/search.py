"""The `search` stage: the store's search indexes in step with its tagged facts, Holographic's
`facts_fts` verified (rebuilt when off) and the pipeline's trigram index kept current."""

import dagster as dg

from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.privacy import privacy_tags
from memory_pipeline.defs.resources import FactStoreResource, HermesHomeResource
from memory_pipeline.defs.step_order import IN_STEP_FIRST


@dg.asset(
    partitions_def=hermes_profiles,
    op_tags=IN_STEP_FIRST,
    group_name="search",
    kinds={"sqlite"},
    deps=[privacy_tags],
)
def fts_index(context: dg.AssetExecutionContext, hermes: HermesHomeResource, store: FactStoreResource) -> dg.MaterializeResult:
    """Holographic's `facts_fts` verified (integrity-check, one row per fact, a MATCH per sampled
    fact) and rebuilt only when off; the pipeline's trigram index `memory_pipeline_fts`, which
    finds Chinese inside a sentence, brought in step with the facts. Metadata counts the HRR
    vectors per storage dialect (legacy float64, HRR1 float32, malformed, missing) and names the
    dialect the store is written in."""
    here = hermes.context(context.partition_key)
    settings = store.settings(here)
    with store.opened(settings) as fact_store:
        before = fact_store.index.holographic_fts_health()
        if not before.healthy:
            context.log.warning(
                f"facts_fts out of step ({before.integrity}, "
                f"{before.indexed} indexed for {before.facts} facts, {before.probe_misses} probe misses): rebuilding"
            )
            fact_store.index.rebuild_holographic_fts()
        after = fact_store.index.holographic_fts_health() if not before.healthy else before
        synced = fact_store.index.sync_search_index(watermarks=store.watermarks)
        vectors = fact_store.reads.vector_counts(settings.hrr_dim)
        dialect = fact_store.reads.vector_format(settings.hrr_dim)
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
