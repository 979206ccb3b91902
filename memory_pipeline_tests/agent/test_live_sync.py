"""The agent's own memory writes in the store within seconds: Hermes 0.19.0's own tool dispatch
(`invoke_tool`, as its agent loop runs the `memory` tool) with the plugin loaded by Hermes' own
plugin manager, in an interpreter where memory-pipeline is not importable. The plugin journals
each write (hashes, never text) and syncs the profile in the background; the turn never waits."""

import json
import os
import signal
import stat
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

from memory_pipeline.cli import main
from memory_pipeline.mcp_server import MemoryServer
from memory_pipeline_tests.support.store_helpers import query
from memory_pipeline_tests.support.syncing import sync_outcome

PROBE = textwrap.dedent(
    """
    import json, sys, time
    from types import SimpleNamespace
    from hermes_cli.plugins import discover_plugins
    from tools.memory_tool import MemoryStore
    from agent.agent_runtime_helpers import invoke_tool
    discover_plugins(force=True)
    store = MemoryStore()
    store.load_from_disk()
    session = sys.argv[2] if len(sys.argv) > 2 else "session-7"
    agent = SimpleNamespace(_memory_store=store, _memory_manager=None, session_id=session, _current_api_request_id="")
    results, pending = [], []
    plugin = next(m for name, m in sys.modules.items() if name.endswith("memory_pipeline") and hasattr(m, "_syncs"))
    for turn, call in enumerate(json.loads(sys.argv[1])):
        agent._current_turn_id = f"turn-{turn}"
        results.append(json.loads(invoke_tool(agent, "memory", call, "task", tool_call_id=f"{session}-call-{turn}")))
        # The tool has returned: is the sync it asked for still to come (the turn did not wait for it)?
        pending.append(bool(plugin._syncs and plugin._syncs[0].thread is not None))
    deadline = time.monotonic() + 240
    while plugin._syncs and plugin._syncs[0].thread is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    idle = not plugin._syncs or plugin._syncs[0].thread is None
    print(json.dumps({"results": [r.get("success") for r in results], "pending": pending, "idle": idle}))
    """
)

NEW = "**Standup**: 每天 9:45 站会，周五改成书面周报"
EDITED = "**Deploy**: 发布窗口改到周三 20:00，需要两人复核"


def _command(home, calls, session: str = "session-7") -> tuple[list[str], dict]:
    env = {"HERMES_HOME": str(home), "PYTHONPATH": sysconfig.get_paths()["purelib"], "HOME": str(home.parent)}
    env["MEMORY_PIPELINE_WORKER_IDLE"] = "30"  # the warm worker the live sync starts leaves soon after the test
    return [sys.executable, "-S", "-c", PROBE, json.dumps(calls, ensure_ascii=False), session], env


def _run_pid(home, run_id: str) -> int:
    from memory_pipeline.launch.execute import PID_TAG
    from memory_pipeline.launch.instance import local_instance

    instance = local_instance(home)
    try:
        return int(instance.get_run_by_id(run_id).tags[PID_TAG])
    finally:
        instance.dispose()


