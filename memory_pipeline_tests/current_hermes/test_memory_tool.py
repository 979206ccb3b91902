"""Current Hermes' memory tool through its own tool dispatch, with the plugin loaded by its plugin
manager: `add`, `patch` (its edit: `content` replaces the `old_text` span, the rest of the entry
kept) and `remove` each reach the store by the live sync, the patched entry's fact keeping its id;
the journal pairs the patch as one call's edit. Its `replace` is gone (it says to use `patch`)."""

import hashlib
import json

from memory_pipeline.cli import main
from memory_pipeline_tests.current_hermes.conftest import run_current
from memory_pipeline_tests.support.store_helpers import query

PROBE = """
import json, sys, time
from types import SimpleNamespace
from hermes_cli.plugins import discover_plugins
from tools.memory_tool import MemoryStore
from agent.agent_runtime_helpers import invoke_tool
discover_plugins(force=True)
store = MemoryStore()
store.load_from_disk()
agent = SimpleNamespace(_memory_store=store, _memory_manager=None, session_id="session-22", _current_api_request_id="")
results = []
for turn, call in enumerate(json.loads(sys.argv[1])):
    agent._current_turn_id = f"turn-{turn}"
    results.append(json.loads(invoke_tool(agent, "memory", call, "task", tool_call_id=f"call-{turn}")))
plugin = next(m for name, m in sys.modules.items() if name.endswith("memory_pipeline") and hasattr(m, "_syncs"))
deadline = time.monotonic() + 200
while plugin._syncs and plugin._syncs[0].thread is not None and time.monotonic() < deadline:
    time.sleep(0.1)
print(json.dumps({"results": [r.get("success") for r in results], "errors": [r.get("error", "") for r in results],
                  "idle": not plugin._syncs or plugin._syncs[0].thread is None}, ensure_ascii=False))
"""
NEW = "**Standup**: 每天 9:45 站会，周五改成书面周报"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_current_hermes_memory_writes_reach_the_store_and_a_patch_keeps_the_fact(capsys, synced_home, current_python):
    home = synced_home
    assert main(["hermes-plugin", "install", "--hermes-home", str(home), "--profile", "default"]) == 0
    (home / "config.yaml").write_text("plugins:\n  enabled: [memory-pipeline]\n", encoding="utf-8")
    capsys.readouterr()
    db = home / "memory_store.db"
    (deploy_id, deploy) = query(db, "SELECT fact_id, content FROM facts WHERE content LIKE '**Deploy**%'")[0]
    docs = query(db, "SELECT content FROM facts WHERE content LIKE '**Docs site**%'")[0][0]
    patched = deploy.replace("staging 每天 18:00 自动部署", "staging 每天 19:30 自动部署")
    calls = [
        {"action": "add", "target": "memory", "content": NEW},
        {"action": "patch", "target": "memory", "old_text": "每天 18:00", "content": "每天 19:30"},
        {"action": "remove", "target": "memory", "old_text": docs[:20]},
        {"action": "replace", "target": "memory", "old_text": "Standup", "content": "x"},  # gone in current Hermes
    ]
    found = run_current(current_python, home, PROBE, json.dumps(calls, ensure_ascii=False))
    assert found["results"][:3] == [True, True, True] and found["idle"], found
    assert found["results"][3] is False and "patch" in found["errors"][3]
    assert query(db, "SELECT count(*) FROM facts WHERE content = ?", (NEW,)) == [(1,)]
    assert query(db, "SELECT fact_id FROM facts WHERE content = ?", (patched,)) == [(deploy_id,)]  # the same fact, edited
    assert query(db, "SELECT count(*) FROM facts WHERE content = ?", (docs,)) == [(0,)]
    journal = home / "memory-pipeline" / "journal" / "default.jsonl"
    lines = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    assert [(w["action"], w["before"], w["after"]) for w in lines] == [
        ("add", [], [_sha(NEW)]),
        ("patch", [_sha(deploy)], [_sha(patched)]),
        ("remove", [_sha(docs)], []),
    ]
    assert main(["audit", "--hermes-home", str(home), "--profile", "default", "--json"]) in (0, 1)
    checks = {c["name"]: c["passed"] for c in json.loads(capsys.readouterr().out)["profiles"][0]["checks"]}
    assert checks["layer_counts"] and checks["hashes_fresh"] and checks["fact_links"] and checks["facts_match_entries"]
