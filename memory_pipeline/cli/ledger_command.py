"""`memory-pipeline ledger export|import PATH`: the 5-column TSV ledger of `memory-sync.sh`, for users coming
from `memory-sync.sh` (their fact ids are kept) or going elsewhere. `-` is standard output (export)
or standard input (import)."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from memory_pipeline.cli.common import CommandError, add_home_argument, add_profile_arguments, command_home, selected_contexts
from memory_pipeline.context.home import ProfileContext
from memory_pipeline.lib.files.reading import UnreadableFile, read_text_file
from memory_pipeline.lib.files.writing import replace_file
from memory_pipeline.lib.store.schema.database import StoreError

STDIO = "-"


def register(commands) -> None:
    parser = commands.add_parser("ledger", help="export or import the ledger as memory-sync.sh's 5-column TSV")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for action, helptext in (
        ("export", "write the active ledger rows of every profile (or --profile) to PATH, - for stdout"),
        ("import", "read a memory-sync.sh ledger from PATH (- for stdin) into --profile"),
    ):
        sub = actions.add_parser(action, help=helptext)
        sub.add_argument("path", metavar="PATH")
        add_home_argument(sub)
        add_profile_arguments(sub)
        sub.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    contexts = selected_contexts(args, command_home(args))
    try:
        return _export(args, contexts) if args.action == "export" else _import(args, contexts)
    except (StoreError, UnreadableFile) as exc:
        raise CommandError(str(exc)) from None


def _export(args: argparse.Namespace, contexts: list[ProfileContext]) -> int:
    """Each profile's rows under a `# profile: NAME` line (a comment to every TSV reader)."""
    from memory_pipeline.services.ledger import export_profile, synced_profiles

    synced = synced_profiles(contexts)
    if not synced:
        raise CommandError(f"no fact store yet for profile {', '.join(c.name for c in contexts)} (run `memory-pipeline sync` first)")
    text, counts = io.StringIO(), []
    for context in synced:
        rows = export_profile(context)
        text.write(f"# profile: {context.name}\n")
        text.writelines(rows)
        counts.append(f"{len(rows)} of profile {context.name}")
    if args.path == STDIO:
        sys.stdout.write(text.getvalue())
        print(f"exported {', '.join(counts)} active ledger rows", file=sys.stderr)
        return 0
    path = Path(args.path)
    replace_file(path, text.getvalue())
    print(f"exported {', '.join(counts)} active ledger rows to {path}")
    return 0


def _profile_section(text: str, profile: str, args: argparse.Namespace) -> str:
    """What of a whole-home export belongs to the profile imported into; a plain TSV as it is."""
    from memory_pipeline.lib.store.reads.ledger_tsv import section_of, sections

    names = sections(text)
    if not names:
        return text
    if len(names) > 1 and not args.profile:
        raise CommandError(f"{args.path}: holds the ledgers of profiles {', '.join(names)}; choose one with --profile")
    if profile not in names:
        raise CommandError(f"{args.path}: holds the ledgers of profiles {', '.join(names)}, not {profile}; nothing imported")
    return section_of(text, profile)


def _import(args: argparse.Namespace, contexts: list[ProfileContext]) -> int:
    from memory_pipeline.services.ledger import import_into, synced_profiles

    if len(contexts) > 1:
        raise CommandError(f"import into which profile? give --profile ({', '.join(c.name for c in contexts)})")
    (context,) = contexts
    if args.path == STDIO:
        text = sys.stdin.read()
    else:
        text = read_text_file(Path(args.path))
        if text is None:
            raise CommandError(f"{args.path}: no such ledger file")
    text = _profile_section(text, context.name, args)
    if not synced_profiles([context]):
        raise CommandError(f"{context.store.path}: fact store does not exist; the ledger's fact ids must point into it")
    report = import_into(context, text)
    print(
        f"imported {report.imported} ledger rows into profile {context.name} "
        f"({report.matched_current} matched entries in the files now, {report.unchanged} already as the ledger holds them, "
        f"{report.superseded} older history rows dropped)"
    )
    if report.not_its_fact:
        print(
            f"left out {report.not_its_fact} rows whose fact is not their entry's (neither its text nor its hash: a ledger from "
            "another store); the next `memory-pipeline sync` writes those entries afresh"
        )
    rejected = report.bad_fact_id + report.missing_fact + report.malformed
    if rejected:
        lines = ", ".join(str(n) for n in report.bad_lines[:20])
        print(
            f"rejected {rejected} rows: {report.bad_fact_id} non-numeric fact_id, {report.missing_fact} fact not in the store, "
            f"{report.malformed} malformed (lines {lines})"
        )
    return 0
