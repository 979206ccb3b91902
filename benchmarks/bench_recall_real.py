"""Recall on real memory files: the frozen set of `recall_real_set.py` over the corpus in
`../shared/corpus/hermes-memories` (never copied into the repository).

    .venv/bin/python benchmarks/bench_recall_real.py [--corpus PATH]

Each corpus repository becomes one profile home, synced by the pipeline's own stages with the
rules extractor, then embedded with the bundled encoder (`embed_facts`). Each question goes to
what the `pre_llm_call` hook adds (`recalled_facts`: letters, then meaning), to the hook by letters
alone (`message_facts`) and to Hermes 0.19.0's `HolographicMemoryProvider.prefetch` on the same
store. Named: an intended entry's fact is added; quiet: a question naming nothing adds nothing, in
every profile. Prints a Markdown table, per kind, with the set's digest.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import recall_real_set as SET
from bench_search import sync_store

from memory_pipeline.lib.extraction.embedders import EmbedderChoice
from memory_pipeline.lib.in_hermes import meaning, recall
from memory_pipeline.lib.in_hermes.entry_reader import decoded, parse_entries
from memory_pipeline.lib.in_hermes.fact_search import message_facts
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.schema.database import connect
from memory_pipeline.lib.store.settings import holographic_settings
from memory_pipeline.lib.sync.embedding import embed_facts
from memory_pipeline_tests.support.hermes_oracle import hermes_memory

CORPUS = ROOT.parent / "shared" / "corpus" / "hermes-memories"


def corpus_home(tmp: Path, corpus: Path, name: str) -> tuple[Path, dict[tuple[str, int], int]]:
    """One profile home of a corpus repository's files, synced and embedded; each entry's fact id."""
    home = tmp / name
    (home / "memories").mkdir(parents=True)
    for target, source in zip(("MEMORY.md", "USER.md"), SET.PROFILES[name], strict=True):
        if source:
            shutil.copyfile(corpus / source, home / "memories" / target)
    (home / "config.yaml").write_text("memory:\n  memory_char_limit: 100000\n  user_char_limit: 100000\n", encoding="utf-8")
    sync_store(home)
    settings = holographic_settings(home)
    conn = connect(settings.db_path)
    embed_facts(FactStore(conn, settings), EmbedderChoice())
    facts = {content: fact_id for fact_id, content in conn.execute("SELECT fact_id, content FROM facts")}
    conn.close()
    ids = {}
    for key, source in zip(("memory", "user"), SET.PROFILES[name], strict=True):
        if source:
            for index, entry in enumerate(parse_entries(decoded((corpus / source).read_bytes()))):
                ids[(key, index)] = facts.get(entry, 0)
    return home, ids


def _answers(conn, db: Path, contents: dict[int, str], hermes) -> dict:
    """What each surface adds for a question, as fact ids."""
    return {
        "hook": lambda q: {f["fact_id"] for f in recall.recalled_facts(conn, q, recall.bundled_meaning(conn, db, q))},
        "letters": lambda q: {f["fact_id"] for f in message_facts(conn, q)},
        "prefetch": lambda q: {i for i, c in contents.items() if c and c in hermes.provider.prefetch(q)},
    }


def _share(n: int, of: int) -> str:
    return f"{n}/{of} ({100 * n / of:.0f}%)"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    corpus = parser.parse_args().corpus
    meaning.load_bundled()
    named: dict[str, Counter] = {"hook": Counter(), "letters": Counter(), "prefetch": Counter()}
    quiet: dict[str, set[str]] = {"hook": set(), "letters": set(), "prefetch": set()}
    with tempfile.TemporaryDirectory() as tmp:
        homes = {name: corpus_home(Path(tmp), corpus, name) for name in SET.PROFILES}
        for name, (home, ids) in homes.items():
            db = home / "memory_store.db"
            conn = connect(db, create=False)
            contents = dict(conn.execute("SELECT fact_id, content FROM facts").fetchall())
            with hermes_memory(home) as hermes:
                answers = _answers(conn, db, contents, hermes)
                for kind, profile, question, keys in SET.NAMED:
                    if profile == name:
                        wanted = {ids.get(tuple(k), 0) for k in keys}
                        for way, answer in answers.items():
                            named[way][kind] += bool(answer(question) & wanted)
                for question in SET.NAMES_NOTHING:
                    for way, answer in answers.items():
                        if answer(question):
                            quiet[way].add(question)
            conn.close()
    kinds = Counter(kind for kind, *_ in SET.NAMED)
    print(
        f"recall set {SET.digest()}: {len(SET.NAMED)} questions naming an entry, "
        f"{len(SET.NAMES_NOTHING)} naming nothing (each asked of all {len(SET.PROFILES)} profiles)"
    )
    print("| surface | Chinese | English | cross-language | named in all | quiet |")
    print("|---|---:|---:|---:|---:|---:|")
    labels = {
        "hook": "hook, letters then meaning (`recalled_facts`)",
        "letters": "hook by letters alone (`message_facts`)",
        "prefetch": "Holographic `prefetch` (Hermes 0.19.0)",
    }
    for way, label in labels.items():
        cells = [_share(named[way][k], kinds[k]) for k in ("zh", "en", "cross")]
        total, calm = sum(named[way].values()), len(SET.NAMES_NOTHING) - len(quiet[way])
        print(f"| {label} | {' | '.join(cells)} | {_share(total, len(SET.NAMED))} | {_share(calm, len(SET.NAMES_NOTHING))} |")


if __name__ == "__main__":
    main()
