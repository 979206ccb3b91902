"""`memory-pipeline mcp` through Hermes 0.19.0's own MCP client and the official `mcp` client:
the agent finds a Chinese substring its own fact_store cannot, resolves a `fact_store#N`
pointer's fact, reads the status, finds a Chinese entry by an English question's meaning, and is
never handed a private fact."""

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from memory_pipeline_tests.agent.conftest import SERVER_ROOM
from memory_pipeline_tests.support.hermes_oracle import holographic_retriever, holographic_store
from memory_pipeline_tests.support.store_helpers import query

COMMAND = str(Path(sys.executable).with_name("memory-pipeline"))
PRIVATE = "zhang.wei@example.com"  # in the demo's private USER.md entry

HERMES_CLIENT = textwrap.dedent(
    """
    import json, os, sys, time
    from tools.mcp_tool import register_mcp_servers
    from tools.registry import registry
    home, command, fact_id, private_id = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    names = register_mcp_servers({"memory": {"command": command, "args": ["mcp", "--hermes-home", home], "env": {"HERMES_HOME": home}}})
    call = lambda tool, args: registry.dispatch(f"mcp__memory__{tool}", args)
    out = {
        "names": names,
        "search": call("search_memory", {"query": "机柜"}),
        "two_words": call("search_memory", {"query": "温湿度 曙光"}),
        "private": call("search_memory", {"query": "Zhang Wei"}),
        "facts": call("get_facts", {"fact_ids": [fact_id], "profile": "default"}),
        "private_fact": call("get_facts", {"fact_ids": [private_id], "profile": "default"}),
        "unknown_profile": call("search_memory", {"query": "机柜", "profile": "nope"}),
        "status": call("memory_status", {}),
    }
    # The server loads the encoder after its first query of a store embedded by it: asked again until it is.
    for _ in range(240):
        out["cross"] = call("search_memory", {"query": "How often are the server cabinets in the machine room inspected?"})
        if "meaning" in out["cross"]:
            break
        time.sleep(0.5)
    out["private_meaning"] = call("search_memory", {"query": "Who is the product manager that reviews atlas requirements?"})
    print(json.dumps(out, ensure_ascii=False))
    sys.stdout.flush()
    os._exit(0)  # the client's event loop thread would keep the process alive
    """
)


def _private_fact(db) -> int:
    ((fact_id,),) = query(db, "SELECT fact_id FROM facts WHERE tags LIKE '%private-person%'")
    return fact_id


def _result(raw: str) -> dict:
    outer = json.loads(raw)
    return json.loads(outer["result"]) if "result" in outer else outer


