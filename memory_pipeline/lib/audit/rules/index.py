"""The search structures against the facts: `index_consistency` (facts_fts in step, every HRR
vector decodable in one of the two dialects, every category bank matching its vectors) and
`embedding_coverage` (recall by meaning's vectors: every shown fact has one, no other fact does)."""

from __future__ import annotations

from memory_pipeline.lib.audit.checks import ERROR, WARN, AuditResult
from memory_pipeline.lib.audit.layers import count
from memory_pipeline.lib.audit.loaded_layers import LoadedLayers
from memory_pipeline.lib.in_hermes.meaning import OFF_MODEL
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.reads.embeddings import Coverage
from memory_pipeline.lib.store.vector_codec import VectorState
from memory_pipeline.lib.store.writes.search_index import HolographicFtsHealth


def index_store_side(store: FactStore) -> tuple[HolographicFtsHealth, dict[str, int]]:
    """facts_fts's health, and per category the HRR1-sized vectors that lack the prefix (they
    decode in no dialect): reading those blobs is the costly part of classifying vectors."""
    false_hrr1 = store.reads.false_hrr1_by_category(store.settings.hrr_dim)
    return store.index.holographic_fts_health(), false_hrr1


def _sql_text(value: object) -> str:
    return "NULL" if value is None else "'" + str(value).replace("'", "''") + "'"


def index_consistency(layers: LoadedLayers) -> AuditResult:
    db, inputs = layers.db, layers.inputs
    if inputs.reads is None:
        return AuditResult("index_consistency", True, ERROR, "no store yet")
    health, false_hrr1 = layers.store_side("index_consistency")
    dim = inputs.settings.hrr_dim
    states = dict(db.execute("SELECT vector_state, count(*) FROM loaded_facts GROUP BY vector_state").fetchall())
    counts = {kind: int(states.get(int(kind), 0)) for kind in VectorState}
    counts[VectorState.HRR1] -= sum(false_hrr1.values())  # HRR1-sized, but without the prefix
    counts[VectorState.MALFORMED] += sum(false_hrr1.values())
    bad_vectors = counts[VectorState.MISSING] + counts[VectorState.MALFORMED]
    # A bank is the bundle of its category's decodable vectors, whichever dialect, at the store's dim.
    false_rows = " UNION ALL ".join(f"SELECT {_sql_text(c)} AS category, {int(n)} AS n" for c, n in false_hrr1.items())
    decodable = (
        f"""SELECT category, sum(n) AS n FROM (SELECT category, count(*) AS n FROM loaded_facts WHERE vector_state > 0
                 GROUP BY category UNION ALL SELECT category, -n FROM ({false_rows})) GROUP BY category HAVING sum(n) > 0"""
        if false_rows
        else "SELECT category, count(*) AS n FROM loaded_facts WHERE vector_state > 0 GROUP BY category"
    )
    bank_off = count(
        db,
        f"""SELECT count(*) FROM (
            SELECT coalesce(b.bank_name, 'cat:' || v.category) AS name FROM banks b
            FULL OUTER JOIN ({decodable}) v
              ON b.bank_name = 'cat:' || v.category
            WHERE b.fact_count IS DISTINCT FROM v.n OR b.dim IS DISTINCT FROM {int(dim)} OR b.vector_state <= 0)""",
    )
    bank_dims = count(db, f"SELECT count(*) FROM banks WHERE dim IS DISTINCT FROM {int(dim)}")
    passed = health.healthy and bad_vectors == 0 and bank_off == 0
    return AuditResult(
        "index_consistency",
        passed,
        ERROR,
        f"facts_fts {health.integrity}, {health.indexed} indexed for "
        f"{health.facts} facts, {health.probe_misses} of {health.probes} probes missed; HRR vectors at dim {dim}: "
        f"{counts[VectorState.LEGACY]} legacy float64, {counts[VectorState.HRR1]} HRR1 float32, "
        f"{counts[VectorState.MALFORMED]} malformed, {counts[VectorState.MISSING]} missing{_missing_cause(counts)}; "
        f"{bank_off} banks off (count, dim or vector), {bank_dims} of them of another dim",
        {
            "fts_rows": float(health.indexed),
            "probe_misses": float(health.probe_misses),
            "bad_vectors": float(bad_vectors),
            "banks_off": float(bank_off),
            "bank_dim_mismatch": float(bank_dims),
            **{f"{kind.name.lower()}_vectors": float(n) for kind, n in counts.items()},
        },
    )


def _missing_cause(counts: dict[VectorState, int]) -> str:
    """Why vectors are missing: Holographic stores a fact without one when NumPy is not in Hermes'
    environment; the next sync or `--repair` adds the one it would have computed."""
    return " (stored so by Hermes without NumPy in its environment: the next sync adds them)" if counts[VectorState.MISSING] else ""


def embedding_store_side(store: FactStore) -> Coverage:
    return store.reads.embedding_coverage()


def embedding_coverage(layers: LoadedLayers) -> AuditResult:
    """Every fact the agent may see has a vector of the model in force for its current text
    (a fact written since the last sync waits for the next: WARN); a vector of a fact changed or
    removed since waits for the next sync to drop it (WARN); no vector exists for a fact that is
    private or unsafe, nor of another model (ERROR)."""
    if layers.inputs.reads is None:
        return AuditResult("embedding_coverage", True, ERROR, "no store yet")
    cov: Coverage = layers.store_side("embedding_coverage")
    model = "recall by meaning off" if cov.model in (None, OFF_MODEL) else f"model {cov.model}"
    refused = cov.not_allowed - cov.changed  # a vector of a withheld fact, or of another model: never a waiting state
    return AuditResult(
        "embedding_coverage",
        cov.missing == 0 and cov.not_allowed == 0,
        ERROR if refused else WARN,
        f"{model}: {cov.embedded} of {cov.shown} facts the agent may see have a vector for their text "
        f"({cov.missing} wait for the next sync); {cov.changed} vectors of facts changed or removed since (the next sync drops "
        f"them); {refused} vectors of facts withheld or of another model",
        {
            "shown_facts": float(cov.shown),
            "embedded": float(cov.embedded),
            "missing": float(cov.missing),
            "not_allowed": float(cov.not_allowed),
            "changed_since": float(cov.changed),
        },
    )


RULES = {"index_consistency": index_consistency, "embedding_coverage": embedding_coverage}
STORE_SIDE = {"index_consistency": index_store_side, "embedding_coverage": embedding_store_side}
