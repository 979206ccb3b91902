"""`memory-pipeline mcp`: the agent's read-only MCP server over stdio (`memory_pipeline/mcp_server.py`)."""

from __future__ import annotations

import argparse

from memory_pipeline.cli.common import CommandError, add_home_argument, hermes_home, installed_version
from memory_pipeline.lib.hermes.profiles import ProfileNotFound, get_profile


def register(commands) -> None:
    parser = commands.add_parser("mcp", help="serve the fact store to the agent over MCP (stdio, read-only)")
    add_home_argument(parser)
    parser.add_argument("--profile", metavar="NAME", help="serve this profile only (default: every profile of the home)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from memory_pipeline.mcp_server import build_server, run_server

    home = hermes_home(args)
    if args.profile:
        try:
            get_profile(home, args.profile)
        except ProfileNotFound as exc:
            raise CommandError(str(exc)) from None
    run_server(build_server(home, args.profile, version=installed_version()))
    return 0
