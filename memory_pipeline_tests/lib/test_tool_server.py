"""The MCP tool server's protocol, message by message: version negotiation, the tool listing's
schemas, calls with good and bad arguments, a tool's failure told as a result, notifications and a
client's responses left unanswered, a batch, and stdout kept for the protocol alone. Real clients
(Hermes' own, the official SDK's) speak to `memory-pipeline mcp` in the agent tests."""

import io
import json

from memory_pipeline.lib.tool_server import PROTOCOL_VERSIONS, Parameter, Tool, ToolError, ToolServer


def _server(calls: list) -> ToolServer:
    def lookup(fact_ids, profile=None):
        calls.append((fact_ids, profile))
        if profile == "gone":
            raise ToolError("no profile named 'gone'")
        if profile == "boom":
            raise KeyError("a stored text that must not be quoted")
        print("a stray line a tool printed")
        return {"facts": fact_ids}

    tools = [
        Tool("get_facts", "Get facts.", (Parameter("fact_ids", list), Parameter("profile", str, required=False)), lookup),
        Tool(
            "search",
            "Search.",
            (Parameter("query", str), Parameter("limit", int, False, 10)),
            lambda query, limit=10: {"q": query, "n": limit},
        ),
    ]
    return ToolServer("memory-pipeline", "9.9", tools)


def _call(server: ToolServer, name: str, arguments) -> dict:
    return server.answer({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": name, "arguments": arguments}})["result"]


def test_initialize_echoes_a_version_it_speaks_else_its_newest():
    server = _server([])
    for asked, given in (("2025-06-18", "2025-06-18"), ("2024-11-05", "2024-11-05"), ("1999-01-01", PROTOCOL_VERSIONS[-1])):
        result = server.answer({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": asked}})["result"]
        assert result["protocolVersion"] == given
        assert result["serverInfo"] == {"name": "memory-pipeline", "version": "9.9"} and result["capabilities"] == {
            "tools": {"listChanged": False}
        }


def test_the_listing_gives_each_tools_json_schema():
    (facts, search) = _server([]).answer({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"]["tools"]
    assert facts["inputSchema"] == {
        "properties": {
            "fact_ids": {"items": {"type": "integer"}, "type": "array", "title": "Fact Ids"},
            "profile": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "Profile"},
        },
        "required": ["fact_ids"],
        "title": "get_factsArguments",
        "type": "object",
    }
    assert search["inputSchema"]["properties"]["limit"] == {"type": "integer", "default": 10, "title": "Limit"}


def test_calls_are_answered_with_the_tools_result_or_its_failure_in_words():
    calls: list = []
    server = _server(calls)
    assert json.loads(_call(server, "get_facts", {"fact_ids": [1, "2", 3.0]})["content"][0]["text"]) == {"facts": [1, 2, 3]}
    assert json.loads(_call(server, "search", {"query": "x"})["content"][0]["text"]) == {"q": "x", "n": 10}  # the default
    failed = _call(server, "get_facts", {"fact_ids": [1], "profile": "gone"})
    assert failed["isError"] and failed["content"][0]["text"] == "Error executing tool get_facts: no profile named 'gone'"
    crashed = _call(server, "get_facts", {"fact_ids": [1], "profile": "boom"})
    assert crashed["isError"] and "KeyError" in crashed["content"][0]["text"] and "stored text" not in crashed["content"][0]["text"]
    for bad in ({"fact_ids": "1"}, {"fact_ids": [True]}, {}, {"fact_ids": [1], "other": 1}):
        refused = _call(server, "get_facts", bad)
        assert refused["isError"] and "invalid arguments" in refused["content"][0]["text"], bad
    assert _call(server, "nope", {})["content"][0]["text"] == "Unknown tool: nope"
    assert len(calls) == 3  # a refused call never reaches the tool


def test_notifications_and_responses_get_no_answer_and_bad_requests_an_error():
    server = _server([])
    assert server.answer({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert server.answer({"jsonrpc": "2.0", "id": 5, "result": {}}) is None  # a client's answer to a server request
    assert server.answer({"jsonrpc": "2.0", "id": 6, "method": "resources/list"})["error"]["code"] == -32601
    assert server.answer({"id": 7, "method": "ping"})["error"]["code"] == -32600
    assert server.answer_line("{not json")["error"]["code"] == -32700
    batch = server.answer_line(json.dumps([{"jsonrpc": "2.0", "id": 8, "method": "ping"}, {"jsonrpc": "2.0", "method": "notifications/x"}]))
    assert batch == [{"jsonrpc": "2.0", "id": 8, "result": {}}]


def test_stdout_carries_the_protocol_alone(capsys):
    server = _server([])
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_facts", "arguments": {"fact_ids": [1]}}},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    ]
    stdout = io.BytesIO()
    server.serve(io.BytesIO(b"\n".join(json.dumps(m).encode() for m in lines) + b"\n"), stdout)
    answers = [json.loads(line) for line in stdout.getvalue().decode().splitlines()]
    assert [a["id"] for a in answers] == [1, 2]
    assert "a stray line a tool printed" in capsys.readouterr().err  # the tool's print went to stderr


def test_a_line_separator_in_a_result_never_breaks_the_line():
    server = ToolServer("t", "1", [Tool("echo", "", (Parameter("query", str),), lambda query: {"said": query})])
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"query": "a\u2028b\u0085c\u2029d"}},
    }
    stdout = io.BytesIO()
    server.serve(io.BytesIO(json.dumps(request).encode() + b"\n"), stdout)
    (line,) = stdout.getvalue().decode("utf-8").splitlines()  # one line, however it is split
    assert json.loads(json.loads(line)["result"]["content"][0]["text"]) == {"said": "a\u2028b\u0085c\u2029d"}
