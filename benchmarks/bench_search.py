"""Search latency and full re-tag time at scale, and the labelled-query recall against Hermes' own index.

    .venv/bin/python benchmarks/bench_search.py [--facts 100000] [--queries 300]

Builds a store of synthetic facts with the pipeline's own sync path, then measures in one run:
`memory-pipeline search` (the trigram index) against Holographic's `FactRetriever.search`
(facts_fts, unicode61) on the same queries of one, two and three words; a full re-tag after a keyword-list change and a
no-change re-tag; and, on the demo profile, how many labelled queries each index answers fully.
Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory_pipeline.lib.choices import PrivacyPolicy
from memory_pipeline.lib.in_hermes.fact_search import search  # noqa: E402
from memory_pipeline.lib.privacy.choice import PrivacyJudge  # noqa: E402
from memory_pipeline.lib.privacy.detectors import DEFAULT_CATEGORIES  # noqa: E402
from memory_pipeline.lib.privacy.matching import load_keywords  # noqa: E402
from memory_pipeline.lib.privacy.tagging import retag_store  # noqa: E402
from memory_pipeline.lib.store.fact_store import FactStore  # noqa: E402
from memory_pipeline.lib.store.schema.database import connect  # noqa: E402
from memory_pipeline.lib.store.settings import holographic_settings
from memory_pipeline_tests.support.hermes_oracle import holographic_retriever, holographic_store  # noqa: E402
from memory_pipeline_tests.support.repository import DEMO_HERMES_HOME  # noqa: E402
from memory_pipeline_tests.support.search_queries import LABELLED_QUERIES, MULTIWORD_QUERIES, title_of  # noqa: E402
from memory_pipeline_tests.support.store_fixture import context_of, synced_store  # noqa: E402
from memory_pipeline_tests.support.store_helpers import write_entries  # noqa: E402
from memory_pipeline_tests.support.synthetic import synthetic_entries  # noqa: E402


def sync_store(home: Path) -> Path:
    """The pipeline's stages on a profile home, without Dagster: upsert, tags, search index."""
    # The demo's list where a user keeps theirs: the agent's surfaces then find it judged with the list in force.
    keywords = home / "memory-pipeline" / "privacy_keywords.txt"
    keywords.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "data" / "privacy_keywords.txt", keywords)
    return synced_store(context_of(home), PrivacyJudge(load_keywords(keywords), DEFAULT_CATEGORIES, PrivacyPolicy.HIDE))


def build_store(home: Path, count: int) -> Path:
    user = count // 10
    write_entries(home / "memories" / "MEMORY.md", synthetic_entries(count - user, seed=21))
    write_entries(home / "memories" / "USER.md", synthetic_entries(user, seed=22, start=10 * count))
    return sync_store(home)


def query_mix(db: Path, count: int) -> dict[str, list[str]]:
    """Queries of one, two and three words: Chinese two-character words, English words and random
    substrings of stored facts (which always have an answer), alone and combined in any order."""
    rng = random.Random(5)
    conn = connect(db, create=False)
    contents = [r[0] for r in conn.execute("SELECT content FROM facts ORDER BY random() LIMIT 500")]
    conn.close()
    words_zh = "部署 评审 分支 缓存 管道 备份 回滚 延迟 索引 镜像 队列 发布 脚本 配置 安装 会话 预算 报告 规则 偏好".split()
    words_en = "deploy review branch cache token pipeline schema backup rollback latency mirror release".split()

    def word(kind: int) -> str:
        if kind == 0:
            return rng.choice(words_zh)
        if kind == 1:
            return rng.choice(words_en)
        text = rng.choice(contents)
        start = rng.randrange(0, max(1, len(text) - 6))
        return "".join(text[start : start + rng.randint(2, 6)].split()) or text[:4]

    def of_one_fact(n: int) -> str:
        """`n` substrings of one stored fact, shuffled: a query with an answer."""
        text = "".join(rng.choice(contents).split())
        picks = [text[i : i + rng.randint(2, 4)] for i in sorted(rng.sample(range(max(1, len(text) - 4)), min(n, max(1, len(text) - 4))))]
        rng.shuffle(picks)
        return " ".join(picks)

    mix = {"one word": [word(i % 3) for i in range(count)]}
    for n, label in ((2, "two words"), (3, "three words")):
        mix[label] = [of_one_fact(n) if i % 2 else " ".join(word(rng.randrange(3)) for _ in range(n)) for i in range(count)]
    return {label: [q for q in queries if len(q.strip()) >= 2] for label, queries in mix.items()}


