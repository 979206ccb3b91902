"""A sync through the sync service, called as a service: what the command line, Hermes' cron, the
audit's repair and compaction all call. Tests of what a sync does use it; tests of the command
line's own words and exit codes run `memory-pipeline sync` itself."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.lib.choices import ExtractorMode, PrivacyPolicy, RemovalPolicy, VectorFormat
from memory_pipeline.lib.hermes.profiles import discover_profiles
from memory_pipeline.runs.options import SyncOptions
from memory_pipeline.services.sync import SyncHooks, SyncOutcome, SyncRequest, sync_profiles

_ENUMS = {"extractor": ExtractorMode, "removal_policy": RemovalPolicy, "vector_format": VectorFormat, "privacy_policy": PrivacyPolicy}


def sync_outcome(
    home: Path, *names: str, force: bool = False, quiet: bool = False, hooks: SyncHooks | None = None, **options
) -> SyncOutcome:
    """The profiles named (every profile when none is) synced with these `SyncOptions` (an enum's
    value may be given as its string); `quiet` as cron asks (a standing problem noted as said)."""
    profiles = {p.name: p for p in discover_profiles(home) if not names or p.name in names}
    typed = SyncOptions(**{k: _ENUMS[k](v) if k in _ENUMS and v is not None else v for k, v in options.items()})
    return sync_profiles(SyncRequest(home=home, profiles=profiles, options=typed, force=force, quiet=quiet), hooks)


def synced_profile(home: Path, name: str = "default", **options) -> dict:
    """One profile synced: its summary, as `sync --json` gives it."""
    return sync_outcome(home, name, **options).profiles[name].summary.as_json()


def in_step_as_copied(home: Path) -> None:
    """A copy of a synced home, recorded as its last clean sync would have left it here: each
    profile's skip state names this copy's store (another path and inode than the original's),
    with the checks the original's sync left failing. Its next sync then skips what is unchanged,
    as a synced home's does, instead of running every profile once because it moved."""
    from memory_pipeline import environment
    from memory_pipeline.lib.sync.state import current_state, record, recorded
    from memory_pipeline.runs.skip_rule import run_inputs

    data_dir = environment.data_dir(home)
    for profile in discover_profiles(home):
        before = recorded(data_dir, profile.name)
        now = current_state(profile, *run_inputs(home, profile, SyncOptions()), data_dir)
        if before.state is not None and now is not None:
            record(data_dir, profile.name, now, "copied", before.failing)
