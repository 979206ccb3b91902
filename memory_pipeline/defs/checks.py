"""The Dagster side of the checks in `lib/audit/checks.py`: the asset whose invariant each guards
(where the UI shows it), the one that blocks the run before any write, and those judged by their
asset's own step rather than the audit's."""

from memory_pipeline.lib.audit.checks import CHECK_SPECS

CHECK_ASSETS = {
    "layer_counts": "fact_store",
    "hashes_fresh": "fact_store",
    "ledger_integrity": "ledger_diff",
    "fact_links": "fact_store",
    "mirrors_adopted": "fact_store",
    "facts_match_entries": "fact_store",
    "index_consistency": "fts_index",
    "embedding_coverage": "fact_embeddings",
    "entries_distinct": "fact_embeddings",
    "privacy_coverage": "privacy_tags",
    "memory_safe": "privacy_tags",
    "cap_usage": "parsed_entries",
    "format_parity": "parsed_entries",
    "pointers_resolve": "fact_store",
    "quarantine_empty": "fact_store",
    "extraction_latency": "extracted_facts",
    "extraction_json_valid": "extracted_facts",
}
# A corrupt ledger stops the run before any write.
BLOCKING = frozenset({"ledger_integrity"})
# Judged by `extracted_facts` itself: they judge the calls of the run that just happened.
IN_ASSET_STEP = frozenset({"extraction_latency", "extraction_json_valid"})

if set(CHECK_ASSETS) != set(CHECK_SPECS):  # a check without its asset (or an asset for no check) fails at import
    raise RuntimeError(f"checks without an asset, or assets without a check: {sorted(set(CHECK_ASSETS) ^ set(CHECK_SPECS))}")


def per_profile(profile: str, metrics: dict[str, float]) -> dict:
    """A check's numbers keyed by the profile they were measured on (`default/entries`), with the
    profile named: a check's history holds every profile's evaluations, and the UI plots each
    metadata key as one series, so each profile's series stays its own."""
    return {"profile": profile, **{f"{profile}/{name}": value for name, value in metrics.items()}}
