"""The cron wrapper, installed and then run by Hermes 0.19.0's own cron script runner."""

import argparse
import shlex
import shutil

from memory_pipeline.cli import main
from memory_pipeline.cli.cron_command import SCRIPT_NAME
from memory_pipeline_tests.support.store_helpers import read_entries, write_entries


def _hermes_accepts(line: str) -> argparse.Namespace:
    """Parse the printed line with Hermes' own `hermes cron` argument parser."""
    from hermes_cli.subcommands.cron import build_cron_parser

    parser = argparse.ArgumentParser(prog="hermes", exit_on_error=False)
    build_cron_parser(parser.add_subparsers(dest="command"), cmd_cron=lambda args: None)
    argv = shlex.split(line)
    assert argv[0] == "hermes"
    return parser.parse_args(argv[1:])


def test_wrapper_is_silent_when_clean_one_line_on_a_finding_and_fails_on_a_failure(capsys, demo_home, monkeypatch):
    shutil.rmtree(demo_home / "profiles")  # one profile keeps this test short
    memory = demo_home / "memories" / "MEMORY.md"
    entries = read_entries(memory)
    write_entries(memory, entries[:8])  # under 85% of the cap: every check passes

    assert main(["cron", "install", "--hermes-home", str(demo_home), "--every", "30m"]) == 0
    out = capsys.readouterr().out.splitlines()
    script = demo_home / "scripts" / SCRIPT_NAME
    assert out[0] == f"wrote {script}" and script.stat().st_mode & 0o111
    job = _hermes_accepts(out[-1].strip())
    assert (job.cron_command, job.schedule, job.script, job.no_agent, job.deliver) == (
        "create",
        "every 30m",
        SCRIPT_NAME,
        True,
        "local",
    )

    from cron.scheduler import _run_job_script  # how Hermes runs a --no-agent job's script

    monkeypatch.setenv("HERMES_HOME", str(demo_home))
    assert _run_job_script(SCRIPT_NAME) == (True, "")  # a clean sync: nothing to deliver

    write_entries(memory, entries)  # 94% of the cap: a WARN finding
    ok, output = _run_job_script(SCRIPT_NAME)
    assert ok and output.count("\n") == 0 and "cap_usage" in output

    (demo_home / "memory_store.db").write_bytes(b"garbage" * 200)
    ok, output = _run_job_script(SCRIPT_NAME)
    assert not ok and output.startswith("Script exited with code 1\nstderr:\n")
    error = output.split("stderr:\n", 1)[1]
    assert "\n" not in error and "memory_store.db" in error  # one line, naming the file; no stdout


def _register(home, line: str) -> dict:
    """The printed line carried out as `hermes cron create` does: Hermes' own job store."""
    from cron.jobs import create_job, use_cron_store

    job = _hermes_accepts(line)
    with use_cron_store(home):
        return create_job(None, job.schedule, name=job.name, script=job.script, no_agent=job.no_agent, deliver=job.deliver)


def test_the_job_repeats_in_hermes_own_store_and_runs_again_after_its_first_run(capsys, demo_home):
    from cron.jobs import get_job, mark_job_run, parse_schedule, use_cron_store

    assert main(["cron", "install", "--hermes-home", str(demo_home)]) == 0
    line = capsys.readouterr().out.splitlines()[-1].strip()
    assert parse_schedule(_hermes_accepts(line).schedule)["kind"] == "interval"
    created = _register(demo_home, line)
    with use_cron_store(demo_home):
        mark_job_run(created["id"], True)  # its first run
        after = get_job(created["id"])
    assert after is not None and after["schedule"]["minutes"] == 30 and after["next_run_at"]  # still there, due again
    assert (demo_home / "cron" / "jobs.json").is_file()
    # Installing again says, in one message, that nothing more is needed (no line to register it again).
    assert main(["cron", "install", "--hermes-home", str(demo_home)]) == 0
    out = capsys.readouterr().out
    assert "already runs it as the recurring job 'memory-sync'" in out and "register it" not in out and "hermes cron create" not in out


def test_a_one_shot_job_from_an_earlier_install_is_named_with_its_replacement(capsys, demo_home):
    from cron.jobs import create_job, use_cron_store

    with use_cron_store(demo_home):  # what the earlier `hermes cron create 30m …` registered
        old = create_job(None, "30m", name="memory-sync", script=SCRIPT_NAME, no_agent=True, deliver="local")
    assert old["schedule"]["kind"] == "once"
    assert main(["cron", "install", "--hermes-home", str(demo_home)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    remove = lines.index(f"  hermes cron remove {old['id']}")
    assert "one-shot" in lines[remove - 1] and lines[remove + 1].startswith("register it") and "hermes cron create" in lines[remove + 2]


def test_a_hermes_that_takes_interpreter_gets_a_python_script_run_by_this_install(capsys, demo_home, monkeypatch, tmp_path):
    """A newer Hermes whose `cron create` takes `--interpreter` (0.19.0, installed here, does not:
    its help is stood in by a `hermes` on PATH printing that option). The script is Python, the
    line names this install's interpreter, and run as such a Hermes runs it (`[interpreter,
    script]` in the scripts directory, a cleaned environment) it syncs silently."""
    import os
    import subprocess
    import sys

    from memory_pipeline.cli.cron_command import PYTHON_SCRIPT_NAME

    newer = tmp_path / "bin"
    newer.mkdir()
    (newer / "hermes").write_text("#!/bin/sh\necho 'usage: hermes cron create [--script SCRIPT] [--interpreter INTERPRETER]'\n")
    (newer / "hermes").chmod(0o755)
    monkeypatch.setenv("PATH", f"{newer}{os.pathsep}{os.environ['PATH']}")
    shutil.rmtree(demo_home / "profiles")
    write_entries(demo_home / "memories" / "MEMORY.md", read_entries(demo_home / "memories" / "MEMORY.md")[:8])
    assert main(["cron", "install", "--hermes-home", str(demo_home)]) == 0
    out = capsys.readouterr().out.splitlines()
    script = demo_home / "scripts" / PYTHON_SCRIPT_NAME
    assert out[0] == f"wrote {script}" and f"--interpreter {sys.executable}" in out[-1]
    assert f"--script {PYTHON_SCRIPT_NAME}" in out[-1]
    ran = subprocess.run(
        [sys.executable, str(script)],
        cwd=script.parent,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
    )
    assert (ran.returncode, ran.stdout) == (0, ""), ran.stderr[-2000:]
    assert (demo_home / "memory_store.db").is_file()
