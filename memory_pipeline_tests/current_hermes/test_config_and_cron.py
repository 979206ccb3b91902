"""Current Hermes' own readers and runners: its config loader decides which memory files are
switched off (`memory.memory_enabled`, `memory.user_profile_enabled`) exactly as the pipeline
does; `memory-pipeline cron install` sees its `cron create --interpreter`, its own CLI registers
the printed line, and its own cron runner runs the job: a silent, successful sync."""

import json
import os
import shlex
import subprocess

import pytest

from memory_pipeline.cli import main
from memory_pipeline.lib.hermes.profiles import get_profile, read_profile
from memory_pipeline_tests.current_hermes.conftest import CURRENT, run_current

FLAGS = """
import json
from tools.memory_tool import get_builtin_memory_store_flags
print(json.dumps(list(get_builtin_memory_store_flags())))
"""


@pytest.mark.parametrize(
    "memory",
    [
        "memory_enabled: false",
        "user_profile_enabled: false",
        "memory_enabled: 'no'\n  user_profile_enabled: 'off'",
        "memory_enabled: 0",
        "memory_enabled: 'False'",
        "memory_enabled: true\n  user_profile_enabled: 'yes'",
        "memory_char_limit: 3000",
    ],
)
def test_the_memory_switches_read_as_current_hermes_reads_them(synced_home, current_python, memory):
    (synced_home / "config.yaml").write_text(f"memory:\n  {memory}\n", encoding="utf-8")
    memory_on, user_on = run_current(current_python, synced_home, FLAGS)
    readings = {r.source: r for r in read_profile(get_profile(synced_home, "default"))}
    assert (not readings["memory"].switched_off, not readings["user"].switched_off) == (memory_on, user_on)


JOB = """
import json, os
from cron.jobs import load_jobs
from cron.scheduler_script import _run_job_script
(job,) = [j for j in load_jobs() if j.get("name") == "memory-sync"]
ok, output = _run_job_script(job["script"], interpreter=job.get("interpreter"))
print(json.dumps({"ok": ok, "output": output, "interpreter": job.get("interpreter"), "script": job["script"]}))
"""


def test_cron_install_is_registered_and_run_by_current_hermes_cron(capsys, synced_home, current_python, monkeypatch):
    import shutil
    import sys

    shutil.rmtree(synced_home / "profiles")  # one profile keeps the run short
    monkeypatch.setenv("PATH", f"{CURRENT / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HERMES_HOME", str(synced_home))
    assert main(["cron", "install", "--hermes-home", str(synced_home)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "the hermes on PATH takes --interpreter" in out[1]
    line = shlex.split(out[-1].strip())
    assert line[:3] == ["hermes", "cron", "create"] and line[line.index("--interpreter") + 1] == sys.executable
    env = {"HERMES_HOME": str(synced_home), "HOME": str(synced_home.parent), "PATH": "/usr/bin:/bin"}
    created = subprocess.run([str(CURRENT / "bin" / "hermes"), *line[1:]], capture_output=True, text=True, env=env, timeout=180)
    assert created.returncode == 0, created.stdout[-2000:] + created.stderr[-2000:]
    ran = run_current(current_python, synced_home, JOB)
    assert ran["interpreter"] == sys.executable and ran["script"].endswith(".py")
    assert ran["ok"] and ran["output"].count("\n") <= 1, json.dumps(ran)[-2000:]
