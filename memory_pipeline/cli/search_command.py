"""`memory-pipeline search QUERY`: substring search over a profile's facts, Chinese included."""

from __future__ import annotations

import argparse

from memory_pipeline.cli.common import CommandError, add_home_argument, add_single_profile_argument, print_json, single_profile
from memory_pipeline.lib.search_index import SearchError, search, sync_search_index
from memory_pipeline.lib.store import StoreError, connect, holographic_settings


def register(commands) -> None:
    parser = commands.add_parser("search", help="find facts containing a Chinese or English substring")
    parser.add_argument("query", metavar="QUERY")
    add_home_argument(parser)
    add_single_profile_argument(parser)
    parser.add_argument("--limit", type=int, default=10, metavar="N", help="at most N results (default: 10)")
    parser.add_argument("--include-private", action="store_true", help="also show facts tagged private-person")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    profile = single_profile(args)
    if args.limit < 1:
        raise CommandError("--limit must be at least 1")
    try:
        conn = connect(holographic_settings(profile.home).db_path, create=False)
        try:
            sync_search_index(conn)  # facts Hermes wrote since the last sync become findable too
            results = search(conn, args.query, limit=args.limit, include_private=args.include_private)
        finally:
            conn.close()
    except (StoreError, SearchError) as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print_json({"results": results})
        return 0
    if not results:
        print("no facts found")
    for r in results:
        print(f"#{r['fact_id']} [{r['category']}] {r['content']}")
    return 0
