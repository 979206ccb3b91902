"""`memory-pipeline ui`: the Dagster UI (webserver + daemon) on this project, on loopback only."""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from memory_pipeline.cli.common import add_home_argument, hermes_home

# A checkout keeps pyproject.toml (with `[tool.dg]`) beside the package; an installed one does not.
_PROJECT = Path(__file__).resolve().parents[2]


def register(commands) -> None:
    parser = commands.add_parser("ui", help="start the Dagster UI and daemon (dagster dev) on 127.0.0.1")
    add_home_argument(parser)
    parser.add_argument("--port", type=int, default=3000, help="webserver port (default: 3000)")
    parser.set_defaults(run=run)


def dev_command(port: int) -> list[str]:
    """`dg dev` on this project (it reads `[tool.dg]` in pyproject.toml, from the project's
    directory); an installed package without the project's files names the module (`dg dev -m`,
    never the superseded `dagster dev`). Warnings and errors on the terminal; every step event is
    in the UI."""
    common = ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    # dg's entry point in this interpreter (its `dg` script is not there when the dependencies come from elsewhere)
    dg = [sys.executable, "-c", "import sys; from dagster_dg_cli.cli import main; sys.argv[0] = 'dg'; sys.exit(main())"]
    if in_checkout():
        return [*dg, "dev", "--use-active-venv", *common]
    return [*dg, "dev", "-m", "memory_pipeline.definitions", *common]


def in_checkout() -> bool:
    pyproject = _PROJECT / "pyproject.toml"
    return pyproject.is_file() and "[tool.dg]" in pyproject.read_text(encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    from memory_pipeline.launch.instance import prepared_dagster_home

    home = hermes_home(args)
    dagster_dir = prepared_dagster_home(home)
    # VIRTUAL_ENV: the environment this command runs in is the project's (dg checks that it is).
    env = {**os.environ, "DAGSTER_HOME": str(dagster_dir), "HERMES_HOME": str(home), "VIRTUAL_ENV": sys.prefix}
    print(f"Dagster UI: http://127.0.0.1:{args.port}  (Hermes home {home}; run history in {dagster_dir}); Ctrl-C stops it", flush=True)
    command = dev_command(args.port)
    cwd = _PROJECT if in_checkout() else None  # dg finds the project from the working directory
    # Its own process group: whatever stops `ui` (Ctrl-C, a service manager's SIGTERM, a closed
    # terminal's SIGHUP) stops dagster dev and everything it started, through `_stop_all`.
    process = subprocess.Popen(
        command,
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
        preexec_fn=_stopped_with_parent,
    )
    # Its guard stops that group when `ui` dies, even by SIGKILL (see `ui_guard`).
    guard = subprocess.Popen(
        [sys.executable, "-m", "memory_pipeline.cli.ui_guard", str(process.pid), str(os.getpid())], start_new_session=True
    )
    for stopping in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(stopping, _raise_stop)
    try:
        return _quiet_terminal(process)
    except (KeyboardInterrupt, _Stop):
        _stop_all(process)
        return 0
    finally:
        guard.terminate()  # dagster dev's group is stopped or gone: the guard has nothing left to do
        guard.wait()


def _stopped_with_parent() -> None:
    """In dagster dev, before it starts: on Linux, the kernel sends it SIGTERM when `ui` dies, even
    by SIGKILL, which `ui` cannot catch (it then stops what it started; the guard stops its whole
    group, which covers a dagster dev that hangs in its own shutdown)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # elsewhere: a killed `ui` leaves dagster dev to the user, as before


# A run's console logger prints every step event at DEBUG unless its run config names a level,
# which a run launched from the UI with no config, or a backfill the keyword sensor requests, does
# not (Dagster then uses its system default). Those lines are in the UI's event log: the terminal
# drops them and keeps everything else.
_RUN_DEBUG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4} - dagster - DEBUG - ")


def _quiet_terminal(process: subprocess.Popen[str]) -> int:
    for line in process.stdout or ():
        if not _RUN_DEBUG_LINE.match(line):
            sys.stdout.write(line)
            sys.stdout.flush()
    return process.wait()


class _Stop(Exception):
    """SIGTERM or SIGHUP reached `ui`."""


def _raise_stop(signum, frame) -> None:
    raise _Stop


STOP_GRACE_S = 8.0


def _stop_all(process: subprocess.Popen) -> None:
    """dagster dev and every process it started (the webserver, the daemon, code servers, runs):
    asked to stop as Ctrl-C asks (SIGINT to its group), and killed after `STOP_GRACE_S`."""
    import psutil

    try:
        family = [psutil.Process(process.pid), *psutil.Process(process.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        family = []
    try:
        os.killpg(process.pid, signal.SIGINT)
    except ProcessLookupError:
        pass
    _, alive = psutil.wait_procs(family, timeout=STOP_GRACE_S)
    for leftover in alive:
        try:
            leftover.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(alive, timeout=5)
    process.wait()
