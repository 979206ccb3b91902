"""`memory-pipeline sync`: run `memory_sync_job` in-process for each profile, as the UI would."""

from __future__ import annotations

import argparse
import sys
import time

from memory_pipeline.cli.common import add_home_argument, add_profile_arguments, hermes_home, print_json, selected_profiles


def register(commands) -> None:
    parser = commands.add_parser("sync", help="sync the fact store with the memory files (in-process Dagster run)")
    add_home_argument(parser)
    add_profile_arguments(parser, all_flag=True)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quiet", action="store_true", help="print nothing on success")
    parser.set_defaults(run=run)


def _profile_summary(run) -> dict:
    parsed = run.metadata.get("parsed_entries", {})
    return {
        "profile": run.profile,
        "ok": run.success and not parsed.get("unreadable_files"),
        "entries": int(parsed.get("dagster/row_count", 0)),
        "memory_cap_usage_pct": float(parsed.get("memory_cap_usage_pct", 0.0)),
        "user_cap_usage_pct": float(parsed.get("user_cap_usage_pct", 0.0)),
        "findings": int(parsed.get("memory_findings", 0) + parsed.get("user_findings", 0)),
        "unreadable_files": int(parsed.get("unreadable_files", 0)),
        "run_id": run.run_id,
        "error": run.error,
    }


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    home = hermes_home(args)
    profiles = [p.name for p in selected_profiles(args, home)]
    # Dagster is imported only by the commands that run it: `entries` stays instant.
    from memory_pipeline.definitions import defs
    from memory_pipeline.instance import local_instance
    from memory_pipeline.runs import run_sync

    runs = run_sync(defs, local_instance(home), home, profiles)
    summaries = [_profile_summary(r) for r in runs]
    ok = all(s["ok"] for s in summaries)
    for s in summaries:
        if s["error"]:
            print(f"memory-pipeline: sync of profile {s['profile']} failed: {s['error']}", file=sys.stderr)
        elif s["unreadable_files"]:
            print(f"memory-pipeline: profile {s['profile']}: {s['unreadable_files']} memory file(s) unreadable, "
                  "skipped (see `memory-pipeline entries`)", file=sys.stderr)
    if args.json:
        print_json({"ok": ok, "duration_s": round(time.perf_counter() - started, 3), "profiles": summaries})
    elif not (args.quiet and ok):
        for s in summaries:
            status = "ok" if s["ok"] else "FAILED"
            print(f"{s['profile']}: {status}, {s['entries']} entries, MEMORY.md {s['memory_cap_usage_pct']:.0f}% "
                  f"/ USER.md {s['user_cap_usage_pct']:.0f}% of cap, {s['findings']} format findings")
    return 0 if ok else 1
