"""A loopback HTTP server that speaks Ollama's API (`/api/version`, `/api/tags`, `/api/show`,
`/api/chat`, `/api/embed`), for driving the real `ollama` client in tests and benchmarks.

Its "model" is scripted: each chat request takes the next queued behaviour (or the default one, a
well-behaved model). A behaviour sees the request and the batch of entries it carries, and answers
with a reply text, an HTTP error, a delay or a dropped connection. Every request is recorded.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

VERSION = "0.12.6"


@dataclass
class Reply:
    text: str | None = None  # the assistant message's content
    status: int = 200
    error: str = ""  # body of an HTTP error
    delay_s: float = 0.0
    drop: bool = False  # close the connection without answering
    raw: str | None = None  # a 200 response with exactly this body, whatever it is
    prompt_tokens: int = 120
    eval_tokens: int = 40
    trickle_s: float = 0.0  # send the body one byte at a time, this long apart (a slowloris)


@dataclass
class ChatRequest:
    body: dict
    entries: list[dict]  # the batch, as the pipeline sent it (first user message)
    schema: dict | None


Behaviour = Callable[[ChatRequest], Reply]


def facts_for(request: ChatRequest, *, content: Callable[[dict], str] = lambda e: e["text"]) -> list[dict]:
    """What a well-behaved model answers: one fact per entry, an update of the first existing
    fact when the entry has any."""
    facts = []
    for entry in request.entries:
        existing = entry.get("existing_facts") or []
        facts.append(
            {
                "entry_id": entry["entry_id"],
                "content": content(entry),
                "entity": "",
                "category": "user_pref" if entry["source"] == "user" else "general",
                "tags": ["llm"],
                "action": "update" if existing else "add",
                "existing_fact_id": existing[0]["fact_id"] if existing else 0,
            }
        )
    return facts


def good(request: ChatRequest) -> Reply:
    return Reply(json.dumps({"facts": facts_for(request)}, ensure_ascii=False))


def answer(text: str) -> Behaviour:
    return lambda request: Reply(text)


def edit(change: Callable[[list[dict], ChatRequest], object]) -> Behaviour:
    """A good answer, altered: `change` gets the facts (and the request) and returns the reply's JSON."""
    return lambda request: Reply(json.dumps(change(facts_for(request), request), ensure_ascii=False))


def http_error(status: int = 500, message: str = "model runner crashed") -> Behaviour:
    return lambda request: Reply(status=status, error=json.dumps({"error": message}))


def slow(seconds: float, then: Behaviour = good) -> Behaviour:
    def behaviour(request: ChatRequest) -> Reply:
        reply = then(request)
        reply.delay_s = seconds
        return reply

    return behaviour


def dropped(request: ChatRequest) -> Reply:
    return Reply(drop=True)


def raw_body(body: str) -> Behaviour:
    """A 200 response whose body is `body` as it stands: truncated JSON, JSON of another shape."""
    return lambda request: Reply(raw=body)


@dataclass
class FakeOllama:
    models: tuple[str, ...] = ("qwen3.6-nothink:latest",)
    default: Behaviour = good
    call_delay_s: float = 0.0  # added to every chat reply (benchmarks)
    bind: str = "127.0.0.1"
    host: str = ""  # the address clients use (default: the bound one)
    show_raw: str | None = None  # answer /api/show with exactly this body (a server that is not quite Ollama)
    version: str = VERSION  # what /api/version says (a hostile server puts terminal controls here)
    trickle_version_s: float = 0.0  # /api/version's body one byte at a time, this long apart
    requests: list[tuple[str, dict]] = field(default_factory=list)
    _script: deque = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def queue(self, *behaviours: Behaviour) -> None:
        self._script.extend(behaviours)

    @property
    def chat_requests(self) -> list[dict]:
        return [body for path, body in self.requests if path == "/api/chat"]

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{self.host or host}:{port}"

    def __enter__(self) -> FakeOllama:
        self._server = _QuietServer((self.bind, 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, request: ChatRequest) -> Reply:
        with self._lock:
            behaviour = self._script.popleft() if self._script else self.default
        return behaviour(request)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that timed out and left: the late reply has nowhere to go


EMBED_DIM = 64


def word_vector(text: str) -> list[float]:
    """A bag of the text's lower-cased words hashed into `EMBED_DIM` numbers (not normalized: the
    client normalizes, as a real model's vectors may need)."""
    vector = [0.0] * EMBED_DIM
    for word in text.lower().split():
        vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % EMBED_DIM] += 1.0
    return vector


