"""The sync service: every profile asked for kept in step with its files. A profile where nothing
can have changed since its last clean sync is skipped without a run (its standing checks kept);
the others run `memory_sync_job` in-process, or, for a re-tag while a daemon runs, as the same
backfill the keyword sensor launches. What each run read is recorded for the next skip."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_pipeline.context.home import Home, keyword_lists
from memory_pipeline.lib.files.digest_key import digest_key
from memory_pipeline.lib.files.writing import private_umask
from memory_pipeline.lib.hermes.profiles import Profile
from memory_pipeline.lib.privacy.choice import lists_digest
from memory_pipeline.lib.sync.state import (
    FailingCheck,
    config_digest,
    current_state,
    failing_checks_digest,
    named_before,
    recorded,
    reported_before,
)
from memory_pipeline.runs.options import SyncOptions
from memory_pipeline.runs.skip_rule import record_run, run_inputs
from memory_pipeline.runs.summary import ProfileSummary, summary_of_run, summary_of_skip

if TYPE_CHECKING:  # Dagster is imported only where a profile runs
    from memory_pipeline.runs.result import ProfileRun


class SyncNotFinished(Exception):
    """The daemon stopped, or took too long, before the re-tag backfill it was handed ended. One line."""


@dataclass(frozen=True)
class SyncRequest:
    """What to sync and how: the resources' settings as the UI's launchpad would set them."""

    home: Path
    profiles: dict[str, Profile]
    options: SyncOptions = SyncOptions()
    retag: bool = False
    force: bool = False
    reset_state: bool = False
    with_changes: bool = False  # read back which entries each run found changed, to name them
    quiet: bool = False  # a standing problem is reported once, when it appears or changes
    remember_choice: bool = False  # the options' privacy policy and keyword list kept for the next syncs (a command's flags)

    @cached_property
    def resolved(self) -> Home:
        """The home, resolved once for the whole sync (its data dir, its profiles' contexts)."""
        return Home(self.home)


@dataclass
class ProfileSync:
    """One profile's part: its summary, its run (None when skipped), the checks left failing (None
    when the run failed before its checks could say), and whether that standing problem was
    already reported (with `quiet`)."""

    summary: ProfileSummary
    run: ProfileRun | None
    failing: list[FailingCheck] | None
    reported_before: bool = False


@dataclass
class SyncOutcome:
    profiles: dict[str, ProfileSync]  # in the order asked
    run_problems: list[str] = field(default_factory=list)  # about runs themselves, each with its way out
    backfill: str | None = None  # the daemon's backfill that re-tagged, when one did

    def failing_to_report(self) -> dict[str, list[FailingCheck]]:
        """Each profile's failing checks still to report (all but those said before)."""
        return {name: p.failing for name, p in self.profiles.items() if p.failing and not p.reported_before}


@dataclass
class SyncHooks:
    """Progress, for a terminal: a profile skipped, starting, done; a damaged file moved aside."""

    skipped: Callable[[str, list[FailingCheck]], None] | None = None
    starting: Callable[[str], None] | None = None
    done: Callable[[ProfileRun, ProfileSummary], None] | None = None
    moved_aside: Callable[[Path], None] | None = None
    embedding: Callable[[int, int], None] | None = None  # facts embedded so far, facts to embed


def remember_privacy(home: Home, profiles: list[str], options: SyncOptions) -> None:
    """A sync's privacy policy or keyword list (`--privacy-policy`, `--keywords`), kept for these
    profiles' next syncs (Hermes' cron, the UI's runs) until another is named."""
    from memory_pipeline.lib.privacy.choice import remember

    told = options.told()
    policy, keywords = (told.policy.value if told.policy is not None else None), told.keywords
    for name in profiles:
        if policy is not None or keywords is not None:
            remember(home.data_dir, name, **{k: v for k, v in (("policy", policy), ("keywords", keywords)) if v is not None})


def _privacy_inputs(request: SyncRequest) -> dict[str, tuple[Path | None, dict[str, Any]]]:
    """Per profile: the keyword list its run reads, and the run's settings with its privacy choice."""
    return {name: run_inputs(request.home, profile, request.options, request.retag) for name, profile in request.profiles.items()}


def sync_profiles(request: SyncRequest, hooks: SyncHooks | None = None) -> SyncOutcome:
    """Each profile skipped, run or re-tagged as the request asks. What it writes (stage values,
    reports, skip state, history) holds entry text or is beside it: its owner's alone, whoever calls."""
    with private_umask():
        return _sync_profiles(request, hooks or SyncHooks())


def _sync_profiles(request: SyncRequest, hooks: SyncHooks) -> SyncOutcome:
    # A profile whose agent reads one store per user is not synced (the command names it in a note).
    home = request.resolved
    served = {name: profile for name, profile in request.profiles.items() if not home.context(profile).store.per_user}
    request = replace(request, profiles=served)
    if request.remember_choice:
        remember_privacy(home, list(served), request.options)
    data_dir = home.data_dir
    if request.reset_state:  # a damaged digest key moved aside before anything reads it
        digest_key(data_dir, reset_damaged=True, on_reset=hooks.moved_aside)
    inputs = _privacy_inputs(request)
    # Nothing to do where the files, the store, the keyword list and the settings are exactly as
    # the last clean sync read them: no Dagster run, not even its import.
    records = {} if request.force or request.retag else {name: recorded(data_dir, name) for name in request.profiles}
    skipped = [
        name
        for name, record_ in records.items()
        if (now := current_state(request.profiles[name], *inputs[name], data_dir)) is not None and now == record_.state
    ]
    outcome = SyncOutcome({})
    for name in skipped:
        failing = records[name].failing
        outcome.profiles[name] = ProfileSync(summary_of_skip(request.profiles[name], failing), None, failing)
        if hooks.skipped is not None:
            hooks.skipped(name, failing)
    to_run = [name for name in request.profiles if name not in skipped]
    if to_run:
        _run(request, to_run, inputs, outcome, hooks)
    outcome.profiles = {name: outcome.profiles[name] for name in request.profiles}  # in the order asked
    for name, part in outcome.profiles.items():
        mirrors = part.summary.mirrors
        if mirrors.unexplained_ids:
            mirrors.named_before = named_before(data_dir, name, mirrors.unexplained_ids)
        # Every verdict is noted, a clean one too: a problem that clears and comes back is said again.
        if request.quiet and part.failing is not None:
            part.reported_before = reported_before(data_dir, name, failing_checks_digest(part.failing))
    return outcome


def _run(request: SyncRequest, to_run: list[str], inputs: dict[str, Any], outcome: SyncOutcome, hooks: SyncHooks) -> None:
    # Dagster is imported only when a profile runs: a no-change sync stays quick.
    from memory_pipeline.defs.backfills import RETAG_ASSETS
    from memory_pipeline.launch.backfill import BackfillNotFinished, BackfillNotTaken, daemon_runs_backfills, run_retag_backfill
    from memory_pipeline.launch.execute import run_sync
    from memory_pipeline.launch.instance import local_instance
    from memory_pipeline.lib.sync.embedding import watched

    configs = {name: config_digest(request.profiles[name], request.resolved.data_dir) for name in to_run}

    def done(run: ProfileRun) -> None:
        _keep_result(request, run, inputs[run.profile], configs[run.profile], outcome)
        if hooks.done is not None:
            hooks.done(run, outcome.profiles[run.profile].summary)

    instance = local_instance(request.home, reset_damaged=request.reset_state, on_reset=hooks.moved_aside)
    if request.retag and daemon_runs_backfills(instance):
        # A daemon is running (the UI, a server): the re-tag is the same backfill the keyword
        # sensor launches, shown in the Backfills view, and waited for here.
        digest = lists_digest(keyword_lists(request.home), digest_key(request.resolved.data_dir))
        try:
            outcome.backfill, _ = run_retag_backfill(
                instance, request.home, to_run, digest, request.options.run_config(), on_start=hooks.starting, on_done=done
            )
            return
        except BackfillNotTaken:
            pass  # the daemon beat lately but launched nothing: its backfill canceled, the re-tag runs here
        except BackfillNotFinished as exc:
            raise SyncNotFinished(str(exc)) from None
    with watched(hooks.embedding):  # the run's steps execute on this thread: its embedding reaches the hook
        run_sync(
            instance,
            request.home,
            to_run,
            resource_config=request.options.run_config(),
            assets=[key.to_user_string() for key in RETAG_ASSETS] if request.retag else None,
            with_changes=request.with_changes,
            allow_remote_ollama=request.options.allow_remote_ollama,
            on_start=hooks.starting,
            on_done=done,
        )


def _keep_result(
    request: SyncRequest, run: ProfileRun, inputs: tuple[Path | None, dict[str, Any]], config: str, outcome: SyncOutcome
) -> None:
    """A run's result kept: its summary and failing checks, its problems, and what the next sync
    compares with. Its failing checks stand. A run a blocking check stopped wrote nothing and read
    no store for its audit: the inputs now are recorded (while the ledger stays corrupt, no run
    could write anything they hold). A retry may end otherwise (quarantined entries are
    retried): nothing recorded, the next sync runs."""
    blocked = run.stopped_by_a_blocking_check  # said by the check's own line
    failing = run.failing if run.success or blocked else None
    outcome.profiles[run.profile] = ProfileSync(summary_of_run(run), run, failing)
    if not blocked:
        outcome.run_problems.extend(run.problems())
    record_run(request.home, request.profiles[run.profile], run, inputs, config)
