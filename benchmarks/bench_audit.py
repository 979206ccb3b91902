"""All audits on a large store, against a naive per-fact implementation in `audit_consistency.py`'s style.

    .venv/bin/python benchmarks/bench_audit.py [--facts 100000] [--home DIR]

Builds a store of synthetic facts with the pipeline's own sync path (or reuses `--home`, a
profile home built by an earlier run), reads the memory files once, then times, in rounds that
each measure both sides back to back:
the six audits and every check of `memory_pipeline.lib.audit.engine` (DuckDB over the three layers,
SQLite-side work on threads), and the six audits written the way `audit_consistency.py` is: Python loops
over rows, a query per fact. Both must reach the same verdicts. Beside them, every check on a copy
of the store with half its vectors and every bank in current Hermes' HRR1 dialect, against the
all-legacy original, in the same rounds. And the sync's audit steps as a Dagster run executes
them (the blocking ledger check, `audit_report`, the `memory_audits` checks, through the real
resources): one load of the layers per run, against the two loads runs took before (the checks
loading the layers again for their subset), side by side in the same rounds. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_search import build_store
from hrr1_stores import dialect_counts, half_hrr1_copy

from memory_pipeline.defs.audit import AUDIT_SPECS, profile_audit
from memory_pipeline.defs.resources import FactStoreResource, HermesHomeResource, PrivacyResource
from memory_pipeline.lib.audit.engine import CHECKS, Audit, AuditInputs
from memory_pipeline.lib.choices import PrivacyPolicy
from memory_pipeline.lib.hermes.profiles import Profile, read_profile
from memory_pipeline.lib.privacy.choice import PrivacyJudge
from memory_pipeline.lib.privacy.detectors import _LONG_NUMBER, DEFAULT_CATEGORIES, DETECTORS
from memory_pipeline.lib.privacy.matching import load_keywords, normalise_tags
from memory_pipeline.lib.store.reads.reader import StoreReader
from memory_pipeline.lib.store.schema.database import opened
from memory_pipeline.lib.store.settings import holographic_settings

DEMO_KEYWORDS = ROOT / "data" / "privacy_keywords.txt"
NAIVE_CHECKS = ("layer_counts", "hashes_fresh", "ledger_integrity", "fact_links", "index_consistency", "privacy_coverage")


def naive_audit(readings, db: Path, keywords, dim: int) -> dict[str, bool]:
    """The six audits `audit_consistency.py`'s way: every row through Python, each cross-layer lookup a query
    per entry or fact (on the store's indexes), every privacy rule and an FTS MATCH per fact."""
    conn = sqlite3.connect(db)
    verdict = {}
    entries = [(r.source, hashlib.sha256(t.encode()).hexdigest()[:16]) for r in readings for t in r.entries]
    ledger = conn.execute("SELECT entry_id, source, entry_sha256, fact_id, status, synced_at FROM memory_pipeline_ledger").fetchall()
    active = {(source, sha[:16]) for _, source, sha, _, status, _ in ledger if status == "active"}
    # On the ledger's primary key (profile, entry id, fact id), as a per-entry lookup is written for it.
    (profile,) = {row[0] for row in conn.execute("SELECT DISTINCT profile FROM memory_pipeline_ledger")} or {""}
    verdict["hashes_fresh"] = all(
        conn.execute(
            "SELECT 1 FROM memory_pipeline_ledger WHERE profile = ? AND entry_id = ? AND status = 'active'", (profile, f"{source}:{short}")
        ).fetchone()
        is not None
        for source, short in entries
    )
    current = set(entries)
    verdict["layer_counts"] = all(a in current for a in active)

    problems, versions = 0, {}
    for entry_id, source, sha, fact_id, status, synced_at in ledger:
        if not isinstance(fact_id, int) or fact_id <= 0 or status not in ("active", "retired") or source not in ("memory", "user"):
            problems += 1
        if len(sha) not in (16, 64) or not re.fullmatch("[0-9a-f]+", sha):
            problems += 1
        try:
            datetime.strptime(synced_at, "%Y-%m-%d %H:%M:%S")
        except (TypeError, ValueError):
            problems += 1
        if status == "active":
            versions.setdefault(entry_id, set()).add((sha, source))
    verdict["ledger_integrity"] = problems == 0 and all(len(v) == 1 for v in versions.values())

    orphans = [row[3] for row in ledger if conn.execute("SELECT 1 FROM facts WHERE fact_id = ?", (row[3],)).fetchone() is None]
    ghosts, seen = 0, Counter()
    for (fact_id,) in conn.execute("SELECT fact_id FROM facts").fetchall():
        content, tags = conn.execute("SELECT content, tags FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
        if (
            "synced-from-memory" in (tags or "").split(",")
            and conn.execute("SELECT 1 FROM memory_pipeline_ledger WHERE fact_id = ?", (fact_id,)).fetchone() is None
        ):
            ghosts += 1
        seen[" ".join(content.lower().split())] += 1
    duplicates = sum(1 for n in seen.values() if n > 1)
    dangling = 0
    for fact_id, entity_id in conn.execute("SELECT fact_id, entity_id FROM fact_entities").fetchall():
        fact = conn.execute("SELECT 1 FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
        entity = conn.execute("SELECT 1 FROM entities WHERE entity_id = ?", (entity_id,)).fetchone()
        if fact is None or entity is None:
            dangling += 1
    verdict["fact_links"] = not (orphans or ghosts or duplicates or dangling)

    try:
        conn.execute("INSERT INTO facts_fts(facts_fts, rank) VALUES ('integrity-check', 1)")
        healthy = True
    except sqlite3.DatabaseError:
        healthy = False
    per_category = Counter()
    for (fact_id,) in conn.execute("SELECT fact_id FROM facts").fetchall():
        vector, category, content = conn.execute("SELECT hrr_vector, category, content FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
        token = re.search(r"\w+", content)  # every fact findable by its first word
        if (
            token
            and conn.execute(
                "SELECT count(*) FROM facts_fts WHERE facts_fts MATCH ? AND rowid = ?", (f'"{token.group()}"', fact_id)
            ).fetchone()[0]
            != 1
        ):
            healthy = False
        # Current Hermes' rule: 8·dim bytes is legacy float64; 4 + 4·dim bytes starting HRR1 is float32.
        decodes = vector is not None and (len(vector) == 8 * dim or (len(vector) == 4 + 4 * dim and vector[:4] == b"HRR1"))
        if not decodes:
            healthy = False
        else:
            per_category[category] += 1
    banks = {name: count for name, count in conn.execute("SELECT bank_name, fact_count FROM memory_banks")}
    healthy = healthy and banks == {f"cat:{c}": n for c, n in per_category.items()}
    verdict["index_consistency"] = healthy

    untagged = 0
    for fact_id, content in conn.execute("SELECT fact_id, content FROM facts").fetchall():
        # Every rule on every fact, as `audit_consistency.py`'s `re.search(PII, content)` loop does.
        long_number = bool(_LONG_NUMBER.search(content))
        if keywords.matches(content) or any(d.found(content, long_number) for name, d in DETECTORS.items() if name in DEFAULT_CATEGORIES):
            tags = conn.execute("SELECT tags FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()[0]
            if "private-person" not in (tags or "").split(","):
                untagged += 1
        tags = conn.execute("SELECT tags FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()[0] or ""
        if normalise_tags(tags)[1]:
            untagged += 1
    verdict["privacy_coverage"] = untagged == 0
    conn.close()
    return verdict


def sync_audit_steps(home: Path, loads: int) -> int:
    """The audit steps of one sync run of profile `default`, as the job runs them: the blocking
    ledger check alone, then `audit_report` (every check, one load); with `loads=2` the
    `memory_audits` checks load the layers again for their own subset, as they did before they
    took the report's results. Returns how many times the layers were read."""
    resources = (HermesHomeResource(hermes_home=str(home)), FactStoreResource(), PrivacyResource(keywords_path=str(DEMO_KEYWORDS)))
    with profile_audit("default", *resources, ["ledger_integrity"]) as audit:
        audit.run("ledger_integrity")
        read = audit.loads
    with profile_audit("default", *resources) as audit:
        audit.run_all()
        read += audit.loads
    if loads == 2:
        subset = [spec.name for spec in AUDIT_SPECS]
        with profile_audit("default", *resources, subset) as audit:
            audit.run_many(subset)
            read += audit.loads
    return read


def timed(fn):
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--home", type=Path, help="a profile home an earlier run built (skips the build)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of (ours best of 3, then the naive once)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp) / "home"
        if args.home is None:
            seconds, _ = timed(lambda: build_store(home, args.facts))
            print(f"built a store of {args.facts:,} facts in {seconds:.0f} s\n")
        mixed_home = half_hrr1_copy(home, Path(tmp) / "half-hrr1")
        settings, mixed_settings = holographic_settings(home), holographic_settings(mixed_home)
        keywords = PrivacyJudge(load_keywords(DEMO_KEYWORDS), DEFAULT_CATEGORIES, PrivacyPolicy.HIDE)
        read_s, readings = timed(lambda: read_profile(Profile("default", home)))
        entries = sum(len(r.entries) for r in readings)

        def ours(names=None, settings=settings):
            with opened(settings.db_path, create=False) as conn:
                with Audit(AuditInputs(readings, StoreReader(conn), settings, keywords), names) as audit:
                    return audit.run_many(names or CHECKS)

        ours(), ours(settings=mixed_settings)  # warm the page cache for every side alike
        # Side by side: each round times every side within seconds of the others, so the ratios
        # of a round hold even when the machine's speed drifts between rounds.
        rounds = []
        for _ in range(args.rounds):
            all_s, results = min((timed(ours) for _ in range(3)), key=lambda r: r[0])
            mixed_s, mixed = min((timed(lambda: ours(settings=mixed_settings)) for _ in range(3)), key=lambda r: r[0])
            six_s, _ = min((timed(lambda: ours(NAIVE_CHECKS)) for _ in range(3)), key=lambda r: r[0])
            naive_s, naive = timed(lambda: naive_audit(readings, settings.db_path, keywords.keywords, settings.hrr_dim))
            mine = {r.name: r.passed for r in results}
            disagree = [name for name in NAIVE_CHECKS if mine[name] != naive[name]]
            disagree += [f"{r.name} (half HRR1)" for r in mixed if r.passed != mine[r.name]]
            if disagree:
                raise SystemExit(f"the implementations disagree on: {', '.join(disagree)}")
            one_s, one_loads = min((timed(lambda: sync_audit_steps(home, 1)) for _ in range(2)), key=lambda r: r[0])
            two_s, two_loads = min((timed(lambda: sync_audit_steps(home, 2)) for _ in range(2)), key=lambda r: r[0])
            rounds.append((all_s, six_s, naive_s, mixed_s, one_s, two_s))
        facts = sqlite3.connect(settings.db_path).execute("SELECT count(*) FROM facts").fetchone()[0]

        def row(label: str, column: int, checks: int) -> str:
            ratios = sorted(r[2] / r[column] for r in rounds)
            return (
                f"| {label} | {median(r[column] for r in rounds):.2f} s | {checks} | {median(ratios):.1f}× faster "
                f"(rounds: {', '.join(f'{x:.1f}×' for x in ratios)}) |"
            )

        print(f"| audits, {facts:,} facts, {entries:,} entries | seconds (median of {len(rounds)} rounds) | checks | vs naive |")
        print("|---|---:|---:|---:|")
        print(f"| read and parse MEMORY.md + USER.md (both sides) | {read_s:.2f} s | – | – |")
        print(row("memory-pipeline, the six audits (best of 3 per round)", 1, len(NAIVE_CHECKS)))
        print(row("memory-pipeline, all checks (best of 3 per round)", 0, len(results)))
        print(
            f"| naive per-fact Python, `audit_consistency.py` style | {median(r[2] for r in rounds):.2f} s | {len(NAIVE_CHECKS)} | 1.0× |"
        )
        counts = dialect_counts(mixed_home)
        slower = sorted(r[3] / r[0] for r in rounds)
        print(f"\n| all checks, same store | seconds (median of {len(rounds)} rounds) | vs legacy |")
        print("|---|---:|---:|")
        print(f"| every vector legacy float64 | {median(r[0] for r in rounds):.2f} s | 1.00× |")
        print(
            f"| {counts['hrr1']:,} of {facts:,} vectors and every bank HRR1 float32 | {median(r[3] for r in rounds):.2f} s | "
            f"{median(slower):.2f}× (rounds: {', '.join(f'{x:.2f}×' for x in slower)}) |"
        )
        faster = sorted(1 - r[4] / r[5] for r in rounds)
        print(
            f"\n| a sync's audit steps (ledger check, report, checks), {facts:,} facts | loads of the layers | "
            f"seconds (median of {len(rounds)} rounds, best of 2) | vs two loads |"
        )
        print("|---|---:|---:|---:|")
        print(f"| before: the checks load the layers again | {two_loads} | {median(r[5] for r in rounds):.2f} s | – |")
        print(
            f"| now: the checks show the report's results | {one_loads} | {median(r[4] for r in rounds):.2f} s | "
            f"{100 * median(faster):.0f}% faster (rounds: {', '.join(f'{100 * x:.0f}%' for x in faster)}) |"
        )
        print(f"\nverdicts agree on the six audits: {', '.join(f'{n}={mine[n]}' for n in NAIVE_CHECKS)}")


if __name__ == "__main__":
    main()
