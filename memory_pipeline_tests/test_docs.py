"""The README says what the code does: its check table is the audit registry, and its command list
names exactly the commands and flags the argument parser has (in the style of sqlite-utils' docs
tests). Each comparison is also shown failing on a README that drifted."""

import argparse
import re

from memory_pipeline.cli import build_parser
from memory_pipeline.lib.audit.checks import CHECK_REGISTRY, CHECK_SPECS
from memory_pipeline.lib.audit.engine import CHECKS
from memory_pipeline_tests.repository import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")


def readme_checks(text: str) -> list[str]:
    """The check names of the `| check | on | severity | fails when |` table, in order."""
    table = text.split("| check | on | severity | fails when |", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", table, re.MULTILINE)


def readme_commands(text: str) -> dict[str, set[str]]:
    """Each command of the `## Command line` block (`ledger export`, `cron install` as two words)
    with the flags its usage lines name."""
    block = text.split("## Command line", 1)[1].split("```", 2)[1]
    commands: dict[str, set[str]] = {}
    current = None
    for line in block.strip().splitlines():
        if line.startswith("memory-pipeline "):
            words = line.split()[1:]
            current = " ".join(words[:2]) if words[0] in ("ledger", "cron") else words[0]
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


def test_readme_check_table_is_the_registry():
    assert readme_checks(README) == list(CHECKS) == [spec.name for spec in CHECK_REGISTRY]
    table = README.split("| check | on | severity | fails when |", 1)[1].split("\n\n", 1)[0]
    for name, asset, severity in re.findall(r"^\| `(\w+)` \| `(\w+)` \| ([^|]+) \|", table, re.MULTILINE):
        spec = CHECK_SPECS[name]
        assert (asset, severity.split()[0].strip(","), "blocking" in severity) == (spec.asset, spec.severity, spec.blocking), name


def test_readme_command_list_matches_the_parser():
    assert readme_commands(README) == parser_commands()


def test_the_docs_tests_notice_a_drifted_readme():
    dropped_check = README.replace("| `pointers_resolve` |", "| `pointer_resolves` |", 1)
    assert readme_checks(dropped_check) != list(CHECKS)
    dropped_flag = README.replace("[--retag] [--force]", "[--retag]", 1)
    assert readme_commands(dropped_flag) != parser_commands()
    extra_command = README.replace(
        "memory-pipeline ui      [--hermes-home PATH]",
        "memory-pipeline doctor  [--hermes-home PATH]\nmemory-pipeline ui      [--hermes-home PATH]",
        1,
    )
    assert readme_commands(extra_command) != parser_commands()
