"""A total deadline for a request to a model server, and the one way a server's words are made
safe to print.

The `ollama` client's timeout (httpx's) bounds each read, not the request: a server that sends one
byte a second holds it for ever. `within` runs the request on a thread of its own and stops
waiting at the deadline; the request's client is closed then, so its socket goes too.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class DeadlineExceeded(Exception):
    """No complete answer within the deadline (connect and every read together)."""


def within(seconds: float, request: Callable[[], T], *, abandon: Callable[[], None] | None = None) -> T:
    """`request()`'s result or exception, or `DeadlineExceeded` once `seconds` have passed (then
    `abandon()` is called to close what the request holds)."""
    outcome: dict[str, object] = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome["value"] = request()
        except BaseException as exc:  # handed to the caller, whatever it is
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="model-request", daemon=True).start()
    if not done.wait(seconds):
        if abandon is not None:
            try:
                abandon()
            except Exception:  # noqa: BLE001 - closing a client another thread uses may fail in any way; it is abandoned
                pass
        raise DeadlineExceeded(f"no complete answer within {seconds:g} s")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def printable(text: object, limit: int = 160) -> str:
    """A server's string as it may be printed: control and format characters (ESC, BEL, CR,
    newlines, bidi overrides) dropped, white space folded, at most `limit` characters."""
    kept = "".join(c if unicodedata.category(c)[0] != "C" else " " for c in str(text))
    line = " ".join(kept.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
