"""The skip rule every sync shares, the CLI's, Hermes' cron's and the daemon's: a profile runs
only when its files, its store, its keyword list, config.yaml or the run's settings differ from
what its last clean sync read. What a run read is recorded here, and compared here."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_pipeline import environment
from memory_pipeline.context.home import privacy_choice
from memory_pipeline.lib.hermes.profiles import Profile
from memory_pipeline.lib.sync.state import current_state, forget, record, recorded, state_of_run
from memory_pipeline.runs.options import SyncOptions

if TYPE_CHECKING:
    from memory_pipeline.runs.result import ProfileRun

# What a daemon's run (the schedule's, the file sensor's) carries so that, once it succeeds, what
# it read is recorded as a CLI sync's is: config.yaml's digest taken when the run was requested.
CONFIG_TAG = "memory_pipeline/config_sha256"


def run_inputs(home: Path, profile: Profile, options: SyncOptions, retag: bool = False) -> tuple[Path | None, dict[str, Any]]:
    """The keyword list a run of the profile reads, and the run's settings with its privacy choice
    (a list or policy the options name for this sync included, as the run resolves it). A default
    `memory-pipeline sync` and the daemon's runs both have no resource settings of their own, so
    each skips what the other left in step."""
    choice = privacy_choice(profile, home, options.told())
    return choice.keywords_path, {
        "resources": options.chosen(),
        "retag": retag,
        "privacy": [choice.policy.value, sorted(choice.categories)],
    }


def unchanged_since_last_sync(home: Path, profile: Profile, options: SyncOptions | None = None) -> bool:
    """Whether a sync of the profile with these settings would find everything as the last clean
    sync read it."""
    now = current_state(profile, *run_inputs(home, profile, options or SyncOptions()), environment.data_dir(home))
    return now is not None and now == recorded(environment.data_dir(home), profile.name).state


def record_run(home: Path, profile: Profile, run: ProfileRun, inputs: tuple[Path | None, dict[str, Any]], config: str) -> None:
    """What a finished run read, kept for the next skip, with the checks it left failing (they
    stand while nothing changes). A run a blocking check stopped wrote nothing and read no store
    for its audit: the inputs now are recorded (while the ledger stays corrupt, no run could write
    anything they hold). A retry may end otherwise (quarantined entries are retried), and a run
    during which another writer wrote read what is no longer there: nothing is recorded, the next
    sync runs. `config` is config.yaml's digest taken before the run."""
    data_dir, blocked = environment.data_dir(home), run.stopped_by_a_blocking_check
    if run.retry_can_fix:
        state = None
    elif blocked:
        state = current_state(profile, *inputs, data_dir)
    else:
        read = run.inputs_read()
        state = state_of_run(profile, *inputs, read, config) if read is not None else None
    if state:
        record(data_dir, profile.name, state, run.run_id, (run.failing if run.success or blocked else None) or [])
    else:  # also a re-tag (no files read)
        forget(data_dir, profile.name)


def record_daemon_run(home: Path, profile: Profile, run: ProfileRun, config: str) -> None:
    """A daemon's successful default run, recorded as a CLI sync's would be."""
    record_run(home, profile, run, run_inputs(home, profile, SyncOptions()), config)
