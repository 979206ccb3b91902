"""Recall by meaning at scale: what embedding costs a sync, and what meaning costs the agent's turn
and its search, with the bundled encoder, side by side with the same reads by letters alone.

    .venv/bin/python benchmarks/bench_meaning.py [--hook-facts 10000] [--mcp-facts 100000]

- A store of synthetic entries (as `bench_search.py` builds it) synced by the pipeline's stages,
  then embedded by `embed_facts` (the sync's `fact_embeddings` step): seconds and facts per second.
- The hook at `--hook-facts`, the encoder warm: `recalled_facts` (letters, then meaning) against
  `message_facts` (letters alone), message by message, interleaved.
- `search_memory` at `--mcp-facts` through a real MCP client session over stdio against
  `memory-pipeline mcp`, once its encoder is loaded: questions (read by meaning and letters)
  against names (letters alone).
- The memory recall by meaning's vectors take at `--mcp-facts`: the process's peak RSS growth while
  its first query builds the vector index, and the index's own size.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import recall_real_set as REAL  # noqa: E402
from bench_agent import _mcp_session, _ms  # noqa: E402
from bench_search import build_store  # noqa: E402

from memory_pipeline.lib.extraction.embedders import EmbedderChoice  # noqa: E402
from memory_pipeline.lib.in_hermes import meaning, recall  # noqa: E402
from memory_pipeline.lib.in_hermes.fact_search import message_facts  # noqa: E402
from memory_pipeline.lib.store.fact_store import FactStore  # noqa: E402
from memory_pipeline.lib.store.schema.database import connect  # noqa: E402
from memory_pipeline.lib.store.settings import holographic_settings  # noqa: E402
from memory_pipeline.lib.sync.embedding import embed_facts  # noqa: E402

QUESTIONS = [q for _, _, q, _ in REAL.NAMED] + list(REAL.NAMES_NOTHING)
NAMES = ["部署", "回滚", "staging", "backup", "fact_store#12", "18:00", "rollback", "缓存", "pipeline", "评审"]


def built(home: Path, count: int) -> dict[str, float]:
    """A store of `count` facts synced, then embedded: the seconds of each and the facts per second."""
    started = time.perf_counter()
    build_store(home, count)
    synced = time.perf_counter() - started
    meaning.load_bundled()
    with FactStore.opened(holographic_settings(home)) as store:
        report = embed_facts(store, EmbedderChoice())
    return {"facts": float(count), "sync_s": synced, "embed_s": report.seconds, "facts_per_s": report.facts_per_second}


def hook_latencies(home: Path, rounds: int = 3) -> tuple[list[float], list[float]]:
    db = home / "memory_store.db"
    conn = connect(db, create=False)
    recall.recalled_facts(conn, "warm", recall.bundled_meaning(conn, db, "warm"))  # the index built once, as a running Hermes has it
    both, letters = [], []
    for i, message in enumerate(QUESTIONS * rounds):
        for way in ("both", "letters") if i % 2 else ("letters", "both"):
            started = time.perf_counter()
            if way == "both":
                recall.recalled_facts(conn, message, recall.bundled_meaning(conn, db, message))
            else:
                message_facts(conn, message)
            (both if way == "both" else letters).append(time.perf_counter() - started)
    conn.close()
    return both, letters


def mcp_latencies(home: Path, rounds: int = 1) -> tuple[list[float], list[float], int]:
    async def work(session):
        for i in range(600):  # until the server's encoder is loaded: some question then finds by meaning
            result = await session.call_tool("search_memory", {"query": QUESTIONS[i % len(QUESTIONS)]})
            if '"meaning"' in result.content[0].text:
                break
            await asyncio.sleep(0.2)
        questions, names, by_meaning = [], [], 0
        for i in range(rounds * len(QUESTIONS)):
            for kind in ("q", "n") if i % 2 else ("n", "q"):
                query = QUESTIONS[i % len(QUESTIONS)] if kind == "q" else NAMES[i % len(NAMES)]
                started = time.perf_counter()
                result = await session.call_tool("search_memory", {"query": query})
                (questions if kind == "q" else names).append(time.perf_counter() - started)
                if kind == "q":
                    by_meaning += any("meaning" in r["matched"] for r in json.loads(result.content[0].text)["results"])
        return questions, names, by_meaning

    return asyncio.run(_mcp_session(home, work))


def mcp_in_own_process(home: Path) -> tuple[list[float], list[float], int]:
    """`mcp_latencies` from a client process that has done nothing else: the encoder and NumPy's
    threads of this process's own work would otherwise take the cores the server runs on."""
    done = subprocess.run([sys.executable, __file__, "--mcp-client", str(home)], capture_output=True, text=True, check=True)
    return tuple(json.loads(done.stdout.strip().splitlines()[-1]))  # type: ignore[return-value]


