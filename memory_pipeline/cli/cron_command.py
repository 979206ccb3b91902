"""`memory-pipeline cron install`: let Hermes' own cron drive the sync.

Hermes runs `.sh` scripts from `$HERMES_HOME/scripts/` with bash (anything else under its own
Python, which is not this install's), in a cleaned environment, and with `--no-agent` delivers the
script's stdout verbatim: empty output is a silent run, a non-zero exit a failure. The wrapper
therefore names this install's interpreter and the Hermes home by absolute path. A Hermes whose
`cron create` takes `--interpreter` runs a Python script under the interpreter named: there the
script is Python, registered with this install's interpreter.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys

from memory_pipeline.cli.common import add_home_argument, hermes_home
from memory_pipeline.lib.files.writing import replace_file
from memory_pipeline.lib.hermes.cron_jobs import jobs_named, recurring

SCRIPT_NAME = "memory-pipeline-sync.sh"
PYTHON_SCRIPT_NAME = "memory-pipeline-sync.py"
# Settings a user may rely on that Hermes' cleaned environment would not pass on.
_CARRIED_ENV = (
    "OLLAMA_HOST",
    "MEMORY_PIPELINE_OLLAMA_MODEL",
    "MEMORY_PIPELINE_PRIVACY_KEYWORDS",
    "MEMORY_PIPELINE_DATA_DIR",
    "DAGSTER_HOME",
)


def register(commands) -> None:
    parser = commands.add_parser("cron", help="let Hermes' own cron run the sync")
    actions = parser.add_subparsers(dest="cron_action", required=True, metavar="ACTION")
    install = actions.add_parser("install", help=f"write $HERMES_HOME/scripts/{SCRIPT_NAME} and print the hermes cron line")
    add_home_argument(install)
    install.add_argument(
        "--every",
        default="30m",
        metavar="SCHEDULE",
        help="how often: '30m', '2h' or a cron expression (default: 30m; registered as Hermes' recurring 'every 30m')",
    )
    install.add_argument("--name", default="memory-sync", help="the Hermes cron job's name (default: memory-sync)")
    install.set_defaults(run=run_install)


def _sync_arguments(home) -> list[str]:
    return ["sync", "--hermes-home", str(home), "--all-profiles", "--quiet"]


def _carried() -> dict[str, str]:
    return {name: os.environ[name] for name in _CARRIED_ENV if os.environ.get(name)}


def python_script(home) -> str:
    """The job as a Python script, for a Hermes that runs it under `--interpreter` (this install's)."""
    return "\n".join(
        [
            f"#!{sys.executable}",
            "# Written by `memory-pipeline cron install`: keeps Hermes' fact store in step with MEMORY.md and USER.md.",
            "# Silent on a clean sync; one line when a check does not pass (a standing one once); exit status 1 when the sync fails.",
            "import os",
            "import sys",
            "",
            f"os.environ.update({_carried()!r})",
            "from memory_pipeline.cli import main",
            "",
            f"sys.exit(main({_sync_arguments(home)!r}))",
            "",
        ]
    )


def offers_interpreter() -> bool:
    """The `hermes` on PATH takes `cron create --interpreter` (its own help says so)."""
    hermes = shutil.which("hermes")
    if hermes is None:
        return False
    try:
        shown = subprocess.run([hermes, "cron", "create", "--help"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return "--interpreter" in shown.stdout


def wrapper_script(home) -> str:
    command = [sys.executable, "-m", "memory_pipeline.cli", *_sync_arguments(home)]
    exports = [f"export {name}={shlex.quote(value)}" for name, value in _carried().items()]
    return "\n".join(
        [
            "#!/usr/bin/env bash",
            "# Written by `memory-pipeline cron install`: keeps Hermes' fact store in step with MEMORY.md and USER.md.",
            "# Silent on a clean sync; one line when a check does not pass (a standing one once); exit status 1 when the sync fails.",
            *exports,
            "exec " + " ".join(shlex.quote(part) for part in command),
            "",
        ]
    )


def run_install(args: argparse.Namespace) -> int:
    home = hermes_home(args)
    scripts = home / "scripts"
    scripts.mkdir(parents=True, exist_ok=True)
    interpreter = offers_interpreter()
    script = scripts / (PYTHON_SCRIPT_NAME if interpreter else SCRIPT_NAME)
    replace_file(script, python_script(home) if interpreter else wrapper_script(home), mode=0o755)
    print(f"wrote {script}")
    if interpreter:
        print(f"the hermes on PATH takes --interpreter: the job runs this script under {sys.executable}")
    existing = jobs_named(home, args.name)
    recurring_job = next((job for job in existing if job.repeats), None)
    if recurring_job is not None:  # one message: the job that runs the script is there already
        print(f"Hermes' cron already runs it as the recurring job {args.name!r} (id {recurring_job.job_id}): nothing more to register")
        return 0
    line = [
        "hermes",
        "cron",
        "create",
        recurring(args.every),
        "--name",
        args.name,
        "--script",
        script.name,
        *(["--interpreter", sys.executable] if interpreter else []),
        "--no-agent",
        "--deliver",
        "local",
    ]
    for job in existing:  # a one-shot job of that name (a bare `30m`, as an earlier install printed) ran once and stopped
        print(f"Hermes' cron has {args.name!r} (id {job.job_id}) as a one-shot job, which ran once and stopped; remove it first:")
        print(f"  hermes cron remove {shlex.quote(job.job_id)}")
    print("register it with Hermes' cron (no agent, no LLM quota; its output is delivered locally):")
    print("  " + shlex.join(line))
    return 0
