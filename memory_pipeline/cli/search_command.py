"""`memory-pipeline search QUERY`: every profile's facts by letters (substrings, Chinese included)
and by meaning (a question in one language finds a fact written in another), ranked together."""

from __future__ import annotations

import argparse
import sys

from memory_pipeline.cli.common import CommandError, add_home_argument, add_profile_arguments, command_home, print_json, selected_contexts
from memory_pipeline.lib.in_hermes.fact_search import SearchError
from memory_pipeline.lib.store.schema.database import StoreError


def register(commands) -> None:
    parser = commands.add_parser("search", help="find facts by their words (any script) and by their meaning, in every profile")
    parser.add_argument(
        "query",
        metavar="QUERY",
        nargs="+",
        help='words in any order (several words need no quotes); a quoted phrase ("restic 备份", quoted for the shell too) is exact',
    )
    add_home_argument(parser)
    add_profile_arguments(parser)
    parser.add_argument("--limit", type=int, default=10, metavar="N", help="at most N results per profile (default: 10)")
    parser.add_argument(
        "--include-private",
        action="store_true",
        help="show every fact: private, unsafe and not yet judged ones too (for you, never the agent)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from memory_pipeline.services.reading import QueryEncoders, search_profiles

    if args.limit < 1:
        raise CommandError("--limit must be at least 1")
    contexts = selected_contexts(args, command_home(args))
    query = " ".join(args.query)
    try:
        found = search_profiles(
            contexts, query, limit=args.limit, include_private=args.include_private, refresh_index=True, encoders=QueryEncoders(wait=True)
        )
    except (StoreError, SearchError) as exc:
        raise CommandError(str(exc)) from None
    unsynced, results = found.without_store, found.facts
    if len(unsynced) == len(contexts):
        raise CommandError(f"no fact store yet for profile {', '.join(unsynced)} (run `memory-pipeline sync` first)")
    if args.json:
        print_json({"results": results, "private_shown": args.include_private, "profiles_without_store": unsynced})
        return 0
    if not results:
        print("no facts found" + (f" in {', '.join(p for p in unsynced)} (never synced)" if unsynced else ""))
    for r in results:
        marks = " (retired: its entry was removed)" if r["retired"] else ""
        marks += " (by meaning)" if r.get("matched") == ["meaning"] else ""
        print(f"{r['profile']} #{r['fact_id']} [{r['category']}]{marks} {r['content']}")
        if r["tags"]:
            print(f"    tags: {r['tags']}")
    if not args.include_private:
        print("private and unsafe facts, and facts not judged yet, are not shown (--include-private shows every fact)", file=sys.stderr)
    return 0