def _run(home, calls) -> dict:
    command, env = _command(home, calls)
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_the_agents_memory_writes_reach_the_store_and_the_journal(agent_home, tmp_path, capsys):
    import shutil

    home = tmp_path / "hermes_home"
    shutil.copytree(agent_home, home)
    assert main(["hermes-plugin", "install", "--hermes-home", str(home), "--profile", "default"]) == 0
    (home / "config.yaml").write_text("plugins:\n  enabled: [memory-pipeline]\n", encoding="utf-8")
    db = home / "memory_store.db"
    deploy = next(c for (c,) in query(db, "SELECT content FROM facts WHERE content LIKE '**Deploy**%'"))
    ((deploy_id,),) = query(db, "SELECT fact_id FROM facts WHERE content = ?", (deploy,))
    docs = next(c for (c,) in query(db, "SELECT content FROM facts WHERE content LIKE '**Docs site**%'"))
    calls = [
        {"action": "add", "target": "memory", "content": NEW},
        {"action": "replace", "target": "memory", "old_text": deploy[:20], "content": EDITED},  # little of the text kept
        {"action": "remove", "target": "memory", "old_text": docs[:20]},
        {"action": "replace", "target": "memory", "old_text": "no such entry anywhere", "content": "x"},  # refused: changes nothing
    ]
    probe, log = _run(home, calls)
    assert "live sync failed" not in log, log[-2000:]
    assert probe["results"] == [True, True, True, False] and probe["idle"]
    assert probe["pending"][:3] == [True, True, True]  # each write returned with its sync still to finish
    # In step: the new entry's fact, the edit updated in place (the same fact), the removed one gone.
    assert query(db, "SELECT count(*) FROM facts WHERE content = ?", (NEW,)) == [(1,)]
    assert query(db, "SELECT fact_id FROM facts WHERE content = ?", (EDITED,)) == [(deploy_id,)]
    assert query(db, "SELECT count(*) FROM facts WHERE content = ?", (docs,)) == [(0,)]
    capsys.readouterr()
    assert main(["search", "站会", "--hermes-home", str(home), "--profile", "default", "--json"]) == 0
    assert [r["content"] for r in json.loads(capsys.readouterr().out)["results"]] == [NEW]
    journal = home / "memory-pipeline" / "journal" / "default.jsonl"
    lines = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    assert [(w["action"], w["session"], w["turn"], len(w["before"]), len(w["after"])) for w in lines] == [
        ("add", "session-7", "turn-0", 0, 1),
        ("replace", "session-7", "turn-1", 1, 1),
        ("remove", "session-7", "turn-2", 1, 0),
    ]
    text = journal.read_text(encoding="utf-8")
    assert "Standup" not in text and "Deploy" not in text and "站会" not in text  # hashes, never text
    assert stat.S_IMODE(journal.stat().st_mode) == 0o600
    # `why` tells the edited fact's story: its entry now, the agent's edit by session and turn.
    capsys.readouterr()
    assert main(["why", str(deploy_id), "--hermes-home", str(home), "--profile", "default", "--json"]) == 0
    (story,) = json.loads(capsys.readouterr().out)["stories"]
    assert story["content"] == EDITED and story["state"] == "current" and story["privacy"] == "not private"
    active = [e for e in story["entries"] if e["status"] == "active"]
    assert len(active) == 1 and active[0]["file"] == "MEMORY.md" and active[0]["position_now"] and active[0]["extractor"] == "rules"
    assert active[0]["run_id"]  # the Dagster run the live sync made
    # ... in the home's warm worker, which the first write started: a run of its own process.
    worker = _run_pid(home, active[0]["run_id"])
    assert b"memory_pipeline.cli\x00worker" in Path(f"/proc/{worker}/cmdline").read_bytes()
    os.kill(worker, signal.SIGTERM)
    assert [(w["action"], w["session"], w["turn"]) for w in story["history"]] == [("replace", "session-7", "turn-1")]
    assert story["surfaces"] == {"prefetch": True, "fact_store search": True, "fact_store list": True, "MCP server and plugin": True}
    # The agent's own tool answers the same, and a withheld fact exactly like a missing one.
    server = MemoryServer(home, retag=lambda profile: None)
    assert server.why_fact(deploy_id, "default")["history"] == story["history"]
    private_id = query(db, "SELECT fact_id FROM facts WHERE tags LIKE '%private-person%'")[0][0]
    withheld, missing = server.why_fact(private_id, "default"), server.why_fact(999_999, "default")
    assert {k: v for k, v in withheld.items() if k != "fact_id"} == {k: v for k, v in missing.items() if k != "fact_id"}


