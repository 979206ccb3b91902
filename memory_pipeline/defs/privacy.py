"""The `privacy` stage: the keyword list observed, and every fact re-tagged against it and the
detectors."""

from typing import Any

import dagster as dg

from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.resources import FactStoreResource, HermesHomeResource, PrivacyResource
from memory_pipeline.defs.step_order import IN_STEP_FIRST
from memory_pipeline.defs.sync import fact_store
from memory_pipeline.lib.privacy.choice import judged, lists_digest
from memory_pipeline.lib.privacy.matching import KeywordList
from memory_pipeline.lib.privacy.tagging import retag_store
from memory_pipeline.runs.stage_reports import PrivacyReport, shown_ids


def keyword_list_metadata(lists: dict[str, KeywordList], key: bytes) -> dict:
    """What an observation of the lists says of them: their combined keyed digest, how many
    distinct lists and terms, and each profile's list's path (never a term, nor a plain hash)."""
    distinct = {lst.sha256: lst for lst in lists.values()}
    return {
        "digest": lists_digest(lists, key),
        "lists": float(len(distinct)),
        "terms": float(sum(lst.terms for lst in distinct.values())),
        **{f"path_{name}": dg.MetadataValue.path(str(lst.path)) for name, lst in sorted(lists.items()) if lst.path is not None},
    }


# Observable source assets take their UI description from the decorator, not the docstring.
@dg.observable_source_asset(
    group_name="privacy",
    tags={"dagster/kind/text": ""},
    description=(
        "The user's private keyword lists, one per profile (one term per line, `#` comments, `re:` regexes).\n"
        "\n"
        "Its data version is the lists' combined digest, keyed with a secret of the home's:\n"
        "a changed list makes `privacy_tags` stale everywhere.\n"
        "Their terms are never shown, only their count and that digest."
    ),
)
def privacy_keywords(hermes: HermesHomeResource, privacy: PrivacyResource) -> dg.ObserveResult:
    """Observes the keyword lists: its data version is their combined keyed digest (see the description above)."""
    lists, key = privacy.lists(hermes.path()), hermes.digest_key()
    return dg.ObserveResult(data_version=dg.DataVersion(lists_digest(lists, key)), metadata=keyword_list_metadata(lists, key))


@dg.asset(
    partitions_def=hermes_profiles,
    op_tags=IN_STEP_FIRST,
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
    """Every fact of the store judged against the keyword list, the built-in detectors and the
    unsafe-instruction scan: one verdict per fact for its current text, the only thing that lets
    the agent's MCP server and plugin hand a fact out.

    A private fact gets the `private-person` tag and a single `private-person` entity link (probing
    a name never surfaces it) and, under policy `hide` (the default), trust below Holographic's
    prefetch threshold; an unsafe one is tagged `unsafe-instructions` and kept below it too; a fact
    that stops matching gets its tag, links and trust back; tag variants are folded. Metadata holds
    counts per detector kind and the list's hash, never a term or a match.
    """
    here = hermes.context(context.partition_key)
    profile = here.profile
    settings = store.settings(here)
    judge = privacy.judge_for_step(here)
    keywords = judge.keywords
    with store.opened(settings) as fact_store:
        report = retag_store(fact_store, judge, watermarks=store.watermarks)
    judged(hermes.data_dir(), profile.name, keywords)
    metadata: dict[str, Any] = {
        "facts": float(report.facts),
        **PrivacyReport(
            private_facts=report.private,
            tagged=report.tagged,
            untagged=report.untagged,
            # Which facts changed, by id (never their text): what a re-tag tells the user it did.
            newly_private_ids=tuple(report.newly_private),
            no_longer_private_ids=tuple(report.no_longer_private),
            keyword_list_digest=keywords.sha256,  # keyed with the home's secret: a plain hash of a short list is an oracle
        ).metadata(),
        "tag_variants_normalised": float(report.normalised),
        "hidden": float(report.hidden),
        "unsafe_facts": float(len(report.unsafe)),
        "unsafe_ids": shown_ids(report.unsafe),
        "keyword_terms": float(keywords.terms),
        "detectors": judge.detectors,
        "policy": judge.policy.value,
    }
    metadata.update({f"matched_{kind}": float(count) for kind, count in sorted(report.reasons.items())})
    return dg.MaterializeResult(metadata=metadata)
