"""`memory-pipeline drift`: the synced facts the agent changed (`fact_store update`), what the
`facts_match_entries` check names, each with its entry; asked, each kept as the agent's own fact
(`--keep`: its entry gets a fresh fact at the next sync) or given its entry's text back
(`--restore`). Nothing is written without `--apply`."""

from __future__ import annotations

import argparse

from memory_pipeline.cli.common import (
    CommandError,
    add_home_argument,
    add_profile_arguments,
    command_home,
    contexts_with_judges,
    print_json,
)
from memory_pipeline.lib.store.schema.database import StoreError


def register(commands) -> None:
    parser = commands.add_parser("drift", help="synced facts the agent changed: show them, keep the agent's text or restore the entry's")
    add_home_argument(parser)
    add_profile_arguments(parser)
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--keep", action="store_true", help="keep the agent's text as its own fact; the entry gets a fresh fact at the next sync"
    )
    action.add_argument("--restore", action="store_true", help="write the entry's text back into the fact (id kept)")
    parser.add_argument("--apply", action="store_true", help="write what --keep or --restore shows")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from memory_pipeline.services.drift import profile_drift

    if args.apply and not (args.keep or args.restore):
        raise CommandError("--apply writes what --keep or --restore shows: give one of them")
    home = command_home(args)
    results = []
    for context, judge in contexts_with_judges(args, home):
        try:
            found = profile_drift(context, apply=args.apply, restore=args.restore)
        except StoreError as exc:
            raise CommandError(str(exc)) from None
        facts = [{"fact_id": d.fact_id, "entries": list(d.entry_ids)} for d in found.drifted]
        results.append({"profile": context.name, "store": str(found.store), "changed": facts, "settled": found.settled})
        if not args.json:
            _print(context.name, found, args, judge)
    if args.json:
        print_json({"profiles": results, "action": "keep" if args.keep else "restore" if args.restore else None, "applied": args.apply})
    return 0


def _print(name: str, found, args: argparse.Namespace, judge) -> None:
    from memory_pipeline.cli.sync_output import entry_title

    if not found.drifted:
        print(f"{name}: every synced fact holds the text its entry gave it")
        return
    print(f"{name}: {len(found.drifted)} synced facts changed outside the memory files (the agent's fact_store update?):")
    for fact in found.drifted:
        private = judge is None or bool(judge.reasons(fact.written))
        entry = "an entry (private)" if private else f'"{entry_title(fact.written)}"'
        print(f"  #{fact.fact_id}, written from {entry} ({', '.join(fact.entry_ids)})")
    verb = "given the entry's text back" if args.restore else "kept as the agent's own"
    if args.apply:
        print(f"{name}: {len(found.settled)} {verb}; `memory-pipeline sync --profile {name}` brings the store in step")
    elif args.keep or args.restore:
        print(f"{name}: would be {verb}; add --apply to write it")
    else:
        print(f"{name}: `memory-pipeline drift --profile {name} --keep` keeps the agent's text, `--restore` the entry's (each shown first)")
