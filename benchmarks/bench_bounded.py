"""How long one hostile query holds up the agent's next call, through a real MCP client session.

    .venv/bin/python benchmarks/bench_bounded.py [--rounds 5]

On the demo profile, synced: `memory_status` alone, then `memory_status` sent while a hostile
`search_memory` is in flight on the same session (25,000 words, 2 MB, deep quoting, 5,000 ids):
the hostile call's own time (it is refused) and how long the status call waited. Every
agent-facing query is bounded, so neither is more than a moment. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_search import labelled_home  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

COMMAND = str(Path(sys.executable).with_name("memory-pipeline"))
HOSTILE = {
    "25,000 words": ("search_memory", {"query": " ".join(f"w{i}" for i in range(25_000))}),
    "2 MB of Chinese": ("search_memory", {"query": "机柜" * 1_000_000}),
    "deep quoting": ("search_memory", {"query": '"' * 100_000 + "atlas" + '"' * 100_000}),
    "5,000 ids": ("get_facts", {"fact_ids": list(range(1, 5_001)), "profile": "default"}),
}


async def _timed(session: ClientSession, tool: str, arguments: dict) -> float:
    started = time.perf_counter()
    await session.call_tool(tool, arguments)
    return time.perf_counter() - started


async def measure(home: Path, rounds: int) -> dict[str, tuple[float, float]]:
    params = StdioServerParameters(command=COMMAND, args=["mcp", "--hermes-home", str(home), "--profile", "default"])
    found = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        found["nothing in flight"] = (0.0, median([await _timed(session, "memory_status", {}) for _ in range(rounds)]))
        for name, (tool, arguments) in HOSTILE.items():
            hostile, status = [], []
            for _ in range(rounds):
                pair = await asyncio.gather(_timed(session, tool, arguments), _timed(session, "memory_status", {}))
                hostile.append(pair[0])
                status.append(pair[1])
            found[name] = (median(hostile), median(status))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        found = asyncio.run(measure(labelled_home(Path(tmp)), args.rounds))
    print(f"| in flight (median of {args.rounds}) | the hostile call | `memory_status` sent beside it |")
    print("|---|---:|---:|")
    for name, (hostile, status) in found.items():
        print(f"| {name} | {hostile * 1000:.0f} ms | {status * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