def _chat_request(body: dict) -> ChatRequest:
    first_user = next((m["content"] for m in body.get("messages", []) if m.get("role") == "user"), "{}")
    try:
        entries = json.loads(first_user).get("entries", [])
    except (json.JSONDecodeError, AttributeError):
        entries = []
    return ChatRequest(body, entries, body.get("format") if isinstance(body.get("format"), dict) else None)


def _handler(server: FakeOllama):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK stall

        def log_message(self, *_):  # quiet
            pass

        def _send(self, status: int, payload: dict | str, trickle_s: float = 0.0) -> None:
            body = (payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not trickle_s:
                self.wfile.write(body)
                return
            self.wfile.flush()
            try:  # bounded: one pass over the body, ended early when the client hangs up
                for byte in body:
                    time.sleep(trickle_s)
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
            except OSError:
                self.close_connection = True

        def _body(self) -> dict:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            return json.loads(raw) if raw else {}

        def _embed(self, body: dict) -> None:
            """Ollama's `/api/embed`: one vector per input, as the model's own answer would be shaped
            (its numbers a hash of the text's words, so texts sharing words are near); a model the
            server lacks is a 404, as Ollama says it."""
            if body.get("model") not in server.models and f"{body.get('model')}:latest" not in server.models:
                self._send(404, {"error": f"model '{body.get('model')}' not found, try pulling it first"})
                return
            texts = body.get("input") if isinstance(body.get("input"), list) else [body.get("input") or ""]
            self._send(200, {"model": body.get("model"), "embeddings": [word_vector(str(t)) for t in texts], "total_duration": 1})

        def do_GET(self):
            server.requests.append((self.path, {}))
            if self.path == "/api/version":
                self._send(200, {"version": server.version}, server.trickle_version_s)
            elif self.path == "/api/tags":
                self._send(200, {"models": [{"name": m, "model": m, "size": 1, "digest": "0" * 64} for m in server.models]})
            else:
                self._send(404, {"error": "not found"})

        def do_POST(self):
            body = self._body()
            server.requests.append((self.path, body))
            if self.path == "/api/show" and server.show_raw is not None:
                self._send(200, server.show_raw)
                return
            if self.path == "/api/show":
                name = next((m for m in server.models if m in (body.get("model"), f"{body.get('model')}:latest")), None)
                if name is not None:
                    capabilities = ["embedding"] if "embed" in name else ["completion"]
                    self._send(
                        200,
                        {
                            "modelfile": "",
                            "parameters": "",
                            "template": "",
                            "details": {"family": "fake"},
                            "model_info": {},
                            "capabilities": capabilities,
                        },
                    )
                else:
                    self._send(404, {"error": f"model '{body.get('model')}' not found"})
                return
            if self.path == "/api/embed":
                self._embed(body)
                return
            if self.path != "/api/chat":
                self._send(404, {"error": "not found"})
                return
            reply = server._next(_chat_request(body))
            time.sleep(reply.delay_s + server.call_delay_s)
            if reply.drop:
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            if reply.status != 200:
                self._send(reply.status, reply.error or {"error": "failed"})
                return
            if reply.raw is not None:
                self._send(200, reply.raw)
                return
            self._send(
                200,
                {
                    "model": body.get("model"),
                    "created_at": "2026-12-03T00:00:00Z",
                    "message": {"role": "assistant", "content": reply.text or ""},
                    "done": True,
                    "done_reason": "stop",
                    "total_duration": int(reply.delay_s * 1e9),
                    "prompt_eval_count": reply.prompt_tokens,
                    "eval_count": reply.eval_tokens,
                },
                reply.trickle_s,
            )

    return Handler
