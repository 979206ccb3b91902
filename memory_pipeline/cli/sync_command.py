"""`memory-pipeline sync`: run `memory_sync_job` in-process for each profile, as the UI would;
a profile where nothing can have changed since its last clean sync is skipped without a run."""

from __future__ import annotations

import argparse
import sys
import time

from memory_pipeline.cli.common import (
    CommandError,
    add_cap_target_argument,
    add_extractor_arguments,
    add_home_argument,
    add_profile_arguments,
    extractor_config,
    hermes_home,
    print_json,
    remote_ollama_allowed,
    selected_profiles,
)
from memory_pipeline.cli.sync_output import (
    Printer,
    check_errors,
    profile_summary,
    retry_can_fix,
    run_problems,
    skipped_summary,
)
from memory_pipeline.lib.choices import PRIVACY_POLICIES, REMOVAL_POLICIES, PrivacyPolicy, RemovalPolicy, VectorFormat
from memory_pipeline.lib.hermes.profiles import pipeline_data_dir
from memory_pipeline.lib.privacy.matching import KeywordListError, keyword_list_path, load_keyword_list
from memory_pipeline.lib.sync.state import (
    already_said,
    config_digest,
    current_state,
    forget,
    record,
    recorded,
    standing_digest,
    state_of_run,
)


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
    parser.add_argument(
        "--keywords",
        metavar="PATH",
        help="privacy keyword list (default: $MEMORY_PIPELINE_PRIVACY_KEYWORDS, else "
        "<hermes-home>/memory-pipeline/privacy_keywords.txt; without one, the built-in detectors alone)",
    )
    parser.add_argument(
        "--privacy-policy", choices=PRIVACY_POLICIES, default="tag", help="private facts: tag (default) or hide (also below prefetch trust)"
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
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--quiet", action="store_true", help="for cron: nothing on a clean sync, one line when a check does not pass (a standing one once)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    with remote_ollama_allowed(args.allow_remote_ollama):
        return _sync(args)


def _sync(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    home = hermes_home(args)
    profiles = {p.name: p for p in selected_profiles(args, home)}
    data_dir = pipeline_data_dir(home)
    keywords = keyword_list_path(args.keywords, home)
    resource_config = {
        **({"hermes": {"cap_target": args.cap_target}} if args.cap_target else {}),
        "extractor": extractor_config(args),
        "store": {"removal_policy": RemovalPolicy(args.removal_policy).name, "vector_format": VectorFormat(args.vector_format).name},
        "privacy": {"keywords_path": str(args.keywords or ""), "policy": PrivacyPolicy(args.privacy_policy).name},
    }
    settings = {"resources": resource_config, "retag": args.retag}
    # Nothing to do where the files, the store, the keyword list and the settings are exactly as
    # the last clean sync read them: no Dagster run, not even its import.
    records = {} if args.force or args.retag else {name: recorded(data_dir, name) for name in profiles}
    skipped = [
        name
        for name, record_ in records.items()
        if (now := current_state(profiles[name], keywords, settings)) is not None and now == record_.state
    ]
    configs = {name: config_digest(profile) for name, profile in profiles.items() if name not in skipped}
    text = not (args.json or args.quiet)
    try:  # to name private entries by id only; a list that cannot load fails the run itself, with its line
        loaded = load_keyword_list(args.keywords, home) if text or args.retag else None
    except KeywordListError:
        loaded = None  # the run fails before writing, with the list's one-line problem: nothing to name
    names_keywords = loaded if text else None
    printer = Printer(tty=text and sys.stdout.isatty(), asked_extractor=args.extractor, keywords=names_keywords, retag=args.retag)
    # Per profile, the checks left failing: a skipped profile's stand as its recorded run left them.
    failing = {name: records[name].failing for name in skipped}
    summaries: dict[str, dict] = {name: skipped_summary(home, profiles[name], failing[name]) for name in skipped}
    lines: list[str] = []
    if text:
        for name in skipped:
            printer.skipped(name, failing[name])

    def done(profile_run) -> None:
        name, profile = profile_run.profile, profiles[profile_run.profile]
        summaries[name] = profile_summary(profile_run)
        blocked = profile_run.stopped_by_a_blocking_check  # said by the check's own line below
        if profile_run.success or blocked:
            failing[name] = profile_run.failing
        if not blocked:
            lines.extend(run_problems(profile_run))
        # What the run read is what the next sync compares with; its failing checks stand. A run
        # a blocking check stopped wrote nothing and read no store for its audit: the inputs now
        # (while the ledger stays corrupt, no run could write anything they hold). A retry may
        # end otherwise (quarantined entries are retried): nothing recorded, the next sync runs.
        if retry_can_fix(profile_run):
            state = None
        elif blocked:
            state = current_state(profile, keywords, settings)
        else:
            state = (read := profile_run.inputs_read()) and state_of_run(profile, keywords, settings, read, configs[name])
        if state:
            record(data_dir, name, state, profile_run.run_id, failing[name])
        else:  # also a re-tag (no files read), or another writer wrote during the run
            forget(data_dir, name)
        if text:
            printer.done(profile_run, summaries[name])

    to_run = [name for name in profiles if name not in skipped]
    backfill = None
    if to_run:
        # Dagster is imported only when a profile runs: a no-change sync and `entries` stay quick.
        from memory_pipeline.backfill_runs import BackfillNotFinished, daemon_runs_backfills, run_retag_backfill
        from memory_pipeline.defs.backfills import RETAG_ASSETS
        from memory_pipeline.instance import local_instance
        from memory_pipeline.runs import run_sync

        instance = local_instance(
            home, reset_damaged=args.reset_state, on_reset=lambda moved: print(f"memory-pipeline: moved aside {moved}", file=sys.stderr)
        )
        if args.retag and loaded is not None and daemon_runs_backfills(instance):
            # A daemon is running (the UI, a server): the re-tag is the same backfill the keyword
            # sensor launches, shown in the Backfills view, and waited for here.
            try:
                backfill, _ = run_retag_backfill(
                    instance, home, to_run, loaded.sha256, resource_config, on_start=printer.starting if text else None, on_done=done
                )
            except BackfillNotFinished as exc:
                raise CommandError(str(exc)) from None
        else:
            run_sync(
                instance,
                home,
                to_run,
                resource_config=resource_config,
                assets=[key.to_user_string() for key in RETAG_ASSETS] if args.retag else None,
                with_changes=not (args.json or args.quiet),
                on_start=printer.starting if text else None,
                on_done=done,
            )
    if text and backfill:
        print(f"re-tagged by Dagster backfill {backfill} on the running daemon (the UI's Backfills view shows it)")
    # For cron, a standing problem is said once, when it appears or changes.
    said = {name for name in failing if args.quiet and already_said(data_dir, name, standing_digest(failing[name]))}
    for name in profiles:
        if name in failing and name not in said:
            lines.extend(check_errors(name, failing[name]))
    for line in lines:
        print(f"memory-pipeline: {line}", file=sys.stderr)
    ok = not lines
    ordered = [summaries[name] for name in profiles]
    if args.json:
        print_json(
            {
                "ok": ok,
                "duration_s": round(time.perf_counter() - started, 3),
                "profiles": ordered,
                **({"backfill": backfill} if backfill else {}),
            }
        )
    elif args.quiet:
        # For cron: silent when all is well, one line when a check does not pass (errors went to stderr).
        findings = [
            f"{s['profile']}: {', '.join(s['failing_checks'])}" for s in ordered if s["failing_checks"] and s["profile"] not in said
        ]
        if ok and findings:
            print(f"memory-pipeline: checks not passing: {'; '.join(findings)} (see `memory-pipeline audit`)")
    return 0 if ok else 1
