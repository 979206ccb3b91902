"""`memory-pipeline mirrors`: the facts shaped like Holographic's mirror of an entry that no entry
backs (what the `mirrors_adopted` check names), and, asked, their retirement or their keeping as
the agent's own. Nothing is written without `--apply`."""

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
    parser = commands.add_parser("mirrors", help="mirror-shaped facts no entry backs: show, retire or keep them")
    add_home_argument(parser)
    add_profile_arguments(parser)
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--retire", action="store_true", help="retire them (tag retired, trust below prefetch): shown first, --apply does it"
    )
    action.add_argument(
        "--keep", action="store_true", help="keep them as the agent's own (never flagged again): shown first, --apply does it"
    )
    parser.add_argument("--apply", action="store_true", help="write what --retire or --keep shows")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def _shown(fact_id: int, content: str, judge) -> str:
    from memory_pipeline.cli.sync_output import entry_title

    private = judge is None or bool(judge.reasons(content))
    return f"#{fact_id} (private)" if private else f'#{fact_id} "{entry_title(content)}"'


def run(args: argparse.Namespace) -> int:
    # The mirror rules read with pandas: imported here, so `--help` and the other commands stay quick.
    from memory_pipeline.services.mirrors import profile_mirrors

    if args.apply and not (args.retire or args.keep):
        raise CommandError("--apply writes what --retire or --keep shows: give one of them")
    home = command_home(args)
    results = []
    for context, judge in contexts_with_judges(args, home):
        try:
            found = profile_mirrors(context, apply=args.apply, keep=args.keep)
        except StoreError as exc:
            raise CommandError(str(exc)) from None
        ids = [row.fact_id for row in found.unexplained]
        results.append({"profile": context.name, "store": str(found.store), "unexplained": ids, "settled": found.settled})
        if not args.json and found.store.is_file():
            _print(context.name, found.unexplained, found.settled, args, judge)
    if args.json:
        print_json({"profiles": results, "action": "retire" if args.retire else "keep" if args.keep else None, "applied": args.apply})
    return 0


def _print(name: str, rows, settled: list[int], args: argparse.Namespace, judge) -> None:
    if not rows:
        print(f"{name}: no mirror-shaped fact without its entry")
        return
    print(
        f"{name}: {len(rows)} facts shaped like Holographic's mirror of an entry that no entry backs, left as the agent's own "
        "(no ledger, journal, drift backup or Hermes session shows they were entries):"
    )
    for row in rows:
        print(f"  {_shown(row.fact_id, row.content, judge)} ({'USER.md' if row.source == 'user' else 'MEMORY.md'} category)")
    verb = "retired" if args.retire else "kept as the agent's own"
    if args.apply:
        print(f"{name}: {len(settled)} {verb}")
    elif args.retire or args.keep:
        print(f"{name}: would be {verb}; add --apply to write it")
    else:
        print(
            f"{name}: each stays as it is; if they are removed entries' leftovers, `memory-pipeline mirrors --profile {name} --retire` "
            "retires them; `--keep` keeps them as the agent's own and stops naming them (each shown first)"
        )
