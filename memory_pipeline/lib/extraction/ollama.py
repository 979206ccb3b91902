"""Fact extraction through a local Ollama server with the official `ollama` client.

Entries go in batches (20 entries in one call took 56 s on a real model, 20 calls about 10 minutes), each call
constrained by a per-batch JSON schema, `think=False`, temperature 0. Every reply is validated;
one retry sends the rejection back; a batch that still fails is quarantined whole and nothing of
it is written. The server must be on this machine unless a remote host is explicitly allowed.
"""

from __future__ import annotations

import ipaddress
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from memory_pipeline.lib.extraction.base import (
    CallRecord,
    EntryToExtract,
    ExtractedFact,
    ExtractionOutcome,
    QuarantineRecord,
    fact_latencies,
)
from memory_pipeline.lib.extraction.deadline import DeadlineExceeded, printable, within
from memory_pipeline.lib.extraction.prompt import (
    PROMPT_VERSION,
    FactLimits,
    batch_messages,
    batch_schema,
    prompt_sha256,
    retry_message,
)
from memory_pipeline.lib.extraction.replies import ReplyInvalid, validate_reply

if TYPE_CHECKING:  # imported where a model is called: loading the code location stays quick
    import httpx
    import ollama

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_PORT = 11434
# Measured on real entries: 6.5 s/fact and no broken JSON, against 23.8 s/fact for a 27B chat model.
DEFAULT_MODEL = "qwen3.6-nothink"
PROBE_TIMEOUT_S = 3.0
_ERROR_CHARS = 160
# Enough of a rejected reply to see what went wrong; a runaway 5 MB reply is not kept per entry.
QUARANTINE_REPLY_CHARS = 64 * 1024


def ollama_url(host: str | None = None) -> str:
    """The server's base URL, the host read as the ollama client reads `OLLAMA_HOST`: a bare host gets
    http and port 11434, `:PORT` means this machine, an explicit scheme keeps its own port."""
    raw = (host or "").strip()
    if not raw:
        return DEFAULT_HOST
    explicit_scheme = "://" in raw
    parts = urllib.parse.urlsplit(raw if explicit_scheme else f"http://{raw}")
    hostname = parts.hostname or "127.0.0.1"
    port = parts.port or (DEFAULT_PORT if not explicit_scheme else (443 if parts.scheme == "https" else 80))
    netloc = f"[{hostname}]:{port}" if ":" in hostname else f"{hostname}:{port}"
    return urllib.parse.urlunsplit((parts.scheme or "http", netloc, parts.path.rstrip("/"), "", ""))


def ollama_model(model: str | None = None) -> str:
    return (model or DEFAULT_MODEL).strip()


def is_local(url: str) -> bool:
    """Loopback (or the unspecified address, which connects to this machine): memory entries
    sent there never leave it. A name other than `localhost` counts as remote: it may resolve
    anywhere."""
    hostname = urllib.parse.urlsplit(url).hostname or ""
    if hostname.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(hostname)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1 is loopback too
    return address.is_loopback or address.is_unspecified or bool(mapped and mapped.is_loopback)


@dataclass(frozen=True)
class OllamaSettings:
    url: str = DEFAULT_HOST
    model: str = DEFAULT_MODEL
    batch_size: int = 10
    parallel: int = 1
    timeout_s: float = 120.0
    retries: int = 1
    allow_remote: bool = False
    limits: FactLimits = field(default_factory=FactLimits)

    def __post_init__(self) -> None:
        if self.batch_size < 1 or self.parallel < 1 or self.retries < 0 or self.timeout_s <= 0:
            raise ValueError("batch size and parallel calls must be ≥ 1, retries ≥ 0 and the timeout > 0")


@dataclass(frozen=True)
class ServerStatus:
    reachable: bool
    version: str = ""
    models: tuple[str, ...] = ()
    capabilities: tuple[str, ...] | None = None  # of the model asked about; None when not reported
    problem: str = ""

    def has(self, model: str) -> bool:
        return model in self.models or f"{model}:latest" in self.models

    def can_generate(self) -> bool:
        return self.capabilities is None or "completion" in self.capabilities