def timed(fn, queries):
    latencies = []
    for q in queries:
        started = time.perf_counter()
        fn(q)
        latencies.append(time.perf_counter() - started)
    values = np.array(latencies) * 1000
    return float(np.percentile(values, 50)), float(np.percentile(values, 95)), float(values.max())


def labelled_home(tmp: Path) -> Path:
    """The demo's `default` profile, synced: what the labelled queries are about."""
    home = tmp / "demo"
    shutil.copytree(DEMO_HERMES_HOME, home, ignore=shutil.ignore_patterns("memory_store.db*", "memory-pipeline", "profiles"))
    sync_store(home)
    return home


def _answered(titles: list[str], found: set[str]) -> bool:
    """Every intended fact found; for a query that names none, nothing found."""
    return set(titles) <= found if titles else not found


def labelled_recall(tmp: Path) -> dict[str, tuple[int, int, int]]:
    """Per query set: (queries, answered by the pipeline's search, answered by Holographic's)."""
    db = labelled_home(tmp) / "memory_store.db"
    conn = connect(db, create=False)
    store = holographic_store(db)
    retriever = holographic_retriever(store)
    scores = {}
    for label, queries in (("one word or phrase", LABELLED_QUERIES), ("several words, any order", MULTIWORD_QUERIES)):
        ours = sum(_answered(t, {title_of(r["content"]) for r in search(conn, q, limit=50)}) for q, t in queries.items())
        theirs = sum(
            _answered(t, {title_of(r["content"]) for r in retriever.search(q, min_trust=0.0, limit=50)}) for q, t in queries.items()
        )
        scores[label] = (len(queries), ours, theirs)
    store.close()
    conn.close()
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        started = time.perf_counter()
        db = build_store(tmp / "home", args.facts)
        print(f"built a store of {args.facts:,} facts in {time.perf_counter() - started:.0f} s\n")
        mix = query_mix(db, args.queries)
        conn = connect(db, create=False)
        store = holographic_store(db)
        retriever = holographic_retriever(store)
        print(f"| search, {args.facts:,} facts | queries | p50 | p95 | max | Holographic facts_fts p50 | p95 | max |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for label, queries in mix.items():
            mine = timed(lambda q: search(conn, q, limit=10), queries)
            theirs = timed(lambda q: retriever.search(q, min_trust=0.0, limit=10), queries)
            print(
                f"| {label} | {len(queries)} | {mine[0]:.2f} ms | {mine[1]:.2f} ms | {mine[2]:.2f} ms "
                f"| {theirs[0]:.2f} ms | {theirs[1]:.2f} ms | {theirs[2]:.2f} ms |"
            )
        store.close()

        settings = holographic_settings(tmp / "home")
        keywords = tmp / "kw.txt"
        keywords.write_text("# private\n缓存 token\nre:#\\d*77\\b\n", encoding="utf-8")
        started = time.perf_counter()
        changed = retag_store(FactStore(conn, settings), PrivacyJudge(load_keywords(keywords), DEFAULT_CATEGORIES, PrivacyPolicy.HIDE))
        full = time.perf_counter() - started
        started = time.perf_counter()
        again = retag_store(FactStore(conn, settings), PrivacyJudge(load_keywords(keywords), DEFAULT_CATEGORIES, PrivacyPolicy.HIDE))
        steady = time.perf_counter() - started
        switched = DEFAULT_CATEGORIES | {"private_network"}  # a detector switched on: every fact judged whole again
        started = time.perf_counter()
        detector = retag_store(FactStore(conn, settings), PrivacyJudge(load_keywords(keywords), switched, PrivacyPolicy.HIDE))
        by_detector = time.perf_counter() - started
        conn.close()
        print(f"\n| re-tag, {args.facts:,} facts | seconds | facts changed |")
        print("|---|---:|---:|")
        print(f"| after a keyword-list change | {full:.2f} s | {changed.tagged + changed.untagged:,} |")
        print(f"| no change | {steady:.2f} s | {again.tagged + again.untagged} |")
        print(f"| after a detector is switched on | {by_detector:.2f} s | {detector.tagged + detector.untagged:,} |")

        print("\n| labelled queries on the demo profile | queries | memory-pipeline search | Hermes' facts_fts (FactRetriever.search) |")
        print("|---|---:|---:|---:|")
        for label, (count, ours, theirs_answered) in labelled_recall(tmp).items():
            print(f"| {label} | {count} | {ours} | {theirs_answered} |")


if __name__ == "__main__":
    main()
