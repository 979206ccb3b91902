"""What every command shares: where the Hermes home is and which profiles a command covers."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from memory_pipeline.lib.profiles import (
    DEFAULT_PROFILE,
    Profile,
    ProfileNotFound,
    discover_profiles,
    get_profile,
    resolve_hermes_home,
)


class CommandError(Exception):
    """A usage or environment problem: printed as one line, exit status 2."""


def add_home_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hermes-home",
        metavar="PATH",
        help="Hermes home (default: $HERMES_HOME, else the demo home in data/)",
    )


def add_profile_arguments(parser: argparse.ArgumentParser, *, all_flag: bool = False) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--profile", metavar="NAME", help="one profile (default: every profile)")
    if all_flag:
        group.add_argument("--all-profiles", action="store_true", help="every profile (the default)")


def add_single_profile_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", metavar="NAME", default=DEFAULT_PROFILE, help="profile (default: default)")


def single_profile(args: argparse.Namespace) -> Profile:
    """The one profile a command works on (`--profile`, default `default`)."""
    try:
        return get_profile(hermes_home(args), args.profile)
    except ProfileNotFound as exc:
        raise CommandError(str(exc)) from None


def hermes_home(args: argparse.Namespace) -> Path:
    home = resolve_hermes_home(args.hermes_home)
    if not home.is_dir():
        raise CommandError(f"{home}: Hermes home is not a directory")
    return home


def selected_profiles(args: argparse.Namespace, home: Path) -> list[Profile]:
    try:
        if args.profile:
            return [get_profile(home, args.profile)]
    except ProfileNotFound as exc:
        raise CommandError(str(exc)) from None
    return discover_profiles(home)


def print_json(payload: object) -> None:
    json.dump(payload, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
