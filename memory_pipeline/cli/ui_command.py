"""`memory-pipeline ui`: the Dagster UI (webserver + daemon) on this project, on loopback only."""

from __future__ import annotations

import argparse
import os
import sys

from memory_pipeline.cli.common import add_home_argument, hermes_home
from memory_pipeline.lib.profiles import REPO_ROOT


def register(commands) -> None:
    parser = commands.add_parser("ui", help="start the Dagster UI and daemon (dagster dev) on 127.0.0.1")
    add_home_argument(parser)
    parser.add_argument("--port", type=int, default=3000, help="webserver port (default: 3000)")
    parser.set_defaults(run=run)


def dev_command(port: int) -> list[str]:
    workspace = REPO_ROOT / "workspace.yaml"
    # A source checkout has the project's workspace.yaml; an installed package loads the module.
    target = ["-w", str(workspace)] if workspace.is_file() else ["-m", "memory_pipeline.definitions"]
    # Warnings and errors on the terminal; every step event is in the UI.
    return [sys.executable, "-m", "dagster", "dev", *target, "-h", "127.0.0.1", "-p", str(port), "--log-level", "warning"]


def run(args: argparse.Namespace) -> int:
    from memory_pipeline.instance import prepared_dagster_home

    home = hermes_home(args)
    dagster_dir = prepared_dagster_home(home)
    env = {**os.environ, "DAGSTER_HOME": str(dagster_dir), "HERMES_HOME": str(home)}
    print(f"Dagster UI: http://127.0.0.1:{args.port}  (Hermes home {home}; run history in {dagster_dir}); Ctrl-C stops it",
          flush=True)
    os.execve(sys.executable, dev_command(args.port), env)
    return 0  # not reached: the process is now dagster dev