def _one_line(text: object) -> str:
    return printable(text, _ERROR_CHARS)


def _transport_options(url: str) -> dict[str, Any]:
    # Plain http needs no TLS context, and building one (CA bundle load) costs ~0.1 s per client.
    return {"verify": False} if url.startswith("http://") else {}


def server_status(url: str, model: str | None = None, timeout_s: float = PROBE_TIMEOUT_S) -> ServerStatus:
    """Whether the server answers (`/api/version`), which models it has (`/api/tags`) and what the
    model asked about can do (`/api/show`: an embedding model cannot write facts), all within
    `timeout_s` together. Whatever the server says is made printable."""
    import httpx
    import ollama

    unreadable = (httpx.HTTPError, ollama.ResponseError, ConnectionError, ValueError, TypeError, AttributeError, DeadlineExceeded)
    web = httpx.Client(timeout=timeout_s, **_transport_options(url))
    client = ollama.Client(host=url, timeout=timeout_s, **_transport_options(url))

    def close() -> None:
        web.close()
        client.close()

    try:
        return within(timeout_s, lambda: _probe(web, client, url, model, unreadable), abandon=close)
    except (httpx.TimeoutException, DeadlineExceeded):
        # A client's own per-read timeout may trip at the deadline too: the same problem, said once.
        return ServerStatus(False, problem=f"no complete answer within {timeout_s:g} s")
    except unreadable as exc:
        return ServerStatus(False, problem=_one_line(exc) or type(exc).__name__)
    finally:
        close()


def _probe(web: httpx.Client, client: ollama.Client, url: str, model: str | None, unreadable: tuple[Any, ...]) -> ServerStatus:
    response = web.get(f"{url}/api/version")
    response.raise_for_status()
    version = printable(response.json().get("version", ""), 40)
    models = tuple(printable(m.model, 200) for m in client.list().models if m.model)
    status = ServerStatus(True, version, models)
    if model and status.has(model):
        try:
            capabilities = client.show(model).capabilities
        except unreadable as exc:  # the server answers, but not as Ollama does
            return replace(status, problem=f"unexpected /api/show answer for {printable(model)} ({type(exc).__name__})")
        status = replace(status, capabilities=tuple(printable(c, 40) for c in capabilities) if capabilities is not None else None)
    return status


def plan_batches(entries: list[EntryToExtract], batch_size: int) -> list[list[EntryToExtract]]:
    """Batches in file order; an entry that failed before goes alone, so a poisoned entry can
    never keep its neighbours pending twice."""
    alone = [[entry] for entry in entries if entry.quarantined]
    rest = [entry for entry in entries if not entry.quarantined]
    return [rest[i : i + batch_size] for i in range(0, len(rest), batch_size)] + alone


class _CallOf(NamedTuple):
    """Which request a call record is of: its batch, its attempt and how many entries it carried."""

    batch: int
    attempt: int
    entries: int


@dataclass
class _BatchResult:
    facts: list[ExtractedFact] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)
    quarantine: list[QuarantineRecord] = field(default_factory=list)