_MEMORY_PROBE = """
import json, sys
from pathlib import Path
from memory_pipeline.lib.in_hermes import meaning
from memory_pipeline.lib.store.schema.database import connect

def rss(field):
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith(field)) / 1024

db = Path(sys.argv[1])
conn = connect(db, create=False)
import numpy  # the encoder's NumPy, loaded before the baseline: only the vectors are measured
before, peak_before = rss("VmRSS:"), rss("VmHWM:")
ids, matrix, inverse = meaning._index(conn, db, meaning.store_model(conn))
print(json.dumps({"int8_matrix_mb": (matrix.nbytes + ids.nbytes + inverse.nbytes) / 2**20,
                  "rss_growth_mb": rss("VmRSS:") - before, "peak_growth_mb": rss("VmHWM:") - peak_before}))
"""


def vector_memory(home: Path) -> dict[str, float]:
    """In a fresh process: what the vector index of recall by meaning holds once built from the
    store (its arrays), and how much the process grew, at rest and at its peak, building it."""
    done = subprocess.run([sys.executable, "-c", _MEMORY_PROBE, str(home / "memory_store.db")], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hook-facts", type=int, default=10_000)
    parser.add_argument("--mcp-facts", type=int, default=100_000)
    parser.add_argument("--mcp-client", type=Path, help=argparse.SUPPRESS)  # the client process of `mcp_in_own_process`
    args = parser.parse_args()
    if args.mcp_client:
        print(json.dumps(mcp_latencies(args.mcp_client)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        small, large = Path(tmp) / "small", Path(tmp) / "large"
        sizes = [built(small, args.hook_facts)]
        both, letters = hook_latencies(small)
        sizes.append(built(large, args.mcp_facts))
        questions, names, by_meaning = mcp_in_own_process(large)
        memory = vector_memory(large)
    print("| facts | sync by the stages | embedding | facts per second |")
    print("|---:|---:|---:|---:|")
    for s in sizes:
        print(f"| {s['facts']:,.0f} | {s['sync_s']:.1f} s | {s['embed_s']:.1f} s | {s['facts_per_s']:.0f} |")
    print(f"\n| {args.hook_facts:,} facts, encoder warm ({len(both)} messages) | p50 ms | p95 ms | max ms |")
    print("|---|---:|---:|---:|")
    for label, values in (("hook, letters then meaning (`recalled_facts`)", both), ("hook by letters alone (`message_facts`)", letters)):
        print(f"| {label} | " + " | ".join(f"{v:.1f}" for v in _ms(values)) + " |")
    print(f"\n| `search_memory` over MCP at {args.mcp_facts:,} facts, encoder loaded | p50 ms | p95 ms | max ms |")
    print("|---|---:|---:|---:|")
    print(
        f"| questions (letters and meaning; {by_meaning} of {len(questions)} found by meaning) | "
        + " | ".join(f"{v:.1f}" for v in _ms(questions))
        + " |"
    )
    print("| names (letters alone) | " + " | ".join(f"{v:.1f}" for v in _ms(names)) + " |")
    print(
        f"\nvectors at {args.mcp_facts:,} facts: the index (int8 vectors, ids, norms) {memory['int8_matrix_mb']:.0f} MB; "
        f"a process grows {memory['rss_growth_mb']:.0f} MB building it (peak {memory['peak_growth_mb']:.0f} MB)"
    )


if __name__ == "__main__":
    main()
