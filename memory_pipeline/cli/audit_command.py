"""`memory-pipeline audit`: the six cross-layer audits and the extra checks, without the UI."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from memory_pipeline import environment
from memory_pipeline.cli.common import (
    CommandError,
    add_cap_target_argument,
    add_home_argument,
    add_profile_arguments,
    hermes_home,
    print_json,
    selected_profiles,
)
from memory_pipeline.lib.audit.checks import fix_command
from memory_pipeline.lib.hermes.profiles import Profile, read_profile
from memory_pipeline.lib.privacy.matching import KeywordList, KeywordListError
from memory_pipeline.lib.store.database import StoreError, opened
from memory_pipeline.lib.store.settings import holographic_settings

if TYPE_CHECKING:
    from memory_pipeline.lib.audit.checks import AuditResult

_LEDGER_CHECKS = {"ledger_integrity"}
_LINK_CHECKS = {"fact_links"}
_INDEX_CHECKS = {"index_consistency"}
_TAG_CHECKS = {"privacy_coverage"}
# A repaired ledger, or rows deleted with the facts they named, leave entries to sync afresh.
_SYNC_CHECKS = {"hashes_fresh", "layer_counts", *_LEDGER_CHECKS, *_LINK_CHECKS}


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


def _audit(profile: Profile, home: Path, keywords: KeywordList, cap_target: float | None = None) -> list[AuditResult]:
    # The audit engine (pandas, DuckDB) is imported by the commands that run it: `--help` stays quick.
    from memory_pipeline.lib.audit.engine import AuditInputs, run_audits

    settings = holographic_settings(profile.home)
    with opened(settings.db_path, create=False, missing_ok=True) as conn:
        return run_audits(
            AuditInputs(
                read_profile(profile),
                conn,
                settings,
                keywords,
                data_dir=environment.data_dir(home),
                profile=profile.name,
                cap_target=profile.cap_target(cap_target),
            )
        )


def _repair(profile: Profile, home, keywords: KeywordList, failing: set[str]) -> tuple[list[str], list[str]]:
    """What was repaired, and what could not be."""
    from memory_pipeline.lib.audit.repairs import repair_indexes, repair_ledger, repair_links, repair_tags

    settings = holographic_settings(profile.home)
    done: list[str] = []
    failed: list[str] = []
    if failing & (_LEDGER_CHECKS | _LINK_CHECKS | _INDEX_CHECKS | _TAG_CHECKS) and settings.db_path.exists():
        with opened(settings.db_path) as conn:
            if failing & _LEDGER_CHECKS:
                stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
                done += repair_ledger(conn, environment.data_dir(home) / "repairs" / f"{profile.name}-ledger-{stamp}.db")
            if failing & (_LEDGER_CHECKS | _LINK_CHECKS):  # rows a ledger repair deleted leave their facts unbacked
                done += repair_links(conn, settings)
            if failing & _INDEX_CHECKS:
                done += repair_indexes(conn, settings)
            if failing & _TAG_CHECKS:
                done += repair_tags(conn, keywords, settings)
    if failing & _SYNC_CHECKS:
        from memory_pipeline.instance import local_instance
        from memory_pipeline.runs import run_sync

        (result,) = run_sync(
            local_instance(home),
            home,
            [profile.name],
            resource_config={"privacy": {"keywords_path": str(keywords.path) if keywords.path and keywords.path.exists() else ""}},
        )
        if result.success:
            done.append("re-synced pending entries")
        else:
            failed.append(f"re-sync of pending entries failed: {result.error}")
    return done, failed


def run(args: argparse.Namespace) -> int:
    from memory_pipeline.lib.audit.report import failing_errors, report_payload

    home = hermes_home(args)
    try:
        keywords = environment.keywords(args.keywords, home)
    except KeywordListError as exc:
        raise CommandError(str(exc)) from None
    profiles = []
    try:
        for profile in selected_profiles(args, home):
            results = _audit(profile, home, keywords, args.cap_target)
            if args.repair:
                failing = {r.name for r in results if not r.passed}
                done, failed = _repair(profile, home, keywords, failing)
                for line in done:
                    print(f"{profile.name}: repaired: {line}", file=sys.stderr if args.json else sys.stdout)
                for line in failed:
                    print(f"{profile.name}: not repaired: {line}", file=sys.stderr)
                results = _audit(profile, home, keywords, args.cap_target) if failing else results
            profiles.append((profile.name, results))
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
                mark = "pass" if r.passed else ("FAIL" if r.severity == "ERROR" else "warn")
                print(f"{name}: {mark:4} {r.name}: {r.detail}")
                if not r.passed:
                    print(f"  fix: {fix_command(r.name, name)}")
            failing = [f"{r.name} ({r.severity})" for r in results if not r.passed]
            print(
                f"{name}: {len(results) - len(failing)} of {len(results)} checks pass"
                + (f"; failing: {', '.join(failing)}" if failing else "")
                + ("" if args.verbose else " (--verbose lists every check)")
            )
    return 0 if ok else 1