def test_hermes_own_mcp_client_finds_what_fact_store_cannot_and_no_private_fact(agent_home):
    db = agent_home / "memory_store.db"
    store = holographic_store(db)
    try:  # Hermes' own retrieval: unicode61 cannot split the sentence
        assert holographic_retriever(store).search("机柜") == []
    finally:
        store.close()
    ((fact_id,),) = query(db, "SELECT fact_id FROM facts WHERE content = ?", (SERVER_ROOM,))
    private_id = _private_fact(db)
    args = [sys.executable, "-c", HERMES_CLIENT, str(agent_home), COMMAND, str(fact_id), str(private_id)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert {"mcp__memory__search_memory", "mcp__memory__get_facts", "mcp__memory__memory_status"} <= set(out["names"])
    found = _result(out["search"])
    assert [r["fact_id"] for r in _result(out["two_words"])["results"]] == [fact_id]  # words in any order
    assert [(r["profile"], r["fact_id"], r["content"]) for r in found["results"]] == [("default", fact_id, SERVER_ROOM)]
    private = _result(out["private"])
    assert private["results"] == [] and set(private) == {"results", "note", "profiles_never_synced"}  # no count of what was withheld
    assert [f["content"] for f in _result(out["facts"])["facts"]] == [SERVER_ROOM]
    withheld = _result(out["private_fact"])
    assert (withheld["facts"], withheld["unavailable"]) == ([], [private_id])
    assert "no profile named 'nope'" in _result(out["unknown_profile"])["error"]  # a tool error the model reads
    status = {p["profile"]: p for p in _result(out["status"])["profiles"]}
    # How many facts the agent may be shown: the demo's 23 and the server room's, not the private contact's.
    assert set(status) == {"default", "work"} and status["default"]["shown_facts"] == 23
    assert not {"current_facts", "retired_facts", "facts"} & set(status["default"])  # no count of what is withheld
    assert PRIVATE not in done.stdout and "Zhang" not in done.stdout
    # By meaning: an English question finds the Chinese entry; the private contact is never found this way.
    cross = _result(out["cross"])["results"]
    assert (cross[0]["fact_id"], cross[0]["matched"]) == (fact_id, ["meaning"])
    assert private_id not in [r["fact_id"] for r in _result(out["private_meaning"])["results"]]


def test_the_official_client_lists_the_three_tools_with_their_schemas(agent_home):
    from mcp import ClientSession, StdioServerParameters

    private_id = _private_fact(agent_home / "memory_store.db")
    from mcp.client.stdio import stdio_client

    async def listed():
        params = StdioServerParameters(command=COMMAND, args=["mcp", "--hermes-home", str(agent_home), "--profile", "default"])
        # The server's stderr to the real one: a test before may leave sys.stderr a capture without a file descriptor.
        async with stdio_client(params, errlog=sys.__stderr__) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            result = await session.call_tool("get_facts", {"fact_ids": [1, private_id, 999999]})
            return tools, result

    tools, result = asyncio.run(asyncio.wait_for(listed(), 60))
    assert set(tools) == {"search_memory", "get_facts", "why_fact", "memory_status"}
    search = tools["search_memory"].inputSchema
    assert search["required"] == ["query"] and set(search["properties"]) == {"query", "profile", "limit"}
    assert tools["get_facts"].inputSchema["properties"]["fact_ids"]["type"] == "array"
    assert "Chinese" in tools["search_memory"].description and "fact_store#N" in tools["get_facts"].description
    payload = json.loads(result.content[0].text)
    # A private id and an id no fact has get the same answer: nothing tells them apart.
    assert (payload["unavailable"], len(payload["facts"])) == ([private_id, 999999], 1)
    assert PRIVATE not in result.content[0].text


MODEL_CHANGE_CLIENT = textwrap.dedent(
    """
    import json, os, sys
    from tools.mcp_tool import register_mcp_servers
    from tools.registry import registry
    home, command, ollama = sys.argv[1], sys.argv[2], sys.argv[3]
    register_mcp_servers({"memory": {"command": command, "args": ["mcp", "--hermes-home", home],
                                     "env": {"HERMES_HOME": home, "OLLAMA_HOST": ollama}}})
    found = registry.dispatch("mcp__memory__search_memory", {"query": "where do my meeting notes and action items go please"})
    print(json.dumps({"found": found}, ensure_ascii=False))
    sys.stdout.flush()
    os._exit(0)
    """
)


def test_after_a_change_of_model_hermes_mcp_client_is_answered_by_the_new_models_vectors(agent_home, tmp_path, monkeypatch):
    """`sync --embedder ollama:MODEL` re-embeds every fact through Ollama's protocol; the server then
    encodes a question with that model, through Hermes 0.19.0's own MCP client."""
    import shutil

    from memory_pipeline.lib.in_hermes.meaning import EMBEDDER_TABLE
    from memory_pipeline_tests.support.fake_ollama import FakeOllama
    from memory_pipeline_tests.support.syncing import sync_outcome

    home = tmp_path / "hermes_home"
    shutil.copytree(agent_home, home)
    with FakeOllama(models=("qwen3.6-nothink:latest", "embed-fake:latest")) as ollama:
        monkeypatch.setenv("OLLAMA_HOST", ollama.url)
        assert sync_outcome(home, extractor="rules", embedder="ollama:embed-fake", force=True).profiles["default"].run.success
        assert query(home / "memory_store.db", f"SELECT model FROM {EMBEDDER_TABLE}") == [("ollama:embed-fake",)]
        client = [sys.executable, "-c", MODEL_CHANGE_CLIENT, str(home), COMMAND, ollama.url]
        done = subprocess.run(client, capture_output=True, text=True, timeout=120)
        asked = [body["input"] for path, body in ollama.requests if path == "/api/embed"]
    assert done.returncode == 0, done.stderr[-2000:]
    (first, *_) = _result(json.loads(done.stdout)["found"])["results"]
    assert first["content"].startswith("Meeting notes go to") and first["matched"] == ["meaning"]
    assert ["where do my meeting notes and action items go please"] in asked  # the question, encoded by the new model
