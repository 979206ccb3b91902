"""`memory-pipeline`: the command line for people and for Hermes' own cron."""

from __future__ import annotations

import argparse
import sys

from memory_pipeline.cli import (
    audit_command,
    compact_command,
    cron_command,
    drift_command,
    entries_command,
    extract_bench_command,
    hermes_plugin_command,
    ledger_command,
    mcp_command,
    mirrors_command,
    receipts_command,
    search_command,
    status_command,
    sync_command,
    ui_command,
    why_command,
    worker_command,
)
from memory_pipeline.cli.common import CommandError, installed_version
from memory_pipeline.launch.own_state import OwnStateDamaged
from memory_pipeline.lib.files.digest_key import DamagedKey
from memory_pipeline.lib.files.writing import private_umask

COMMANDS = [
    entries_command,
    sync_command,
    status_command,
    audit_command,
    search_command,
    why_command,
    receipts_command,
    ledger_command,
    mirrors_command,
    drift_command,
    compact_command,
    extract_bench_command,
    cron_command,
    mcp_command,
    hermes_plugin_command,
    ui_command,
    worker_command,
]


class _Version(argparse.Action):
    """`--version`, the installed version looked up only when asked (every other command skips it)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"memory-pipeline {installed_version()}")  # on stdout, as argparse's own version action
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memory-pipeline",
        description="Keep Hermes' Holographic fact store in step with MEMORY.md and USER.md.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        module.register(commands)
    commands.choices["worker"].set_defaults(command_line=main)  # the worker runs syncs as this command line does
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Whatever this process and the ones it starts (a Dagster run, the UI) create holds entry
    # text or is beside it: its owner's alone, whatever umask the shell or cron left.
    with private_umask():
        return _run(args)


def _run(args) -> int:
    try:
        return args.run(args)
    except (CommandError, OwnStateDamaged, DamagedKey) as exc:
        print(f"memory-pipeline: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a read-only home, a full disk, a path that is a file: one line, not a traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"memory-pipeline: {where}{exc.strerror or type(exc).__name__}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
