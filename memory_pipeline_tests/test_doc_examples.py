"""Every command the README and docs/ show in a code block runs as printed on the demo home:
each read-only example (and the README's `sync`) is split as a shell would split it, run with the
demo home as `HERMES_HOME`, and must end without an error. A usage line with placeholders
(`[--profile NAME]`, `QUERY`) is a synopsis, not an example; a command that writes Hermes' files,
registers a cron job or serves (`--apply`, `cron install`, `ui`, `mcp`) is run by its own tests."""

import re
import shlex

import pytest

from memory_pipeline.cli import main
from memory_pipeline_tests.support.repository import REPO_ROOT

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
_PLACEHOLDER = re.compile(r"\[|\b(?:PATH|NAME|QUERY|FACT_ID|TEXT|RUN_ID|SHARE|URL|N|A|B)\b|\.\.\.|\|")
_NOT_READ_ONLY = ("--apply", "--repair", "cron install", "hermes-plugin", "ledger import", " ui", " mcp")


def examples() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for block in re.findall(r"```[a-z]*\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            for line in block.splitlines():
                command = line.strip().removeprefix("$ ").split("  #", 1)[0].strip()
                if re.match(r"memory-pipeline(?: |$)", command) and not _PLACEHOLDER.search(command.removeprefix("memory-pipeline")):
                    found.append((page.name, command))
    return found


RUNNABLE = [(page, c) for page, c in examples() if not any(word in f" {c}" for word in _NOT_READ_ONLY)]


def test_the_examples_are_found():
    commands = {c for _, c in RUNNABLE}
    assert {"memory-pipeline sync", "memory-pipeline search staging 回滚", "memory-pipeline why 8 --profile default"} <= commands


@pytest.fixture(scope="module")
def synced_demo(tmp_path_factory):
    import shutil

    home = tmp_path_factory.mktemp("docs") / "hermes_home"
    shutil.copytree(REPO_ROOT / "data" / "hermes_home", home, ignore=shutil.ignore_patterns("memory-pipeline", "*.db*"))
    keywords = home / "memory-pipeline" / "privacy_keywords.txt"
    keywords.parent.mkdir(mode=0o700)
    shutil.copyfile(REPO_ROOT / "data" / "privacy_keywords.txt", keywords)
    assert main(["sync", "--hermes-home", str(home), "--quiet", "--extractor", "rules"]) == 0
    return home


@pytest.mark.parametrize("page, command", RUNNABLE, ids=[f"{p}: {c}" for p, c in RUNNABLE])
def test_every_example_runs_as_printed(synced_demo, monkeypatch, capsys, page, command):
    monkeypatch.setenv("HERMES_HOME", str(synced_demo))
    try:
        code = main(shlex.split(command)[1:])
    except SystemExit as exit_:  # --version, --help
        code = exit_.code
    said = capsys.readouterr()
    assert code == 0, f"{page}: `{command}` exited {code}: {said.err[-600:]}"