def test_live_sync_switched_off_journals_and_syncs_nothing(agent_home, tmp_path):
    import shutil

    home = tmp_path / "hermes_home"
    shutil.copytree(agent_home, home)
    assert main(["hermes-plugin", "install", "--hermes-home", str(home), "--profile", "default"]) == 0
    config = "plugins:\n  enabled: [memory-pipeline]\n  memory-pipeline:\n    live_sync: false\n"
    (home / "config.yaml").write_text(config, encoding="utf-8")
    probe, _ = _run(home, [{"action": "add", "target": "memory", "content": NEW}])
    assert probe["results"] == [True]
    assert query(home / "memory_store.db", "SELECT count(*) FROM facts WHERE content = ?", (NEW,)) == [(0,)]
    assert not (home / "memory-pipeline" / "journal").exists()


def _waiting_on(lock, count: int, processes) -> None:
    """Until `count` processes wait for the flock on `lock` (what /proc/locks lists as `->`)."""
    import time

    inode = f":{lock.stat().st_ino} "
    for _ in range(6000):
        waiting = [line for line in open("/proc/locks", encoding="utf-8") if inode in line and "->" in line]
        if len(waiting) >= count:
            return
        assert all(p.poll() is None for p in processes), [p.communicate() for p in processes]
        time.sleep(0.05)
    raise AssertionError("the sessions never reached Hermes' memory lock")


def test_two_sessions_writing_at_once_are_never_paired_as_an_edit(agent_home, tmp_path):
    """Session A removes an entry while session B adds an unrelated one, both through Hermes' own
    tool dispatch, each having read the files before either wrote (both wait on Hermes' own file
    lock, which the test holds). Neither write is taken for an edit of the other's entry."""
    import fcntl
    import hashlib
    import os
    import shutil

    home = tmp_path / "hermes_home"
    shutil.copytree(agent_home, home)
    assert main(["hermes-plugin", "install", "--hermes-home", str(home), "--profile", "default"]) == 0
    (home / "config.yaml").write_text("plugins:\n  enabled: [memory-pipeline]\n", encoding="utf-8")
    db = home / "memory_store.db"
    docs = next(c for (c,) in query(db, "SELECT content FROM facts WHERE content LIKE '**Docs site**%'"))
    ((docs_id,),) = query(db, "SELECT fact_id FROM facts WHERE content = ?", (docs,))
    lock = home / "memories" / "MEMORY.md.lock"
    lock.touch()
    held = os.open(lock, os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)
    sessions = []
    try:
        for session, call in (
            ("session-a", {"action": "remove", "target": "memory", "old_text": docs[:20]}),
            ("session-b", {"action": "add", "target": "memory", "content": NEW}),
        ):
            command, env = _command(home, [call], session)
            sessions.append(subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
            _waiting_on(lock, len(sessions), sessions)  # this session read the files and waits to write
    finally:
        fcntl.flock(held, fcntl.LOCK_UN)
        os.close(held)
    for process in sessions:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0 and json.loads(out.strip().splitlines()[-1])["results"] == [True], err[-3000:]
    journal = home / "memory-pipeline" / "journal" / "default.jsonl"
    sha = lambda text: hashlib.sha256(text.encode("utf-8")).hexdigest()  # noqa: E731
    lines = sorted((w["session"], w["action"], w["before"], w["after"]) for w in map(json.loads, journal.read_text().splitlines()))
    assert lines == [("session-a", "remove", [sha(docs)], []), ("session-b", "add", [], [sha(NEW)])]
    assert not sync_outcome(home, "default").run_problems  # whatever the live syncs raced to
    assert query(db, "SELECT content FROM facts WHERE fact_id = ?", (docs_id,)) in ([], [(docs,)])  # never rewritten with B's text
    assert query(db, "SELECT count(*) FROM facts WHERE content = ? AND fact_id != ?", (NEW, docs_id)) == [(1,)]
    assert query(db, "SELECT count(*) FROM memory_pipeline_receipts WHERE fact_ids LIKE '%' || ? || '%'", (str(docs_id),))[0][0] >= 1
