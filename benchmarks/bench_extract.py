"""LLM extraction: calls and wall time by batch size, against a loopback Ollama with a fixed delay.

    .venv/bin/python benchmarks/bench_extract.py [--entries 100] [--delay 2.0]

A loopback server that speaks Ollama's API (memory_pipeline_tests/support/fake_ollama.py) answers every
chat call after a fixed delay, standing in for a model's time per call; the real `ollama` client
and the real `memory_sync_job` (in-process, as `memory-pipeline sync` runs it) do the rest. The
peer is one call per entry (`--batch-size 1`), side by side in this run.
Each scenario starts from the same store: the entries synced once with rules, then every entry
edited, so each is `changed` and carries its fact as the update candidate. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _prepared_home(base: Path, count: int) -> Path:
    """`count` entries synced with rules, then all edited."""
    import dagster as dg

    from memory_pipeline.launch.execute import run_sync
    from memory_pipeline_tests.support.store_helpers import write_entries
    from memory_pipeline_tests.support.synthetic import synthetic_entries

    home = base / "prepared"
    (home / "config.yaml").parent.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("memory:\n  memory_char_limit: 1000000\n  user_char_limit: 1000000\n")
    entries = synthetic_entries(count, seed=21)
    write_entries(home / "memories" / "MEMORY.md", entries)
    write_entries(home / "memories" / "USER.md", [])
    with dg.instance_for_test() as instance:
        (run,) = run_sync(instance, home, ["default"], resource_config={"extractor": {"extractor": "RULES"}})
        assert run.success, run.error
    write_entries(home / "memories" / "MEMORY.md", [f"{e} 已更新" for e in entries])
    return home


def _step_seconds(instance, run_id: str, step: str) -> float:
    times = {
        e.dagster_event.event_type_value: e.timestamp
        for e in instance.all_logs(run_id)
        if e.dagster_event and e.step_key == step and e.dagster_event.event_type_value in ("STEP_START", "STEP_SUCCESS")
    }
    return times["STEP_SUCCESS"] - times["STEP_START"]


def _scenario(prepared: Path, base: Path, name: str, server, *, batch: int, parallel: int = 1, resync: bool = False) -> dict:
    import dagster as dg

    from memory_pipeline.launch.execute import run_sync

    home = base / name
    shutil.copytree(prepared, home)
    config = {
        "extractor": {"extractor": "OLLAMA", "ollama_host": server.url, "batch_size": batch, "parallel_calls": parallel, "timeout_s": 600.0}
    }
    with dg.instance_for_test() as instance:
        if resync:  # bring everything in first, then measure a run on unchanged files
            (run,) = run_sync(instance, home, ["default"], resource_config=config)
            assert run.success, run.error
        before = len(server.chat_requests)
        started = time.perf_counter()
        (run,) = run_sync(instance, home, ["default"], resource_config=config)
        whole = time.perf_counter() - started
        assert run.success, run.error
        step = _step_seconds(instance, run.run_id, "extracted_facts")
    stored = run.outputs.report
    return {
        "calls": len(server.chat_requests) - before,
        "updated": stored.updated,
        "added": stored.added,
        "step_s": step,
        "whole_s": whole,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100)
    parser.add_argument("--delay", type=float, default=2.0, help="seconds the server takes per chat call")
    args = parser.parse_args()

    from memory_pipeline_tests.support.fake_ollama import FakeOllama

    n, delay = args.entries, args.delay
    with tempfile.TemporaryDirectory() as tmp, FakeOllama(call_delay_s=delay) as server:
        base = Path(tmp)
        prepared = _prepared_home(base, n)
        rows = [
            ("batched (default)", _scenario(prepared, base, "batch10", server, batch=10), math.ceil(n / 10), 10),
            ("batched, 2 parallel calls", _scenario(prepared, base, "parallel", server, batch=10, parallel=2), math.ceil(n / 10), 10),
            ("one call per entry", _scenario(prepared, base, "batch1", server, batch=1), n, 1),
            ("no-change resync", _scenario(prepared, base, "resync", server, batch=10, resync=True), 0, 10),
        ]
    print(f"{n} changed entries, {delay:g} s per call (loopback Ollama), one run")
    print()
    print("| scenario | batch | LLM calls (expected) | facts updated | extraction step | whole sync | step ÷ (calls × delay) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, r, expected, batch in rows:
        floor = r["calls"] * delay
        ratio = f"{r['step_s'] / floor:.2f}×" if floor else "—"
        print(
            f"| {name} | {batch} | {r['calls']} ({expected}) | {r['updated']} | {r['step_s']:.2f} s | {r['whole_s']:.2f} s | {ratio} |",
            flush=True,
        )
        assert r["calls"] == expected, f"{name}: {r['calls']} calls, expected {expected}"
    batched = rows[0][1]
    bound = 1.2 * math.ceil(n / 10) * delay
    print()
    print(
        f"Target: {n} changed entries at batch 10 within 1.2 × {math.ceil(n / 10)} calls' delay = {bound:.1f} s: "
        f"extraction step {batched['step_s']:.2f} s, whole sync {batched['whole_s']:.2f} s "
        f"({'met' if batched['whole_s'] <= bound else 'NOT met'} for the whole sync)."
    )


if __name__ == "__main__":
    main()
