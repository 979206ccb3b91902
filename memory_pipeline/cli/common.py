"""What every command shares: where the Hermes home is and which profiles a command covers."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from memory_pipeline import environment
from memory_pipeline.context.home import Home, ProfileContext
from memory_pipeline.lib.choices import EXTRACTOR_MODES
from memory_pipeline.lib.hermes.profiles import (
    DEFAULT_PROFILE,
    Profile,
    ProfileNotFound,
    looks_like_hermes_home,
    skipped_profiles,
)
from memory_pipeline.lib.store.settings import per_user_note, switched_off_notes


class CommandError(Exception):
    """A usage or environment problem: printed as one line, exit status 2."""


def add_home_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hermes-home",
        metavar="PATH",
        help="Hermes home (default: $HERMES_HOME, else ~/.hermes, as Hermes itself resolves it)",
    )


def add_profile_arguments(parser: argparse.ArgumentParser, *, all_flag: bool = False) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--profile", metavar="NAME", help="one profile (default: every profile)")
    if all_flag:
        group.add_argument("--all-profiles", action="store_true", help="every profile (the default)")


def _share(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"a share of the cap between 0 and 1, not {text}")
    return value


def add_cap_target_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cap-target",
        type=_share,
        metavar="SHARE",
        help="share of each file's cap cap_usage warns above (default: the profile's "
        "plugins.memory-pipeline.cap_target in config.yaml, else 0.85)",
    )


def add_single_profile_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", metavar="NAME", default=DEFAULT_PROFILE, help="profile (default: default)")


def single_profile(args: argparse.Namespace) -> Profile:
    """The one profile a command works on (`--profile`, default `default`)."""
    try:
        return command_home(args).named(args.profile).profile
    except ProfileNotFound as exc:
        raise CommandError(str(exc)) from None


def hermes_home(args: argparse.Namespace) -> Path:
    """The Hermes home's directory (`command_home`)."""
    return command_home(args).path


def command_home(args: argparse.Namespace) -> Home:
    """The Hermes home, resolved once with its profiles; refused unless it looks like one (`--init`
    on `sync` starts one), so a mistyped path never gets a store written into it."""
    home = environment.hermes_home(args.hermes_home)
    if not home.is_dir():
        raise CommandError(f"{home}: Hermes home is not a directory")
    if not looks_like_hermes_home(home) and not getattr(args, "init", False):
        raise CommandError(
            f"{home}: does not look like a Hermes home (no memories/ or profiles/ directory, no config.yaml); "
            "check --hermes-home / HERMES_HOME, or pass `sync --init` to start one there"
        )
    resolved = Home(home)
    _announce(args, resolved)
    return resolved


def _announce(args: argparse.Namespace, home: Home) -> None:
    """Which home a command reads, said once on stderr in text mode, so one home (the demo's, a
    colleague's) is never taken for another; `--json` and `--quiet` keep their output alone."""
    if getattr(args, "json", False) or getattr(args, "quiet", False) or getattr(args, "_home_announced", False):
        return
    args._home_announced = True
    count = len(home.profiles)
    print(f"Hermes home: {shown_path(home.path)} ({count} profile{'s' if count != 1 else ''})", file=sys.stderr)


def shown_path(path: Path) -> str:
    """A path as a person reads it: `~/…` under their own home directory."""
    try:
        return f"~/{path.relative_to(Path.home())}" if path != Path.home() else "~"
    except ValueError:
        return str(path)


def contexts_with_judges(args: argparse.Namespace, home: Home):
    """Each selected profile's context with its privacy judge, to tell a private text from one a
    command may show; None where the keyword list cannot be loaded (every fact then shown by its
    id only)."""
    from memory_pipeline.lib.privacy.matching import KeywordListError

    for context in selected_contexts(args, home):
        try:
            judge = context.judge
        except KeywordListError:
            judge = None
        yield context, judge


def selected_contexts(args: argparse.Namespace, home: Home) -> list[ProfileContext]:
    """`--profile`, else every profile, as contexts; entries of profiles/ that are not taken are said, once."""
    try:
        contexts = [home.named(args.profile)] if args.profile else home.contexts()
    except ProfileNotFound as exc:
        raise CommandError(str(exc)) from None
    profiles = [context.profile for context in contexts]
    notes = [] if args.profile else skipped_profiles(home.path)
    if not getattr(args, "quiet", False):  # cron hears a setting once it breaks a check, not on every tick
        notes += [note for profile in profiles for note in [per_user_note(profile), *switched_off_notes(profile)] if note]
    for note in notes:
        print(f"memory-pipeline: note: {note}", file=sys.stderr)
    return contexts


def add_extractor_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--extractor",
        choices=EXTRACTOR_MODES,
        default="auto",
        help="auto (default: Ollama when it answers and has the model, else rules), rules or ollama",
    )
    parser.add_argument("--model", metavar="NAME", help="Ollama model (default: $MEMORY_PIPELINE_OLLAMA_MODEL, else qwen3.6-nothink)")
    parser.add_argument("--batch-size", metavar="N", type=_positive_int, help="entries per LLM call (default: 10)")
    parser.add_argument("--ollama-host", metavar="URL", help="Ollama server (default: $OLLAMA_HOST, else http://127.0.0.1:11434)")
    parser.add_argument(
        "--allow-remote-ollama", action="store_true", help="allow an Ollama host off this machine (memory entries would leave it)"
    )


def percent_of_cap(chars: int, limit: int) -> str:
    """A file's use of its cap as every command rounds it: from the characters, once."""
    return f"{100 * chars / limit:.0f}%" if limit else "no cap"


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def installed_version() -> str:
    from importlib import metadata  # only when asked: it scans every installed distribution

    try:
        return metadata.version("memory-pipeline")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def print_json(payload: object) -> None:
    json.dump(payload, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
