"""`memory-pipeline sync`: run `memory_sync_job` in-process for each profile, as the UI would."""

from __future__ import annotations

import argparse
import sys
import time

from memory_pipeline.cli.common import (
    add_extractor_arguments,
    add_home_argument,
    add_profile_arguments,
    extractor_config,
    hermes_home,
    print_json,
    selected_profiles,
)
from memory_pipeline.lib.privacy_tagging import PRIVACY_POLICIES
from memory_pipeline.lib.sync_writer import REMOVAL_POLICIES
from memory_pipeline.lib.vector_codec import VectorFormat

RETAG_ASSETS = ["privacy_tags", "fts_index", "audit_report"]


def register(commands) -> None:
    parser = commands.add_parser("sync", help="sync the fact store with the memory files (in-process Dagster run)")
    add_home_argument(parser)
    add_profile_arguments(parser, all_flag=True)
    add_extractor_arguments(parser)
    parser.add_argument("--removal-policy", choices=REMOVAL_POLICIES, default="keep",
                        help="facts of removed entries: keep (default), retire (below prefetch trust) or delete")
    parser.add_argument("--vector-format", choices=[f.value for f in VectorFormat], default=VectorFormat.AUTO.value,
                        help="HRR vector dialect to write: auto (default: the store's own), legacy (float64, every "
                             "Hermes reads it) or hrr1 (float32, current Hermes only)")
    parser.add_argument("--keywords", metavar="PATH",
                        help="privacy keyword list (default: $MEMORY_PIPELINE_PRIVACY_KEYWORDS, else "
                             "<hermes-home>/memory-pipeline/privacy_keywords.txt, else the demo list)")
    parser.add_argument("--privacy-policy", choices=PRIVACY_POLICIES, default="tag",
                        help="private facts: tag (default) or hide (also below prefetch trust)")
    parser.add_argument("--retag", action="store_true",
                        help="only re-check privacy tags and the search index (after editing the keyword list)")
    parser.add_argument("--init", action="store_true",
                        help="sync a home that does not look like a Hermes home yet (no memories/ or config.yaml)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quiet", action="store_true",
                        help="for cron: nothing on a clean sync, one line when a check does not pass")
    parser.set_defaults(run=run)


def profile_summary(run) -> dict:
    """The stable `--json` shape of one profile's run (README, `sync --json`)."""
    extracted = run.metadata.get("extracted_facts", {})
    stored = run.metadata.get("fact_store", {})
    tagged = run.metadata.get("privacy_tags", {})
    return {
        "profile": run.profile,
        "extractor": str(extracted.get("extractor", "")),
        "extractor_reason": str(extracted.get("extractor_reason", "")),
        "model": str(extracted.get("model", "")),
        "added": int(stored.get("added", 0)),
        "updated": int(stored.get("updated", 0)),
        "unchanged": int(stored.get("unchanged", 0)),
        "removed": int(stored.get("removed", 0)),
        "quarantined": int(stored.get("quarantined", 0)),
        "llm_calls": int(extracted.get("llm_calls", 0)),
        "facts_total": int(stored.get("facts_total", 0)),
        "store": str(stored.get("store", "")),
        "private_facts": int(tagged.get("private_facts", 0)),
        "failing_checks": sorted(run.failing_errors + run.failing_warnings),
        "error": run.error,
    }


def _problems(run) -> list[str]:
    """One line per thing the user must look at; empty for a clean run."""
    if run.error:
        return [f"sync of profile {run.profile} failed: {run.error}"]
    problems = []
    parsed = run.metadata.get("parsed_entries", {})
    if parsed.get("unreadable"):
        problems.append(f"profile {run.profile}: skipped, entries held: {parsed['unreadable']} "
                        f"(see `memory-pipeline entries --profile {run.profile}`)")
    held = int(run.metadata.get("ledger_diff", {}).get("held_unreadable_entries", 0))
    if held and parsed.get("missing"):
        problems.append(f"profile {run.profile}: {held} synced entries held because {parsed['missing']} is missing; "
                        "create it (even empty) to let them go")
    if run.failing_errors:
        problems.append(f"profile {run.profile}: audit failed: {', '.join(run.failing_errors)} (see `memory-pipeline audit`)")
    return problems


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    home = hermes_home(args)
    profiles = [p.name for p in selected_profiles(args, home)]
    # Dagster is imported only by the commands that run it: `entries` stays instant.
    from memory_pipeline.instance import local_instance
    from memory_pipeline.runs import run_sync

    runs = run_sync(
        local_instance(home), home, profiles,
        resource_config={
            "extractor": extractor_config(args),
            "store": {"removal_policy": args.removal_policy, "vector_format": VectorFormat(args.vector_format).name},
            "privacy": {"keywords_path": str(args.keywords or ""), "policy": args.privacy_policy},
        },
        assets=RETAG_ASSETS if args.retag else None,
    )
    problems = [line for r in runs for line in _problems(r)]
    ok = not problems
    for line in problems:
        print(f"memory-pipeline: {line}", file=sys.stderr)
    summaries = [profile_summary(r) for r in runs]
    if args.json:
        print_json({"ok": ok, "duration_s": round(time.perf_counter() - started, 3), "profiles": summaries})
    elif args.quiet:
        # For cron: silent when all is well, one line when a check does not pass (errors went to stderr).
        findings = [f"{s['profile']}: {', '.join(s['failing_checks'])}" for s in summaries if s["failing_checks"]]
        if ok and findings:
            print(f"memory-pipeline: checks not passing: {'; '.join(findings)} (see `memory-pipeline audit`)")
    else:
        for s in summaries:
            if s["error"]:
                continue
            if args.retag:
                print(f"{s['profile']}: re-tagged, {s['private_facts']} private facts")
                continue
            print(f"{s['profile']}: {s['added']} added, {s['updated']} updated, {s['unchanged']} unchanged, "
                  f"{s['removed']} removed, {s['quarantined']} pending; {s['facts_total']} facts "
                  f"({s['extractor']}, {s['private_facts']} private) in {s['store']}")
            if s["llm_calls"] or s["extractor"] != args.extractor:
                # Which extractor ran and why, whenever it was not simply the one asked for.
                print(f"  extractor: {s['extractor']}{' ' + s['model'] if s['model'] else ''}, "
                      f"{s['llm_calls']} LLM calls; {s['extractor_reason']}")
            if s["failing_checks"]:
                print(f"  checks not passing: {', '.join(s['failing_checks'])}")
    return 0 if ok else 1
