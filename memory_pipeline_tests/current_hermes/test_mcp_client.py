"""`memory-pipeline mcp` through current Hermes' own MCP client: its tools registered under
Hermes' names, a search that finds the entry, a fact by id, the status, and a private fact never
handed out."""

import json
import sys
from pathlib import Path

from memory_pipeline_tests.current_hermes.conftest import run_current
from memory_pipeline_tests.support.store_helpers import query

COMMAND = str(Path(sys.executable).with_name("memory-pipeline"))

CLIENT = """
import json, os, sys
from tools.mcp_tool_discovery import register_mcp_servers  # tools.mcp_tool in 0.19.0
from tools.registry import registry
home, command, fact_id, private_id = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
names = register_mcp_servers({"memory": {"command": command, "args": ["mcp", "--hermes-home", home], "env": {"HERMES_HOME": home}}})
call = lambda tool, args: registry.dispatch(f"mcp__memory__{tool}", args)
out = {
    "names": names,
    "search": call("search_memory", {"query": "staging 回滚"}),
    "facts": call("get_facts", {"fact_ids": [fact_id], "profile": "default"}),
    "private_fact": call("get_facts", {"fact_ids": [private_id], "profile": "default"}),
    "status": call("memory_status", {}),
}
print(json.dumps(out, ensure_ascii=False))
sys.stdout.flush()
os._exit(0)  # the client's event loop thread would keep the process alive
"""


def _result(raw: str) -> dict:
    outer = json.loads(raw)
    return json.loads(outer["result"]) if "result" in outer else outer


def test_current_hermes_mcp_client_is_served_and_never_given_a_private_fact(synced_home, current_python):
    db = synced_home / "memory_store.db"
    ((deploy_id,),) = query(db, "SELECT fact_id FROM facts WHERE content LIKE '**Deploy**%'")
    ((private_id,),) = query(db, "SELECT fact_id FROM facts WHERE tags LIKE '%private-person%'")
    found = run_current(current_python, synced_home, CLIENT, str(synced_home), COMMAND, str(deploy_id), str(private_id))
    assert {"mcp__memory__search_memory", "mcp__memory__get_facts", "mcp__memory__memory_status"} <= set(found["names"])
    assert any(r["fact_id"] == deploy_id for r in _result(found["search"])["results"])
    assert [f["fact_id"] for f in _result(found["facts"])["facts"]] == [deploy_id]
    private = _result(found["private_fact"])
    assert private["facts"] == [] and "never shown" in json.dumps(private)
    assert any(p["profile"] == "default" for p in _result(found["status"])["profiles"])
