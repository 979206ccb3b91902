"""Search latency and full re-tag time at scale, and the labelled-query recall against Hermes' own index.

    .venv/bin/python benchmarks/bench_search.py [--facts 100000] [--queries 300]

Builds a store of synthetic facts with the pipeline's own sync path, then measures in one run:
`memory-pipeline search` (the trigram index) against Holographic's `FactRetriever.search`
(facts_fts, unicode61) on the same queries; a full re-tag after a keyword-list change and a
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

from memory_pipeline.lib.extraction import entries_to_extract  # noqa: E402
from memory_pipeline.lib.extraction.rule_based import RulesExtractor  # noqa: E402
from memory_pipeline.lib.hermes.entries import hashed_frame, parsed_frame  # noqa: E402
from memory_pipeline.lib.hermes.profiles import Profile, read_profile  # noqa: E402
from memory_pipeline.lib.privacy.choice import PrivacyJudge  # noqa: E402
from memory_pipeline.lib.privacy.detectors import DEFAULT_CATEGORIES  # noqa: E402
from memory_pipeline.lib.privacy.matching import load_keywords  # noqa: E402
from memory_pipeline.lib.privacy.tagging import retag_store  # noqa: E402
from memory_pipeline.lib.store.database import connect  # noqa: E402
from memory_pipeline.lib.store.fact_search import search  # noqa: E402
from memory_pipeline.lib.store.search_index import sync_search_index  # noqa: E402
from memory_pipeline.lib.store.settings import holographic_settings
from memory_pipeline.lib.sync.diff import diff_entries  # noqa: E402
from memory_pipeline.lib.sync.ledger import active_ledger, ledger_fingerprint  # noqa: E402
from memory_pipeline.lib.sync.stages import EntryDiff, Extraction, Provenance  # noqa: E402
from memory_pipeline.lib.sync.writer import write_sync  # noqa: E402
from memory_pipeline_tests.support.hermes_oracle import holographic_retriever, holographic_store  # noqa: E402
from memory_pipeline_tests.support.repository import DEMO_HERMES_HOME  # noqa: E402
from memory_pipeline_tests.support.search_queries import LABELLED_QUERIES, title_of  # noqa: E402
from memory_pipeline_tests.support.store_helpers import write_entries  # noqa: E402
from memory_pipeline_tests.support.synthetic import synthetic_entries  # noqa: E402


def sync_store(home: Path) -> Path:
    """The pipeline's stages on a profile home, without Dagster: upsert, tags, search index."""
    profile = Profile("default", home)
    settings = holographic_settings(home)
    hashed = hashed_frame(parsed_frame("default", read_profile(profile)))
    conn = connect(settings.db_path)
    diff = diff_entries(hashed, active_ledger(conn))
    extraction = Extraction.of(RulesExtractor().extract(entries_to_extract(diff, conn)), Provenance())
    write_sync(conn, EntryDiff(diff, ledger_fingerprint(conn)), extraction, settings=settings)
    # The demo's list where a user keeps theirs: the agent's surfaces then find it judged with the list in force.
    keywords = home / "memory-pipeline" / "privacy_keywords.txt"
    keywords.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "data" / "privacy_keywords.txt", keywords)
    retag_store(conn, PrivacyJudge(load_keywords(keywords), DEFAULT_CATEGORIES, "hide"), settings)
    sync_search_index(conn)
    conn.close()
    return settings.db_path


def build_store(home: Path, count: int) -> Path:
    user = count // 10
    write_entries(home / "memories" / "MEMORY.md", synthetic_entries(count - user, seed=21))
    write_entries(home / "memories" / "USER.md", synthetic_entries(user, seed=22, start=10 * count))
    return sync_store(home)


