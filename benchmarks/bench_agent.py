"""What the agent pays to reach the index, side by side in one run.

    .venv/bin/python benchmarks/bench_agent.py [--facts 100000] [--queries 300] [--starts 5]

On a store of synthetic facts (built as `bench_search.py` builds it): `search_memory` round trips
through a real MCP client session (the official `mcp` client over stdio against `memory-pipeline
mcp`) against the CLI's search (the same read in process, the same read without the verdict check,
and the whole `memory-pipeline search` command) and Holographic's `FactRetriever.search`, on the
same queries; the plugin's
`pre_llm_call` hook on Chinese questions (it runs on every turn); the server's start (spawn to
an answered `initialize`) against `python -c "import dagster"`; and, on the demo profile, how many
of the 18 labelled queries each answers fully. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_search import build_store, labelled_home, query_mix  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from memory_pipeline.cli.hermes_plugin_command import write_plugin  # noqa: E402
from memory_pipeline.services.reading import search_profiles  # noqa: E402
from memory_pipeline_tests.support.hermes_oracle import holographic_retriever, holographic_store  # noqa: E402
from memory_pipeline_tests.support.search_queries import LABELLED_QUERIES, title_of  # noqa: E402
from memory_pipeline_tests.support.store_fixture import context_of  # noqa: E402

COMMAND = str(Path(sys.executable).with_name("memory-pipeline"))


def _ms(latencies: list[float]) -> tuple[float, float, float]:
    values = np.array(latencies) * 1000
    return float(np.percentile(values, 50)), float(np.percentile(values, 95)), float(values.max())


def _params(home: Path) -> StdioServerParameters:
    return StdioServerParameters(command=COMMAND, args=["mcp", "--hermes-home", str(home), "--profile", "default"])


async def _mcp_session(home: Path, work):
    async with stdio_client(_params(home)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await work(session)


def mcp_latencies(home: Path, queries: list[str]) -> list[float]:
    async def work(session):
        spent = []
        for q in queries:
            started = time.perf_counter()
            await session.call_tool("search_memory", {"query": q})
            spent.append(time.perf_counter() - started)
        return spent

    return asyncio.run(_mcp_session(home, work))


def mcp_answers(home: Path) -> int:
    import json

    async def work(session):
        answered = 0
        for q, titles in LABELLED_QUERIES.items():
            result = await session.call_tool("search_memory", {"query": q, "limit": 50})
            found = {title_of(r["content"]) for r in json.loads(result.content[0].text)["results"]}
            answered += set(titles) <= found
        return answered

    return asyncio.run(_mcp_session(home, work))


def in_process_latencies(home: Path, queries: list[str]) -> tuple[list[float], list[float]]:
    """The agent's read in process, and the same read of every fact (the user's
    `--include-private`): the difference is what the verdict check costs. Each query is read both
    ways back to back, the first way alternating, so neither read finds the pages the other warmed."""
    profile, checked, unchecked = [context_of(home)], [], []
    for i, q in enumerate(queries):
        for include_private in (False, True) if i % 2 else (True, False):
            started = time.perf_counter()
            search_profiles(profile, q, limit=10, include_private=include_private, refresh_index=False)
            (unchecked if include_private else checked).append(time.perf_counter() - started)
    return checked, unchecked


def cli_latencies(home: Path, queries: list[str]) -> list[float]:
    spent = []
    for q in queries:
        started = time.perf_counter()
        subprocess.run([COMMAND, "search", q, "--hermes-home", str(home), "--json"], capture_output=True, check=True)
        spent.append(time.perf_counter() - started)
    return spent


def holographic_latencies(db: Path, queries: list[str]) -> list[float]:
    store = holographic_store(db)
    retriever, spent = holographic_retriever(store), []
    for q in queries:
        started = time.perf_counter()
        retriever.search(q, limit=10)
        spent.append(time.perf_counter() - started)
    store.close()
    return spent


def hook_latencies(home: Path, questions: list[str]) -> tuple[list[float], int]:
    """The installed plugin's `pre_llm_call`, imported from its directory as Hermes imports it."""
    target = home / "plugins" / "memory-pipeline"
    write_plugin(target, home, "default")
    os.environ["HERMES_HOME"] = str(home)
    spec = importlib.util.spec_from_file_location(
        "hermes_plugins.memory_pipeline", target / "__init__.py", submodule_search_locations=[str(target)]
    )
    plugin = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = plugin
    spec.loader.exec_module(plugin)
    spent, answered = [], 0
    for question in questions:
        started = time.perf_counter()
        answered += plugin.recall(user_message=question) is not None
        spent.append(time.perf_counter() - started)
    return spent, answered


