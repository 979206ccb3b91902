"""The privacy tags against the keyword list and the built-in detectors: `privacy_coverage`."""

from __future__ import annotations

from memory_pipeline.lib.audit.checks import ERROR, AuditResult
from memory_pipeline.lib.audit.loaded import LoadedLayers
from memory_pipeline.lib.privacy.matching import DETECTOR_GATE_RE2, PRIVATE_TAG, normalise_tags, private_reasons


def _private_tagging(layers: LoadedLayers) -> tuple[dict[int, bool], int, int]:
    """Which facts carry `private-person` (after folding variants), how many variants, how many
    tagged facts prefetch still sees. Only facts whose tags mention `person` can hold either."""
    rows = layers.db.execute("SELECT fact_id, person_tags, person_trust FROM facts WHERE person_tags IS NOT NULL").fetchall()
    tagged, variants, visible = {}, 0, 0
    for fact_id, tags, trust in rows:
        normal, folded = normalise_tags(tags)
        variants += folded
        tagged[fact_id] = PRIVATE_TAG in normal.split(",")
        visible += tagged[fact_id] and trust >= layers.inputs.settings.min_trust
    return tagged, variants, visible


def _untagged_matches(layers: LoadedLayers, tagged: dict[int, bool]) -> int:
    """How many untagged facts the keyword list or a detector matches. One vectorised RE2 pass in
    DuckDB (the detectors' gate, and the list itself: its patterns are RE2 already) leaves few
    candidates; the code that tags confirms them."""
    keywords, db = layers.inputs.keywords, layers.db
    conditions, params = ["regexp_matches(content, ?)"], [DETECTOR_GATE_RE2]
    for prefilter in keywords.re2_prefilters:
        conditions.append("regexp_matches(content, ?, 'i')")
        params.append(prefilter)
    candidates = db.execute(f"SELECT fact_id, content FROM facts WHERE {' OR '.join(conditions)}", params).fetchall()
    return sum(1 for fact_id, content in candidates if not tagged.get(fact_id) and private_reasons(content, keywords))


def privacy_coverage(layers: LoadedLayers) -> AuditResult:
    inputs = layers.inputs
    tagged, variants, visible = _private_tagging(layers)
    untagged = _untagged_matches(layers, tagged)  # a tagged fact is covered, whatever it holds
    private = sum(tagged.values())
    passed = untagged == 0 and variants == 0
    return AuditResult(
        "privacy_coverage",
        passed,
        ERROR,
        f"{private} facts tagged `{PRIVATE_TAG}`, {untagged} untagged facts match the keyword list or a detector; "
        f"{variants} tag variants; {visible} private facts visible to prefetch (trust ≥ {inputs.settings.min_trust})",
        {
            "private_facts": float(private),
            "untagged_private": float(untagged),
            "tag_variants": float(variants),
            "private_visible_to_prefetch": float(visible),
        },
    )


RULES = {"privacy_coverage": privacy_coverage}
