"""`memory-pipeline audit`: the six cross-layer audits and the extra checks, without the UI."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from memory_pipeline.cli.common import (
    CommandError,
    add_cap_target_argument,
    add_home_argument,
    add_profile_arguments,
    command_home,
    print_json,
    selected_contexts,
)
from memory_pipeline.context.home import privacy_judge
from memory_pipeline.lib.audit.checks import fix_command
from memory_pipeline.lib.store.schema.database import StoreError

if TYPE_CHECKING:
    pass


def register(commands) -> None:
    parser = commands.add_parser("audit", help="run the cross-layer audits; exit 1 when an ERROR check fails")
    add_home_argument(parser)
    add_profile_arguments(parser)
    parser.add_argument("--keywords", metavar="PATH", help="privacy keyword list (same lookup as `sync`)")
    parser.add_argument(
        "--repair",
        action="store_true",
        help="fix what is safe to fix mechanically (malformed ledger rows, saved first; ghost facts, dangling links; "
        "FTS rebuild, vectors and banks, tags, pending entries)",
    )
    add_cap_target_argument(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--verbose", action="store_true", help="list the checks that pass too")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # The audit engine (pandas, DuckDB) is imported by the command that runs it: `--help` stays quick.
    from memory_pipeline.lib.audit.report import failing_errors, report_payload
    from memory_pipeline.lib.privacy.choice import Told
    from memory_pipeline.lib.privacy.matching import KeywordListError
    from memory_pipeline.services.audit import audit_profile, repair_profile

    home = command_home(args)
    told = Told(keywords=args.keywords)
    profiles = []
    try:
        for context in selected_contexts(args, home):
            profile = context.profile
            try:
                judge = privacy_judge(profile, home.path, told)
            except KeywordListError as exc:
                raise CommandError(str(exc)) from None
            results = audit_profile(context, judge, args.cap_target)
            if args.repair:
                failing = {r.name for r in results if not r.passed}
                done, failed = repair_profile(context, judge, failing)
                for line in done:
                    print(f"{profile.name}: repaired: {line}", file=sys.stderr if args.json else sys.stdout)
                for line in failed:
                    print(f"{profile.name}: not repaired: {line}", file=sys.stderr)
                results = audit_profile(context, judge, args.cap_target) if failing else results
            profiles.append((profile.name, results))
            sharers = [c.name for c in context.sharers]
            if sharers and not args.json:
                print(
                    f"{profile.name}: store shared with profile {', '.join(sharers)}; only {profile.name}'s entries are checked here, "
                    "and its facts are judged with the union of their keyword lists and detectors (the strictest verdict wins)"
                )
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    ok = not any(failing_errors(results) for _, results in profiles)
    if args.json:
        print_json({"ok": ok, "profiles": [report_payload(name, results) for name, results in profiles]})
    else:
        for name, results in profiles:
            for r in results:
                if r.passed and not args.verbose:
                    continue
                mark = "pass" if r.passed else ("FAIL" if r.severity == "ERROR" else "pending" if r.pending else "warn")
                print(f"{name}: {mark:4} {r.name}: {r.detail}")
                if not r.passed:
                    print(f"  fix: {fix_command(r.name, name, r.pending)}")
            failed = [f"{r.name} ({'pending' if r.pending else r.severity})" for r in results if not r.passed]
            print(
                f"{name}: {len(results) - len(failed)} of {len(results)} checks pass"
                + (f"; failing: {', '.join(failed)}" if failed else "")
                + ("" if args.verbose else " (--verbose lists every check)")
            )
    return 0 if ok else 1