def query_mix(db: Path, count: int) -> list[str]:
    """Two-character Chinese words, longer Chinese and mixed phrases, English words, and random
    substrings of stored facts (which always have an answer)."""
    rng = random.Random(5)
    conn = connect(db, create=False)
    contents = [r[0] for r in conn.execute("SELECT content FROM facts ORDER BY random() LIMIT 500")]
    conn.close()
    words_zh = "部署 评审 分支 缓存 管道 备份 回滚 延迟 索引 镜像 队列 发布 脚本 配置 安装 会话 预算 报告 规则 偏好".split()
    words_en = "deploy review branch cache token pipeline schema backup rollback latency mirror release".split()
    queries = []
    for i in range(count):
        kind = i % 4
        if kind == 0:
            queries.append(rng.choice(words_zh))
        elif kind == 1:
            queries.append(f"{rng.choice(words_zh)} {rng.choice(words_en)}")
        elif kind == 2:
            queries.append(rng.choice(words_en))
        else:
            text = rng.choice(contents)
            start = rng.randrange(0, max(1, len(text) - 6))
            queries.append(text[start : start + rng.randint(2, 6)].strip() or text[:4])
    return [q for q in queries if len(q.strip()) >= 2]


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


def labelled_recall(tmp: Path) -> tuple[int, int]:
    db = labelled_home(tmp) / "memory_store.db"
    conn = connect(db, create=False)
    ours = sum(set(titles) <= {title_of(r["content"]) for r in search(conn, q, limit=50).facts} for q, titles in LABELLED_QUERIES.items())
    conn.close()
    store = holographic_store(db)
    retriever = holographic_retriever(store)
    theirs = sum(
        set(titles) <= {title_of(r["content"]) for r in retriever.search(q, min_trust=0.0, limit=50)}
        for q, titles in LABELLED_QUERIES.items()
    )
    store.close()
    return ours, theirs


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
        queries = query_mix(db, args.queries)
        conn = connect(db, create=False)
        mine = timed(lambda q: search(conn, q, limit=10), queries)
        store = holographic_store(db)
        retriever = holographic_retriever(store)
        theirs = timed(lambda q: retriever.search(q, min_trust=0.0, limit=10), queries)
        store.close()
        print(f"| search, {len(queries)} queries, {args.facts:,} facts | p50 | p95 | max |")
        print("|---|---:|---:|---:|")
        print(f"| memory-pipeline (trigram index) | {mine[0]:.2f} ms | {mine[1]:.2f} ms | {mine[2]:.2f} ms |")
        print(f"| Holographic FactRetriever.search (facts_fts) | {theirs[0]:.2f} ms | {theirs[1]:.2f} ms | {theirs[2]:.2f} ms |")

        settings = holographic_settings(tmp / "home")
        keywords = tmp / "kw.txt"
        keywords.write_text("# private\n缓存 token\nre:#\\d*77\\b\n", encoding="utf-8")
        started = time.perf_counter()
        changed = retag_store(conn, PrivacyJudge(load_keywords(keywords), DEFAULT_CATEGORIES, "hide"), settings)
        full = time.perf_counter() - started
        started = time.perf_counter()
        again = retag_store(conn, PrivacyJudge(load_keywords(keywords), DEFAULT_CATEGORIES, "hide"), settings)
        steady = time.perf_counter() - started
        conn.close()
        print(f"\n| re-tag, {args.facts:,} facts | seconds | facts changed |")
        print("|---|---:|---:|")
        print(f"| after a keyword-list change | {full:.2f} s | {changed.tagged + changed.untagged:,} |")
        print(f"| no change | {steady:.2f} s | {again.tagged + again.untagged} |")

        ours, theirs_answered = labelled_recall(tmp)
        print(f"\n| labelled queries on the demo profile ({len(LABELLED_QUERIES)}) | answered fully |")
        print("|---|---:|")
        print(f"| memory-pipeline search | {ours} |")
        print(f"| Hermes' own facts_fts (FactRetriever.search) | {theirs_answered} |")


if __name__ == "__main__":
    main()
