"""The privacy tags against the keyword list and the built-in detectors (`privacy_coverage`), and
the facts withheld as unsafe instructions (`memory_safe`)."""

from __future__ import annotations

from memory_pipeline.lib.audit.checks import ERROR, WARN, AuditResult
from memory_pipeline.lib.audit.loaded_layers import LoadedLayers
from memory_pipeline.lib.choices import PrivacyPolicy
from memory_pipeline.lib.privacy.detectors import DETECTOR_GATE_RE2
from memory_pipeline.lib.privacy.folding import FOLDED_RUNS_RE2, foldable_class_re2
from memory_pipeline.lib.privacy.matching import normalise_tags
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.schema.database import PRIVATE_TAG


def _private_tagging(layers: LoadedLayers) -> tuple[dict[int, bool], int, int]:
    """Which facts carry `private-person` (after folding variants), how many variants, how many
    tagged facts prefetch still sees. Only facts whose tags mention `person` can hold either."""
    rows = layers.db.execute("SELECT fact_id, person_tags, person_trust FROM loaded_facts WHERE person_tags IS NOT NULL").fetchall()
    tagged, variants, visible = {}, 0, 0
    for fact_id, tags, trust in rows:
        normal, folded = normalise_tags(tags)
        variants += folded
        tagged[fact_id] = PRIVATE_TAG in normal.split(",")
        visible += tagged[fact_id] and trust >= layers.inputs.settings.min_trust
    return tagged, variants, visible


def _untagged_matches(layers: LoadedLayers, tagged: dict[int, bool]) -> int:
    """How many untagged facts the keyword list or a detector matches. One vectorised RE2 pass in
    DuckDB (the detectors' gate, the list itself, whose patterns are RE2 already, and any text the
    fold would change) leaves few candidates; the code that tags confirms them."""
    judge, db = layers.inputs.privacy_judge, layers.db
    # A text holding a character the fold changes (full-width, look-alike, invisible) is looked at
    # in Python whatever the gates say: they read it unfolded.
    conditions = ["regexp_matches(content, ?)", "regexp_matches(content, ?)", "regexp_matches(content, ?)"]
    data_dir = layers.inputs.data_dir
    params = [DETECTOR_GATE_RE2, foldable_class_re2(data_dir / "cache" if data_dir else None), FOLDED_RUNS_RE2]
    for prefilter in judge.keywords.re2_prefilters:
        conditions.append("regexp_matches(content, ?, 'i')")
        params.append(prefilter)
    candidates = db.execute(f"SELECT fact_id, content FROM loaded_facts WHERE {' OR '.join(conditions)}", params).fetchall()
    return sum(1 for fact_id, content in candidates if not tagged.get(fact_id) and bool(judge.reasons(content)))


def privacy_coverage(layers: LoadedLayers) -> AuditResult:
    inputs = layers.inputs
    tagged, variants, visible = _private_tagging(layers)
    untagged = _untagged_matches(layers, tagged)  # a tagged fact is covered, whatever it holds
    private = sum(tagged.values())
    hiding = inputs.privacy_judge.policy is PrivacyPolicy.HIDE
    passed = untagged == 0 and variants == 0 and not (hiding and visible)
    return AuditResult(
        "privacy_coverage",
        passed,
        ERROR,
        f"{private} facts tagged `{PRIVATE_TAG}`, {untagged} untagged facts match the keyword list or a detector; "
        f"{variants} tag variants; {visible} private facts visible to prefetch (trust ≥ {inputs.settings.min_trust}) "
        f"under policy `{inputs.privacy_judge.policy.value}`"
        + ("" if hiding else " (the user's choice: `sync --privacy-policy hide` hides them)")
        + (
            f"; Holographic's min_trust_threshold ({inputs.settings.min_trust:g}) leaves no trust below it, so Hermes' own "
            "prefetch serves every private fact: set plugins.hermes-memory-store.min_trust_threshold above 0.1 in the "
            "profile's config.yaml (Holographic's default is 0.3)"
            if hiding and inputs.settings.withheld_trust >= inputs.settings.min_trust
            else ""
        ),
        {
            "private_facts": float(private),
            "untagged_private": float(untagged),
            "tag_variants": float(variants),
            "private_visible_to_prefetch": float(visible),
        },
    )


def unsafe_facts(store: FactStore) -> list[tuple[int, str | None]]:
    """(fact id, the entry it came from, if any) of every fact withheld as unsafe instructions."""
    return store.reads.unsafe_fact_entries()


def memory_safe(layers: LoadedLayers) -> AuditResult:
    found = layers.store_side("memory_safe") if layers.inputs.reads is not None else []
    named = ", ".join(f"#{fact_id}" + (f" ({entry})" if entry else "") for fact_id, entry in found[:20])
    return AuditResult(
        "memory_safe",
        not found,
        WARN,
        f"{len(found)} facts withheld from the agent as unsafe instructions (steering, exfiltration, credential paths or hidden "
        f"characters): {named or 'none'}" + (f", … ({len(found)} in all)" if len(found) > 20 else ""),
        {"unsafe_facts": float(len(found))},
    )


RULES = {"privacy_coverage": privacy_coverage, "memory_safe": memory_safe}
STORE_SIDE = {"memory_safe": unsafe_facts}
