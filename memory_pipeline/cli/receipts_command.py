"""`memory-pipeline receipts`: what each removal took away, newest first (the receipts service)."""

from __future__ import annotations

import argparse

from memory_pipeline.cli.common import CommandError, add_home_argument, add_profile_arguments, command_home, print_json, selected_contexts
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES
from memory_pipeline.lib.store.schema.database import StoreError
from memory_pipeline.services.receipts import profile_receipts


def register(commands) -> None:
    parser = commands.add_parser("receipts", help="list what each removal took away: entry, facts, links, index rows, banks")
    add_home_argument(parser)
    add_profile_arguments(parser)
    parser.add_argument("--run", dest="run_id", metavar="RUN_ID", help="one Dagster run's receipts")
    parser.add_argument("--limit", type=int, default=50, metavar="N", help="at most N per profile, newest first (default: 50)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    home = command_home(args)
    found = {}
    try:
        for context in selected_contexts(args, home):
            found[context.name] = profile_receipts(context, run_id=args.run_id, limit=max(1, args.limit))
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print_json({"profiles": [{"profile": name, "receipts": [r.as_json() for r in rs]} for name, rs in found.items()]})
        return 0
    for name, receipts in found.items():
        print(f"{name}: {len(receipts)} receipt{'s' if len(receipts) != 1 else ''}" + (f" of run {args.run_id}" if args.run_id else ""))
        for r in receipts:
            facts = ", ".join(f"#{i}" for i in r.fact_ids)
            entry = f"an entry of {SOURCE_FILES.get(r.source, r.source)}" if r.source else "no entry named"
            banks = f", banks rebuilt: {', '.join(r.banks)}" if r.banks else ""
            print(f"  {r.at} {r.action} {facts} ({entry}); {r.links} links, {r.index_rows} index rows{banks}; run {r.run_id or '?'}")
    return 0
