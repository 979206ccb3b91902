"""`compact` on real memory files: every file of `../shared/corpus/hermes-memories` (never copied
into the repository) over its target at Hermes' default caps (MEMORY.md 2,200, USER.md 1,375
characters), each in a home of its own, synced with the rules extractor and embedded as `sync`
does, then given the pipeline's own proposal at the default target.

    .venv/bin/python benchmarks/bench_compact_real.py [--corpus PATH] [--target 0.8] [--show N]

Prints a Markdown table: each file's share of its cap before and after, entries shortened and
merged, rules among the shortened, titles cut inside a word, empty summaries.
`--show N` prints N before/after pairs per file (for reading, never for the repository).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory_pipeline.cli import main as cli
from memory_pipeline.lib.choices import DEFAULT_CAP_TARGET, compact_target
from memory_pipeline.lib.hermes.memory_files import canonical_chars
from memory_pipeline.lib.hermes.summaries import is_rule, title_and_body
from memory_pipeline.lib.in_hermes.entry_reader import decoded, parse_entries
from memory_pipeline.services.compaction import propose_compaction
from memory_pipeline_tests.support.store_fixture import context_of

CORPUS = ROOT.parent / "shared" / "corpus" / "hermes-memories"
CAPS = {"MEMORY.md": 2200, "USER.md": 1375}


def _over(corpus: Path, target: float) -> list[Path]:
    found = []
    for path in sorted(corpus.glob("*.md")):
        target_name = path.name.rsplit("_", 1)[-1]
        if target_name in CAPS:
            entries = parse_entries(decoded(path.read_bytes()))
            if canonical_chars(entries) > target * CAPS[target_name]:
                found.append(path)
    return found


def _cut_inside_a_word(entry: str) -> bool:
    """Whether the entry's title stops inside a Latin word or token (`market_pos|ition`)."""
    title = title_and_body(entry)[0]
    flat = " ".join(entry.split())
    at = flat.find(title) + len(title)
    return bool(title) and title[-1].isascii() and title[-1].isalnum() and at < len(flat) and flat[at].isascii() and flat[at].isalnum()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--target", type=float, default=compact_target(DEFAULT_CAP_TARGET))
    parser.add_argument("--show", type=int, default=0)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, path in enumerate(_over(args.corpus, args.target)):
            name = path.name.rsplit("_", 1)[-1]
            home = Path(tmp) / f"home{n}"
            (home / "memories").mkdir(parents=True)
            (home / "memories" / name).write_bytes(path.read_bytes())
            cli(["sync", "--hermes-home", str(home), "--quiet", "--extractor", "rules", "--no-keywords"])
            (found,) = [f for f in propose_compaction(context_of(home), args.target) if f.reading.path.name == name]
            proposal = found.proposal
            after = proposal.after if proposal else found.reading.entries
            summaries = [r.summary for r in proposal.rewrites if not r.merged] if proposal else []
            rows.append(
                (
                    f"file {n + 1} ({name})",
                    100 * canonical_chars(found.reading.entries) / CAPS[name],
                    100 * canonical_chars(after) / CAPS[name],
                    len(summaries),
                    sum(len(r.merged) for r in proposal.rewrites) if proposal else 0,
                    sum(is_rule(r.before) for r in proposal.rewrites if not r.merged) if proposal else 0,
                    sum(_cut_inside_a_word(r.before) for r in proposal.rewrites if not r.merged) if proposal else 0,
                    sum(not s for s in summaries),
                )
            )
            for rewrite in (proposal.rewrites if proposal else [])[: args.show]:
                print(f"--- {rows[-1][0]} entry {rewrite.position + 1}\nBEFORE: {rewrite.before}\nAFTER:  {rewrite.after}\n")
    print(f"compact on real files: {len(rows)} files over {100 * args.target:.0f}% of Hermes' default cap\n")
    print("| file | before (% of cap) | after | shortened | copies merged | rules among them | titles cut in a word | empty summaries |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, before, after, shortened, merged, rules, cut, empty in rows:
        print(f"| {label} | {before:.0f} | {after:.0f} | {shortened} | {merged} | {rules} | {cut} | {empty} |")


if __name__ == "__main__":
    main()