class OllamaExtractor:
    name = "ollama"
    prompt_version = PROMPT_VERSION

    def __init__(self, settings: OllamaSettings):
        self.settings = settings
        self.model = settings.model

    def extract(self, entries: list[EntryToExtract]) -> ExtractionOutcome:
        outcome = ExtractionOutcome()
        batches = plan_batches(entries, self.settings.batch_size)
        with ThreadPoolExecutor(max_workers=self.settings.parallel, thread_name_prefix="ollama") as pool:
            for result in pool.map(self._extract_batch, range(len(batches)), batches):
                outcome.facts += result.facts
                outcome.calls += result.calls
                outcome.quarantine += result.quarantine
        outcome.calls.sort(key=lambda call: (call.batch, call.attempt))
        return outcome

    def _chat(self, messages: list[dict[str, Any]], schema: dict[str, Any]) -> ollama.ChatResponse:
        """One chat request within `timeout_s` all told, on a client of its own (closed at the
        deadline, whatever the server is still sending)."""
        import ollama  # imported only by runs that call a model: loading the code location stays quick

        settings = self.settings
        client = ollama.Client(host=settings.url, timeout=settings.timeout_s, **_transport_options(settings.url))
        request = lambda: client.chat(  # noqa: E731
            model=self.model, messages=messages, format=schema, think=False, stream=False, options={"temperature": 0}
        )
        try:
            return within(settings.timeout_s, request, abandon=client.close)
        finally:
            client.close()

    def _call(
        self, index: int, attempt: int, batch: list[EntryToExtract], messages: list[dict[str, Any]], schema: dict[str, Any]
    ) -> tuple[CallRecord, list[ExtractedFact] | None, str | None]:
        """One request: its record, the validated facts (None when the call failed or the reply was
        rejected) and the model's raw reply (None when none came back)."""
        import httpx
        import ollama

        started = time.perf_counter()
        record = _CallOf(index, attempt, len(batch))
        # Errors name a status code or an exception class, never a body: a server's error page may
        # echo the batch, and call records are kept in the history database.
        try:
            response = self._chat(messages, schema)
        except ollama.ResponseError as exc:
            error, outcome = f"HTTP {exc.status_code} ({type(exc).__name__})", "http_error"
        except (httpx.TimeoutException, DeadlineExceeded):
            error, outcome = f"no reply within {self.settings.timeout_s:g} s", "timeout"
        except (httpx.TransportError, ConnectionError) as exc:
            error, outcome = f"connection failed ({type(exc).__name__})", "connection"
        except (ValueError, TypeError, httpx.HTTPError) as exc:
            # A body that is not JSON, or JSON that is not a chat response (the client raises
            # JSONDecodeError, pydantic's ValidationError or, for a JSON list, TypeError).
            error, outcome = f"unreadable response body ({type(exc).__name__})", "bad_response"
        else:
            latency = time.perf_counter() - started
            reply = response.message.content or ""
            tokens = (response.prompt_eval_count, response.eval_count)
            try:
                facts = validate_reply(reply, batch, self.settings.limits)
            except ReplyInvalid as exc:
                return CallRecord(*record, 0, latency, "invalid", str(exc), *tokens), None, reply
            return CallRecord(*record, len(facts), latency, "ok", "", *tokens), facts, reply
        return CallRecord(*record, 0, time.perf_counter() - started, outcome, error), None, None

    def _extract_batch(self, index: int, batch: list[EntryToExtract]) -> _BatchResult:
        base = batch_messages(batch)
        schema = batch_schema(batch, self.settings.limits)
        messages, calls, reply = base, [], ""
        for attempt in range(1 + self.settings.retries):
            call, facts, answered = self._call(index, attempt, batch, messages, schema)
            calls.append(call)
            reply = answered if answered is not None else reply  # keep the last thing the model said
            if facts is not None:
                per_fact = fact_latencies(calls)[0]  # every attempt, shared by the facts it finally gave
                return _BatchResult([replace(fact, latency_s=per_fact) for fact in facts], calls)
            if call.outcome == "invalid":
                # The retry shows the model its own reply and what was wrong with it.
                messages = [*base, {"role": "assistant", "content": answered or ""}, retry_message(call.error)]
        prompt_hash = prompt_sha256(self.model, base, schema)
        error = calls[-1].error
        return _BatchResult(
            [],
            calls,
            [QuarantineRecord(entry.entry_id, entry.source, self.model, prompt_hash, _kept_reply(reply), error) for entry in batch],
        )


def _kept_reply(reply: str) -> str:
    """The raw reply as the quarantine keeps it: at most `QUARANTINE_REPLY_CHARS`, marked when cut."""
    if len(reply) <= QUARANTINE_REPLY_CHARS:
        return reply
    return reply[:QUARANTINE_REPLY_CHARS] + f"\n[… {len(reply) - QUARANTINE_REPLY_CHARS} more characters not kept]"
