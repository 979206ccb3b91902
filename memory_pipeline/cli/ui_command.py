"""`memory-pipeline ui`: the Dagster UI (webserver + daemon) on this project, on loopback only."""

from __future__ import annotations

import argparse
import os
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
    directory); an installed package without the project's files loads the module with
    `dagster dev`. Warnings and errors on the terminal; every step event is in the UI."""
    common = ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    if in_checkout():
        return [str(Path(sys.executable).with_name("dg")), "dev", "--use-active-venv", *common]
    return [sys.executable, "-m", "dagster", "dev", "-m", "memory_pipeline.definitions", *common]


def in_checkout() -> bool:
    pyproject = _PROJECT / "pyproject.toml"
    return pyproject.is_file() and "[tool.dg]" in pyproject.read_text(encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    from memory_pipeline.instance import prepared_dagster_home

    home = hermes_home(args)
    dagster_dir = prepared_dagster_home(home)
    # VIRTUAL_ENV: the environment this command runs in is the project's (dg checks that it is).
    env = {**os.environ, "DAGSTER_HOME": str(dagster_dir), "HERMES_HOME": str(home), "VIRTUAL_ENV": sys.prefix}
    print(f"Dagster UI: http://127.0.0.1:{args.port}  (Hermes home {home}; run history in {dagster_dir}); Ctrl-C stops it", flush=True)
    command = dev_command(args.port)
    if in_checkout():
        os.chdir(_PROJECT)  # dg finds the project from the working directory
    os.execve(command[0], command, env)
    return 0  # not reached: the process is now dagster dev
