"""The `privacy` stage: the keyword list observed, every fact re-tagged against it and the
detectors, and the search indexes brought in step with the tagged facts."""

import dagster as dg

from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.resources import FactStoreResource, HermesHomeResource, PrivacyResource
from memory_pipeline.defs.sync import fact_store
from memory_pipeline.lib.privacy.matching import KeywordList
from memory_pipeline.lib.privacy.tagging import retag_store
from memory_pipeline.lib.store.search_index import holographic_fts_health, rebuild_holographic_fts, sync_search_index
from memory_pipeline.lib.store.vector_codec import store_format, vector_counts


def keyword_list_metadata(keywords: KeywordList) -> dict:
    """What an observation of the list says of it: its hash, its number of terms and its path
    (never a term)."""
    return {"sha256": keywords.sha256, "terms": float(keywords.terms), "path": dg.MetadataValue.path(str(keywords.path))}


# Observable source assets take their UI description from the decorator, not the docstring.
@dg.observable_source_asset(
    group_name="privacy",
    tags={"dagster/kind/text": ""},
    description=(
        "The user's private keyword list (one term per line, `#` comments, `re:` regexes).\n"
        "\n"
        "Its data version is the file's SHA-256: a changed list makes `privacy_tags` stale everywhere.\n"
        "Its terms are never shown, only their count and the hash."
    ),
)
def privacy_keywords(hermes: HermesHomeResource, privacy: PrivacyResource) -> dg.ObserveResult:
    """Observes the keyword list: its data version is the list's SHA-256 (see the description above)."""
    keywords = privacy.keywords_for_step(hermes.path())
    return dg.ObserveResult(
        data_version=dg.DataVersion(keywords.sha256),
        metadata=keyword_list_metadata(keywords),
    )


_IDS_SHOWN = 100


def _ids(fact_ids: list[int]) -> str:
    shown = ",".join(map(str, fact_ids[:_IDS_SHOWN]))
    return shown + (f",… ({len(fact_ids)} in all)" if len(fact_ids) > _IDS_SHOWN else "")


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
    with store.connected(settings, create=True) as conn:
        report = retag_store(conn, keywords, settings, policy=privacy.private_policy(), watermarks=store.watermarks)
    metadata = {
        "facts": float(report.facts),
        "private_facts": float(report.private),
        "tagged": float(report.tagged),
        "untagged": float(report.untagged),
        # Which facts changed, by id (never their text): what a re-tag tells the user it did.
        "newly_private_ids": _ids(report.newly_private),
        "no_longer_private_ids": _ids(report.no_longer_private),
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
    with store.connected(settings, create=True) as conn:
        before = holographic_fts_health(conn)
        if not before.healthy:
            context.log.warning(
                f"facts_fts out of step ({before.integrity}, "
                f"{before.indexed} indexed for {before.facts} facts, {before.probe_misses} probe misses): rebuilding"
            )
            rebuild_holographic_fts(conn)
        after = holographic_fts_health(conn) if not before.healthy else before
        synced = sync_search_index(conn, watermarks=store.watermarks)
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
