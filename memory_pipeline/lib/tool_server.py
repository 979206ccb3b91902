"""An MCP tool server over stdio: JSON-RPC 2.0, one message per line (MCP's stdio transport),
answering `initialize`, `ping`, `tools/list` and `tools/call`; notifications need no answer.

Written here rather than taken from the `mcp` SDK, whose import alone (its client, HTTP stack and
every protocol model) costs more than half of importing Dagster: the agent's server starts in a
fraction of that. Real MCP clients (Hermes' own, the SDK's) are what the tests speak to it with.
Requests are answered one at a time, in order. A line that is not JSON, not a request, or holds
lone surrogates (`"\\ud800"`) gets its answer all the same, so a client never waits on one.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from contextlib import redirect_stdout
from dataclasses import dataclass
from typing import Any, BinaryIO

Json = dict[str, Any]

# The protocol versions this server speaks, oldest first; a client asking for another gets the newest.
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
_SURROGATE = re.compile("[\ud800-\udfff]")


class ToolError(Exception):
    """A tool's failure, told to the agent as the call's result (`isError`), not as a protocol error."""


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: type  # str, int, or list (of int)
    required: bool = True
    default: Any = None

    def schema(self) -> Json:
        title = self.name.replace("_", " ").title()
        typed = {"items": {"type": "integer"}, "type": "array"} if self.kind is list else {"type": _JSON_TYPES[self.kind]}
        if self.required:
            return {**typed, "title": title}
        if self.default is None:
            return {"anyOf": [typed, {"type": "null"}], "default": None, "title": title}
        return {**typed, "default": self.default, "title": title}

    def value(self, given: Any) -> Any:
        """The argument as the tool takes it; ValueError when it is not of the parameter's kind."""
        if given is None and not self.required and self.default is None:
            return None
        if self.kind is list:
            if not isinstance(given, list):
                raise ValueError(f"{self.name}: a list of integers is needed")
            return [_integer(self.name, g) for g in given]
        if self.kind is int:
            return _integer(self.name, given)
        if not isinstance(given, str):
            raise ValueError(f"{self.name}: a string is needed")
        return given


_JSON_TYPES = {str: "string", int: "integer"}


def _integer(name: str, given: Any) -> int:
    # As lenient as the SDK's validation was: 10, 10.0 and "10" are all 10.
    if isinstance(given, bool):
        raise ValueError(f"{name}: an integer is needed")
    if isinstance(given, int):
        return given
    if isinstance(given, float) and given.is_integer():
        return int(given)
    if isinstance(given, str) and re.fullmatch(r"-?\d{1,18}", given.strip()):
        return int(given)
    raise ValueError(f"{name}: an integer is needed")


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: tuple[Parameter, ...]
    call: Callable[..., Json]

    def listing(self) -> Json:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": {
                "properties": {p.name: p.schema() for p in self.parameters},
                "required": [p.name for p in self.parameters if p.required],
                "title": f"{self.name}Arguments",
                "type": "object",
            },
        }

    def arguments(self, arguments: Json) -> Json:
        """The call's arguments as the tool takes them; ValueError naming the first that is not."""
        known = {p.name for p in self.parameters}
        if unknown := sorted(set(arguments) - known):
            raise ValueError(f"unexpected argument {', '.join(unknown)}")
        values = {}
        for parameter in self.parameters:
            if parameter.name in arguments:
                values[parameter.name] = parameter.value(arguments[parameter.name])
            elif parameter.required:
                raise ValueError(f"{parameter.name}: required")
        return values


class ToolServer:
    def __init__(self, name: str, version: str, tools: list[Tool]):
        self.name, self.version = name, version
        self.tools = {tool.name: tool for tool in tools}

    def serve(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        """Answer each line of `stdin` on `stdout` until `stdin` ends. Whatever a tool prints goes
        to stderr: stdout carries the protocol alone."""
        for raw in stdin:
            with redirect_stdout(sys.stderr):
                answer = self.answer_line(raw.decode("utf-8", errors="replace"))
            if answer is not None:
                # ASCII on the wire: a U+2028 or U+0085 in a fact is escaped, never a line break to a
                # client that splits lines the way `str.splitlines` does.
                stdout.write(json.dumps(answer).encode("ascii") + b"\n")
                stdout.flush()

    def answer_line(self, line: str) -> Json | list[Json] | None:
        """The answer to one line (None for a notification, a blank line or a client's response)."""
        if not line.strip():
            return None
        try:
            message = _without_surrogates(json.loads(line))
        except ValueError:
            return _error(None, PARSE_ERROR, "Parse error")
        if isinstance(message, list):  # a batch (protocol 2025-03-26)
            answers = [a for a in (self.answer(m) for m in message) if a is not None]
            return answers or None
        return self.answer(message)

    def answer(self, message: Any) -> Json | None:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return _error(message.get("id") if isinstance(message, dict) else None, INVALID_REQUEST, "Invalid request")
        method, request_id = message.get("method"), message.get("id")
        if not isinstance(method, str):
            return None if "result" in message or "error" in message else _error(request_id, INVALID_REQUEST, "Invalid request")
        if "id" not in message:
            return None  # a notification: initialized, cancelled, progress
        params = message.get("params", {})
        if not isinstance(params, dict):
            return _error(request_id, INVALID_PARAMS, "Invalid params: an object is needed")
        if method == "initialize":
            return _result(request_id, self._initialized(params))
        if method == "ping":
            return _result(request_id, {})
        if method == "tools/list":
            return _result(request_id, {"tools": [tool.listing() for tool in self.tools.values()]})
        if method == "tools/call":
            return _result(request_id, self._called(params))
        return _error(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")

    def _initialized(self, params: Json) -> Json:
        asked = params.get("protocolVersion")
        return {
            "protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1],
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": self.name, "version": self.version},
        }

    def _called(self, params: Json) -> Json:
        name, arguments = params.get("name"), params.get("arguments") or {}
        tool = self.tools.get(name) if isinstance(name, str) else None
        if tool is None:
            return _failed(f"Unknown tool: {name}")
        if not isinstance(arguments, dict):
            return _failed(f"Error executing tool {name}: invalid arguments: an object is needed")
        try:
            values = tool.arguments(arguments)
        except ValueError as exc:
            return _failed(f"Error executing tool {name}: invalid arguments: {exc}")
        try:
            found = tool.call(**values)
        except ToolError as exc:
            return _failed(f"Error executing tool {name}: {exc}")
        except Exception as exc:  # the server stays up; the message names no text a fact or file holds
            print(f"memory-pipeline mcp: {name} failed: {type(exc).__name__}", file=sys.stderr)
            return _failed(f"Error executing tool {name}: it failed ({type(exc).__name__}); `memory-pipeline status` says more")
        return {"content": [{"type": "text", "text": json.dumps(found, ensure_ascii=False, indent=2)}], "isError": False}


def _failed(text: str) -> Json:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _result(request_id: Any, result: Json) -> Json:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _error(request_id: Any, code: int, message: str) -> Json:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _without_surrogates(value: Any) -> Any:
    """The message with each lone surrogate (valid JSON, not valid UTF-8) read as U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value
