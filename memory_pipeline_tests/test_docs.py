"""The docs say what the code does: the check table of docs/audits.md is the audit registry, and the
command list of docs/cli.md names exactly the commands and flags the argument parser has (in the
style of sqlite-utils' docs tests). Each comparison is also shown failing on a page that drifted.
And the README stays a user's document: at most 250 lines, and neither it nor any page tells how
the project was made."""

import argparse
import re

from memory_pipeline.cli import build_parser
from memory_pipeline.defs.checks import BLOCKING, CHECK_ASSETS
from memory_pipeline.lib.audit.checks import CHECK_REGISTRY, CHECK_SPECS
from memory_pipeline.lib.audit.engine import CHECKS
from memory_pipeline_tests.support.repository import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
AUDITS = (REPO_ROOT / "docs" / "audits.md").read_text(encoding="utf-8")
CLI = (REPO_ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
DOCS = {path.name: path.read_text(encoding="utf-8") for path in sorted((REPO_ROOT / "docs").glob("*.md"))}


def readme_checks(text: str) -> list[str]:
    """The check names of the `| check | on | severity | fails when |` table, in order."""
    table = text.split("| check | on | severity | fails when |", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", table, re.MULTILINE)


def readme_commands(text: str) -> dict[str, set[str]]:
    """Each command of the `# Command line` block (`ledger export`, `cron install` as two words)
    with the flags its usage lines name."""
    block = text.split("# Command line", 1)[1].split("```", 2)[1]
    commands: dict[str, set[str]] = {}
    current = None
    for line in block.strip().splitlines():
        if line.startswith("memory-pipeline "):
            words = line.split()[1:]
            current = " ".join(words[:2]) if words[0] in ("ledger", "cron", "hermes-plugin") else words[0]
            commands.setdefault(current, set())
        if current is not None:
            commands[current] |= set(re.findall(r"--[a-z][a-z0-9-]*", line))
    return commands


def parser_commands() -> dict[str, set[str]]:
    def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        action = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        return dict(action.choices) if action is not None else {}

    def flags(parser: argparse.ArgumentParser) -> set[str]:
        return {option for a in parser._actions for option in a.option_strings if option.startswith("--")} - {"--help"}

    commands = {}
    for name, sub in subparsers(build_parser()).items():
        nested = subparsers(sub)
        for action, leaf in nested.items() if nested else [(None, sub)]:
            commands[f"{name} {action}" if action else name] = flags(leaf)
    return commands


def test_the_check_table_is_the_registry():
    assert readme_checks(AUDITS) == list(CHECKS) == [spec.name for spec in CHECK_REGISTRY]
    table = AUDITS.split("| check | on | severity | fails when |", 1)[1].split("\n\n", 1)[0]
    for name, asset, severity in re.findall(r"^\| `(\w+)` \| `(\w+)` \| ([^|]+) \|", table, re.MULTILINE):
        spec = CHECK_SPECS[name]
        assert (asset, severity.split()[0].strip(","), "blocking" in severity) == (CHECK_ASSETS[name], spec.severity, name in BLOCKING), (
            name
        )


def test_the_command_list_matches_the_parser():
    assert readme_commands(CLI) == parser_commands()


def test_the_docs_tests_notice_a_drifted_page():
    dropped_check = AUDITS.replace("| `pointers_resolve` |", "| `pointer_resolves` |", 1)
    assert readme_checks(dropped_check) != list(CHECKS)
    dropped_flag = CLI.replace("[--retag] [--force]", "[--retag]", 1)
    assert readme_commands(dropped_flag) != parser_commands()
    extra_command = CLI.replace(
        "memory-pipeline ui      [--hermes-home PATH]",
        "memory-pipeline doctor  [--hermes-home PATH]\nmemory-pipeline ui      [--hermes-home PATH]",
        1,
    )
    assert readme_commands(extra_command) != parser_commands()


# What a page that tells the project's history says: sessions, issue numbers, "the seed".
HISTORY = re.compile(
    r"\b(previous|this|that|earlier|next|last) session\b|session before|\(issue [0-9]+|\bissues? [0-9]{1,3}\b|the seed\b", re.I
)


def test_the_readme_is_short_and_no_page_tells_how_it_was_made():
    assert README.count("\n") <= 250
    told = {name: HISTORY.findall(text) for name, text in {"README.md": README, **DOCS}.items()}
    assert {name: found for name, found in told.items() if found} == {}
    assert HISTORY.search("measured by the session before issue 5") is not None  # the rule sees a diary line
