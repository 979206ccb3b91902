"""Recall of what a message names: the plugin's hook against Holographic's own prefetch.

    .venv/bin/python benchmarks/bench_recall.py

On the demo's `default` profile plus entries in Chinese, Japanese, Korean and English (the test
corpus's `RECALL_ENTRIES`), synced by the pipeline's own stages, each of the labelled natural
questions goes to the pipeline's `message_facts` (what the `pre_llm_call` hook adds) and to
Hermes 0.19.0's `HolographicMemoryProvider.prefetch` on the same store; the hook is measured as it runs (letters,
then meaning with the bundled encoder) and by letters alone. Counted: the questions
naming a fact where the intended fact is added, the questions naming none where nothing is added,
and how many facts a turn is given. Prints a Markdown table.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_search import sync_store  # noqa: E402

from memory_pipeline.lib.extraction.embedders import EmbedderChoice  # noqa: E402
from memory_pipeline.lib.in_hermes import meaning, recall  # noqa: E402
from memory_pipeline.lib.in_hermes.fact_search import message_facts  # noqa: E402
from memory_pipeline.lib.store.fact_store import FactStore  # noqa: E402
from memory_pipeline.lib.store.schema.database import connect  # noqa: E402
from memory_pipeline.lib.store.settings import holographic_settings  # noqa: E402
from memory_pipeline.lib.sync.embedding import embed_facts  # noqa: E402
from memory_pipeline_tests.support.hermes_oracle import hermes_memory  # noqa: E402
from memory_pipeline_tests.support.recall_questions import NAMED, NAMES_NOTHING, RECALL_ENTRIES  # noqa: E402
from memory_pipeline_tests.support.repository import DEMO_HERMES_HOME  # noqa: E402
from memory_pipeline_tests.support.search_queries import title_of  # noqa: E402
from memory_pipeline_tests.support.store_helpers import read_entries, write_entries  # noqa: E402


def recall_home(tmp: Path) -> Path:
    home = tmp / "recall"
    shutil.copytree(DEMO_HERMES_HOME, home, ignore=shutil.ignore_patterns("memory_store.db*", "memory-pipeline", "profiles"))
    memory = home / "memories" / "MEMORY.md"
    write_entries(memory, read_entries(memory) + RECALL_ENTRIES)
    (home / "config.yaml").write_text("memory:\n  memory_char_limit: 100000\n", encoding="utf-8")
    sync_store(home)
    with FactStore.opened(holographic_settings(home)) as store:
        embed_facts(store, EmbedderChoice())  # the sync's fact_embeddings step, with the bundled encoder
    return home


def _prefetched_titles(text: str, titles: set[str]) -> set[str]:
    """The facts a prefetch block holds, by title (each of its lines is `- [trust] content`)."""
    lines = [line.split("] ", 1)[1] for line in text.splitlines() if line.startswith("- [")]
    return {title_of(line) for line in lines} & titles


def score(answer) -> tuple[int, int, float]:
    """(intended fact added, of the questions naming one; nothing added, of those naming none; facts per turn)."""
    found = sum(title in answer(question) for question, title in NAMED)
    quiet = sum(not answer(question) for question in NAMES_NOTHING)
    per_turn = sum(len(answer(q)) for q, _ in NAMED) / len(NAMED)
    return found, quiet, per_turn


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = recall_home(Path(tmp))
        db = home / "memory_store.db"
        conn = connect(db, create=False)
        meaning.load_bundled()
        titles = {title_of(r[0]) for r in conn.execute("SELECT content FROM facts")}
        letters = score(lambda q: {title_of(f["content"]) for f in message_facts(conn, q)})
        hook = score(lambda q: {title_of(f["content"]) for f in recall.recalled_facts(conn, q, recall.bundled_meaning(conn, db, q))})
        conn.close()
        with hermes_memory(home) as hermes:
            theirs = score(lambda q: _prefetched_titles(hermes.provider.prefetch(q), titles))
    print(
        f"| {len(NAMED)} questions naming a fact, {len(NAMES_NOTHING)} naming none | intended fact added | nothing added | facts per turn |"
    )
    print("|---|---:|---:|---:|")
    for label, (found, quiet, per_turn) in (
        ("memory-pipeline hook, letters then meaning (`recalled_facts`)", hook),
        ("memory-pipeline hook by letters alone (`message_facts`)", letters),
        ("Holographic `prefetch` (Hermes 0.19.0)", theirs),
    ):
        print(
            f"| {label} | {found} ({100 * found / len(NAMED):.0f}%) | {quiet} ({100 * quiet / len(NAMES_NOTHING):.0f}%) | {per_turn:.1f} |"
        )


if __name__ == "__main__":
    main()
