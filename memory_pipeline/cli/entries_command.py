"""`memory-pipeline entries`: how the pipeline reads the memory files, with hashes and findings."""

from __future__ import annotations

import argparse
import sys

from memory_pipeline.cli.common import add_home_argument, add_profile_arguments, command_home, print_json, selected_contexts
from memory_pipeline.lib.hermes.hashing import entry_id, entry_sha256
from memory_pipeline.lib.hermes.memory_files import SourceReading
from memory_pipeline.lib.hermes.profiles import read_profile


def register(commands) -> None:
    parser = commands.add_parser("entries", help="show how the pipeline reads MEMORY.md and USER.md")
    add_home_argument(parser)
    add_profile_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def source_payload(reading: SourceReading) -> dict:
    return {
        "source": reading.source,
        "path": str(reading.path),
        "exists": reading.exists,
        "chars": reading.chars,
        "limit": reading.limit,
        "hermes_entry_count": len(reading.hermes_entries),
        "entries": [
            {"entry_id": entry_id(reading.source, sha), "position": position, "sha256": sha, "chars": len(text), "text": text}
            for position, text in enumerate(reading.entries, start=1)
            for sha in [entry_sha256(text)]
        ],
        "findings": [{"code": f.code, "detail": f.detail} for f in reading.findings],
    }


def run(args: argparse.Namespace) -> int:
    home = command_home(args)
    profiles = [(p, read_profile(p)) for p in (c.profile for c in selected_contexts(args, home))]
    unreadable = [r for _, readings in profiles for r in readings if not r.readable]
    for reading in unreadable:
        print(f"memory-pipeline: {reading.error}", file=sys.stderr)
    if args.json:
        print_json({"profiles": [{"profile": p.name, "sources": [source_payload(r) for r in readings]} for p, readings in profiles]})
    else:
        for profile, readings in profiles:
            _print_table(profile.name, readings)
    return 1 if unreadable else 0


def _print_table(profile: str, readings: list[SourceReading]) -> None:
    for r in readings:
        state = "missing" if not r.exists else "unreadable" if not r.readable else f"{len(r.entries)} entries"
        print(
            f"{profile}/{r.path.name}: {state}, {r.chars}/{r.limit} chars ({100 * r.cap_usage:.0f}%), Hermes reads {len(r.hermes_entries)}"
        )
        for position, text in enumerate(r.entries, start=1):
            preview = text.replace("\n", " ")
            preview = preview if len(preview) <= 60 else preview[:59] + "…"
            print(f"  {position:>3}  {entry_id(r.source, entry_sha256(text))}  {len(text):>5}  {preview}")
        for f in r.findings:
            print(f"  ! {f.code}: {f.detail}")
