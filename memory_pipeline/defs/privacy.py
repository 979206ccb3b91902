"""The `privacy` stage: the keyword list observed, and every fact re-tagged against it and the
detectors."""

import dagster as dg

from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.resources import FactStoreResource, HermesHomeResource, PrivacyResource
from memory_pipeline.defs.sync import fact_store
from memory_pipeline.lib.privacy.matching import KeywordList
from memory_pipeline.lib.privacy.tagging import retag_store


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