def questions(db: Path, count: int) -> list[str]:
    """Chinese questions naming two Chinese words of a stored fact, as a user would ask them; every
    fourth names words no fact holds together (the hook must then stay silent)."""
    import re
    import sqlite3

    rng = random.Random(9)
    conn = sqlite3.connect(db)
    contents = [r[0] for r in conn.execute("SELECT content FROM facts ORDER BY random() LIMIT 400")]
    conn.close()
    words = [w for w in (re.findall(r"[\u4e00-\u9fff]{2,}", text) for text in contents) if len(w) >= 2]
    asked = []
    for i in range(count):
        first, second = rng.sample(rng.choice(words), 2) if i % 4 else ("天气", "午饭")
        asked.append(f"请问{first}和{second}{['怎么处理', '上次是谁做的', '有什么要注意的'][i % 3]}？")
    return asked


def start_times(home: Path, starts: int) -> tuple[list[float], list[float]]:
    async def started_once() -> float:
        began = time.perf_counter()
        async with stdio_client(_params(home)) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return time.perf_counter() - began

    server, dagster = [], []
    for _ in range(starts):
        server.append(asyncio.run(started_once()))
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import dagster"], check=True)
        dagster.append(time.perf_counter() - began)
    return server, dagster


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--cli-queries", type=int, default=40, help="whole `memory-pipeline search` commands (each starts Python)")
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-agent-"))
    try:
        home = tmp / "home"
        db = build_store(home, args.facts)
        # One, two and three words, a third of the queries each.
        queries = [q for kind in query_mix(db, args.queries // 3).values() for q in kind]
        asked = questions(db, args.queries)
        checked, unchecked = in_process_latencies(home, queries)
        rows = [
            ("`search_memory` through an MCP client session (stdio)", _ms(mcp_latencies(home, queries))),
            ("the CLI's search, in process (the same read)", _ms(checked)),
            ("the same read without the verdict check (every fact)", _ms(unchecked)),
            ("`memory-pipeline search` (the whole command)", _ms(cli_latencies(home, queries[: args.cli_queries]))),
            ("Holographic `FactRetriever.search` (facts_fts)", _ms(holographic_latencies(db, queries))),
        ]
        hook, hooked = hook_latencies(home, asked)
        server, dagster = start_times(home, args.starts)
        demo = labelled_home(tmp)
        ours_cli = sum(
            set(titles)
            <= {
                title_of(r["content"])
                for r in search_profiles([context_of(demo)], q, limit=50, include_private=False, refresh_index=False).facts
            }
            for q, titles in LABELLED_QUERIES.items()
        )
        store = holographic_store(demo / "memory_store.db")
        retriever = holographic_retriever(store)
        theirs = sum(
            set(t) <= {title_of(r["content"]) for r in retriever.search(q, min_trust=0.0, limit=50)} for q, t in LABELLED_QUERIES.items()
        )
        store.close()
        answered = {"mcp": mcp_answers(demo), "cli": ours_cli, "holographic": theirs}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"\n| {len(queries)} queries, {args.facts:,} facts | p50 | p95 | max | labelled queries answered (of {len(LABELLED_QUERIES)}) |")
    print("|---|---:|---:|---:|---:|")
    labels = ["mcp", "cli", "cli", "cli", "holographic"]
    for (name, (p50, p95, worst)), label in zip(rows, labels, strict=True):
        print(f"| {name} | {p50:.2f} ms | {p95:.2f} ms | {worst:.2f} ms | {answered[label]} |")
    p50, p95, worst = _ms(hook)
    print(f"\n| the plugin's `pre_llm_call` hook, {len(asked)} Chinese questions | p50 | p95 | max | turns given facts |")
    print("|---|---:|---:|---:|---:|")
    print(f"| {args.facts:,} facts | {p50:.2f} ms | {p95:.2f} ms | {worst:.2f} ms | {hooked} |")
    print(f"\n| start (median of {args.starts}) | seconds | vs `import dagster` |")
    print("|---|---:|---:|")
    print(f'| `python -c "import dagster"` | {median(dagster):.2f} s | 1.00× |')
    print(
        f"| `memory-pipeline mcp`, spawn to an answered `initialize` | {median(server):.2f} s | {median(server) / median(dagster):.2f}× |"
    )


if __name__ == "__main__":
    main()
