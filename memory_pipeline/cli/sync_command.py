"""`memory-pipeline sync`: the sync service for each profile asked for (`services.sync`), its
results said as text, as JSON, or for cron (`--quiet`)."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from memory_pipeline.cli.common import (
    CommandError,
    add_cap_target_argument,
    add_extractor_arguments,
    add_home_argument,
    add_profile_arguments,
    command_home,
    print_json,
    selected_contexts,
)
from memory_pipeline.lib.choices import PRIVACY_POLICIES, REMOVAL_POLICIES, ExtractorMode, PrivacyPolicy, RemovalPolicy, VectorFormat

if TYPE_CHECKING:  # the sync service (Dagster's run machinery) is imported when a sync runs: `--help` stays quick
    from memory_pipeline.runs.options import SyncOptions


def register(commands) -> None:
    parser = commands.add_parser("sync", help="sync the fact store with the memory files (in-process Dagster run)")
    add_home_argument(parser)
    add_profile_arguments(parser, all_flag=True)
    add_extractor_arguments(parser)
    parser.add_argument(
        "--removal-policy",
        choices=REMOVAL_POLICIES,
        default=RemovalPolicy.RETIRE.value,
        help="facts of removed entries: retire (default: kept, tagged retired, below the agent's "
        "prefetch trust), keep (as they are) or delete",
    )
    parser.add_argument(
        "--vector-format",
        choices=[f.value for f in VectorFormat],
        default=VectorFormat.AUTO.value,
        help="HRR vector dialect to write: auto (default: the store's own), legacy (float64, every "
        "Hermes reads it) or hrr1 (float32, current Hermes only)",
    )
    keywords = parser.add_mutually_exclusive_group()
    keywords.add_argument(
        "--keywords",
        metavar="PATH",
        help="privacy keyword list, remembered for the profiles synced (default: $MEMORY_PIPELINE_PRIVACY_KEYWORDS, else the "
        "list named before, else <hermes-home>/memory-pipeline/privacy_keywords.txt)",
    )
    keywords.add_argument(
        "--no-keywords", action="store_true", help="judge with the built-in detectors alone (remembered, like --keywords)"
    )
    parser.add_argument(
        "--privacy-policy",
        choices=PRIVACY_POLICIES,
        help="private facts: hide (below prefetch trust) or tag (tagged, still prefetched); remembered for the profiles synced "
        "(default: the profile's plugins.memory-pipeline.privacy_policy, else the one named before, else hide)",
    )
    parser.add_argument(
        "--embedder",
        metavar="NAME",
        help="what recall by meaning embeds facts with: bundled (the multilingual encoder inside the package), "
        "ollama:MODEL (a local Ollama embedding model, e.g. ollama:bge-m3) or off; a change re-embeds every fact "
        "with a progress bar and stays for later syncs (default: $MEMORY_PIPELINE_EMBEDDER, else the model in force, else bundled)",
    )
    add_cap_target_argument(parser)
    parser.add_argument(
        "--retag", action="store_true", help="only re-check privacy tags and the search index (after editing the keyword list)"
    )
    parser.add_argument("--force", action="store_true", help="run every profile, even one where nothing changed since its last clean sync")
    parser.add_argument(
        "--init", action="store_true", help="sync a home that does not look like a Hermes home yet (no memories/ or config.yaml)"
    )
    parser.add_argument(
        "--reset-state",
        action="store_true",
        help="move a damaged file of the pipeline's own (Dagster instance, history) aside and start it afresh",
    )
    parser.add_argument(
        "--warm",
        action="store_true",
        help="hand the sync to this home's warm worker, started when none runs (what the Hermes plugin's live sync does; "
        "output as --quiet; synced here when no worker can be reached)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--quiet", action="store_true", help="for cron: nothing on a clean sync, one line when a check does not pass (a standing one once)"
    )
    parser.set_defaults(run=run)


def sync_options(args: argparse.Namespace) -> SyncOptions:
    """The options the flags chose (unset ones keep each profile's own settings)."""
    from memory_pipeline.runs.options import SyncOptions

    return SyncOptions(
        extractor=ExtractorMode(args.extractor),
        model=args.model,
        batch_size=args.batch_size,
        ollama_host=args.ollama_host,
        allow_remote_ollama=args.allow_remote_ollama,
        removal_policy=RemovalPolicy(args.removal_policy),
        privacy_policy=PrivacyPolicy(args.privacy_policy) if args.privacy_policy else None,
        vector_format=VectorFormat(args.vector_format),
        cap_target=args.cap_target or None,
        keywords_path=args.keywords,
        no_keywords=args.no_keywords,
        embedder=args.embedder,
    )


def run(args: argparse.Namespace) -> int:
    from memory_pipeline.cli.sync_output import Printer, check_errors
    from memory_pipeline.lib.privacy.matching import KeywordListError
    from memory_pipeline.services.sync import SyncHooks, SyncNotFinished, SyncRequest, sync_profiles

    started = time.perf_counter()
    home = command_home(args)
    contexts = {c.name: c for c in selected_contexts(args, home)}
    if args.warm:
        from memory_pipeline.cli.worker_command import refuse_options, sync_through_worker

        refuse_options(args, sync_options(args).chosen())
        named = [name for name, ctx in contexts.items() if not ctx.store.per_user]
        code = sync_through_worker(home.path, named, retag=args.retag) if named else 0
        if code is not None:
            return code
        args.quiet = True  # no worker could take it: synced here, said the same way
    text = not (args.json or args.quiet)

    def judge_of(name: str):
        """To name private entries by id only, as the run judged them (asked once the service has
        remembered this sync's choice); None when the list cannot load (the run fails with its line)."""
        try:
            return contexts[name].judge if text else None
        except KeywordListError:
            return None

    request = SyncRequest(
        home=home.path,
        profiles={name: ctx.profile for name, ctx in contexts.items()},
        options=sync_options(args),
        retag=args.retag,
        force=args.force,
        reset_state=args.reset_state,
        with_changes=text,
        quiet=args.quiet,
        remember_choice=True,
    )
    printer = Printer(tty=text and sys.stdout.isatty(), asked_extractor=args.extractor, judge_of=judge_of, retag=args.retag)
    hooks = SyncHooks(moved_aside=lambda moved: print(f"memory-pipeline: moved aside {moved}", file=sys.stderr))
    if text:
        hooks = replace(hooks, skipped=printer.skipped, starting=printer.starting, done=printer.done, embedding=printer.embedding)
    try:
        outcome = sync_profiles(request, hooks)
    except SyncNotFinished as exc:
        raise CommandError(str(exc)) from None
    if text and outcome.backfill:
        print(f"re-tagged by Dagster backfill {outcome.backfill} on the running daemon (the UI's Backfills view shows it)")
    lines = outcome.run_problems + [line for name, failing in outcome.failing_to_report().items() for line in check_errors(name, failing)]
    if not (text and args.retag):  # a re-tag's text says it already; a sync, cron and --json hear it here
        for part in outcome.profiles.values():
            if part.run is not None and (unhidden := part.run.retag_change().untagged):
                said = f"{unhidden} facts no longer private under the current keyword list and detectors"
                print(f"memory-pipeline: {part.summary.profile}: {said}", file=sys.stderr)
    for line in lines:
        print(f"memory-pipeline: {line}", file=sys.stderr)
    ok = not lines
    ordered = [part.summary for part in outcome.profiles.values()]
    if args.json:
        print_json(
            {
                "ok": ok,
                "duration_s": round(time.perf_counter() - started, 3),
                "profiles": [summary.as_json() for summary in ordered],
                **({"backfill": outcome.backfill} if outcome.backfill else {}),
            }
        )
    elif args.quiet:
        # For cron: silent when all is well, one line when a check does not pass (errors went to stderr).
        to_report = outcome.failing_to_report()
        findings = [f"{s.profile}: {', '.join(s.failing_checks)}" for s in ordered if s.failing_checks and s.profile in to_report]
        if ok and findings:
            print(f"memory-pipeline: checks not passing: {'; '.join(findings)} (see `memory-pipeline audit`)")
    return 0 if ok else 1
