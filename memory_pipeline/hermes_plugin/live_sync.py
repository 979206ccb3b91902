"""The live sync of memory-pipeline's Hermes plugin: the memory files' entries by hash, the journal
of the agent's own memory writes (hashes, session, turn, never text; private to its owner), and
one background sync of the profile at a time. Copied beside the plugin by `memory-pipeline
hermes-plugin install`: the standard library only."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import threading
import time
from pathlib import Path

FILES = {"memory": "MEMORY.md", "user": "USER.md"}
DEBOUNCE_S = 0.5  # a burst of writes (a batch, several calls in one turn) syncs once


def entry_hashes(home: Path) -> dict[str, set[str]]:
    """Each memory file's entries by SHA-256 of their stripped text (the pipeline's identity)."""
    found = {}
    for target, name in FILES.items():
        try:
            text = (home / "memories" / name).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            text = ""
        found[target] = {hashlib.sha256(e.strip().encode("utf-8")).hexdigest() for e in text.split("\n§\n") if e.strip()}
    return found


def reached_the_file(result: object) -> bool:
    """A `memory` tool result that changed a file: a success, not staged for approval."""
    outcome = json.loads(result) if isinstance(result, str) else result
    return isinstance(outcome, dict) and bool(outcome.get("success")) and not outcome.get("staged")


def write_lines(before: dict | None, after: dict[str, set[str]], *, session: str, turn: str, action: str) -> list[dict]:
    """The journal's lines for one write: per file it changed, the entries it took away and put in."""
    if before is None:
        return []  # no snapshot of the files before it: nothing certain to say (the sync still runs)
    lines = []
    for target in FILES:
        gone, new = sorted(before.get(target, set()) - after[target]), sorted(after[target] - before.get(target, set()))
        if gone or new:
            lines.append({"at": now(), "session": session, "turn": turn, "action": action, "target": target, "before": gone, "after": new})
    return lines


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def journal(path: Path, line: dict) -> None:
    """One line appended to the journal, created readable by its owner alone."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, (json.dumps(line) + "\n").encode())
    finally:
        os.close(fd)


class LiveSync:
    """One background sync of this profile at a time: writes that arrive while one runs are
    synced by one more run after it; nothing waits for it. Silent on success, one log line on
    failure (the sync's own last line, which names files and problems, never entry text)."""

    def __init__(self, command: list[str], logger: logging.Logger):
        self.command, self.logger = command, logger
        self.lock = threading.Lock()
        self.wanted = False
        self.thread: threading.Thread | None = None

    def request(self) -> None:
        with self.lock:
            self.wanted = True
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="memory-pipeline-live-sync", daemon=True)
                self.thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(DEBOUNCE_S)
            with self.lock:
                if not self.wanted:
                    self.thread = None
                    return
                self.wanted = False
            try:
                done = subprocess.run(self.command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=900)
                if done.returncode != 0:
                    said = (done.stderr.strip().splitlines() or ["no message"])[-1]
                    self.logger.warning("memory-pipeline live sync failed (exit %s): %s", done.returncode, said)
            except Exception as exc:  # noqa: BLE001 - the thread must go on to the next request
                self.logger.warning("memory-pipeline live sync could not run: %s", type(exc).__name__)
