"""The live sync of memory-pipeline's Hermes plugin: the memory files' entries by hash, the journal
of the agent's own memory writes (hashes, session, turn, never text; private to its owner), and
one background sync of the profile at a time. Copied beside the plugin by `memory-pipeline
hermes-plugin install`: the standard library only."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import threading
import time
from pathlib import Path

from .in_hermes.entry_reader import decoded, entry_sha256, parse_entries
from .in_hermes.warm_worker import ask

try:
    import fcntl
except ImportError:  # Windows: appends are not serialised there
    fcntl = None  # type: ignore[assignment]

FILES = {"memory": "MEMORY.md", "user": "USER.md"}
DEBOUNCE_S = 0.1  # a burst of writes (a batch, several calls in one turn) syncs once


def entry_texts(home: Path) -> dict[str, dict[str, str]]:
    """Each memory file's entries, by the pipeline's own reader (`in_hermes/entry_reader.py`, shipped
    beside this file): SHA-256 of the stripped text (the pipeline's identity) -> text. Held in
    memory for one tool call, never written anywhere."""
    found = {}
    for target, name in FILES.items():
        try:
            entries = parse_entries(decoded((home / "memories" / name).read_bytes()))
        except (OSError, UnicodeDecodeError):
            entries = []
        found[target] = {entry_sha256(e): e for e in entries}
    return found


def reached_the_file(result: object) -> bool:
    """A `memory` tool result that changed a file: a success, not staged for approval."""
    outcome = json.loads(result) if isinstance(result, str) else result
    return isinstance(outcome, dict) and bool(outcome.get("success")) and not outcome.get("staged")


def write_lines(before: dict | None, after: dict[str, dict[str, str]], call: dict, *, session: str, turn: str) -> list[dict]:
    """The journal's lines for one tool call, one per operation: the entries it took away and put
    in, told apart from what another session wrote meanwhile by the call's own arguments (an
    entry taken away holds the `old_text` it named; one put in is the `content` it gave)."""
    if before is None:
        return []  # no snapshot of the files before it: nothing certain to say (the sync still runs)
    operations = call.get("operations") if isinstance(call.get("operations"), list) else [call]
    lines = []
    for op in (o for o in operations if isinstance(o, dict)):
        target = str(op.get("target") or call.get("target") or "memory")
        if target not in FILES:
            continue
        was, now_ = before.get(target, {}), after.get(target, {})
        gone = {h: t for h, t in was.items() if h not in now_}
        new = {h: t for h, t in now_.items() if h not in was}
        action = str(op.get("action") or "batch")
        taken = [] if action == "add" else _named(gone, op.get("old_text"))  # an add takes nothing away
        put = [] if action == "remove" else _put(new, op)  # a removal puts nothing in
        if taken or put:
            lines.append({"at": now(), "session": session, "turn": turn, "action": action, "target": target, "before": taken, "after": put})
    return lines


def _named(gone: dict[str, str], old_text: object) -> list[str]:
    """The entries gone that hold the text the operation named (all gone, when it named none)."""
    if isinstance(old_text, str) and old_text.strip():
        return sorted(h for h, text in gone.items() if old_text.strip() in text)
    return sorted(gone)


def _put(new: dict[str, str], op: dict) -> list[str]:
    """The new entries the operation wrote: for `add` and `replace` its `content`, the whole entry;
    for current Hermes' `patch` the new entries holding its `content` (or `new_text`), the text it
    put in place of `old_text`."""
    piece = next((op[k] for k in ("content", "new_text", "new_content") if isinstance(op.get(k), str) and op[k].strip()), None)
    if piece is not None and op.get("action") != "patch":
        return [h for h in new if h == entry_sha256(piece.strip())]
    return sorted(h for h, text in new.items() if piece is None or piece.strip() in text)


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


JOURNAL_BYTES = 1024 * 1024  # past this the journal starts afresh, the previous one kept beside it (`.1`)


def journal(path: Path, line: dict) -> None:
    """One line appended to the journal, created readable by its owner alone. A journal past
    `JOURNAL_BYTES` is moved aside (replacing the one moved aside before), under a lock, so two
    Hermes sessions appending at once neither lose a line nor move it aside twice."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    data = (json.dumps(line) + "\n").encode()
    for _ in range(8):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)  # released when closed
            if not _is_current(path, fd):
                continue  # moved aside while this session waited: append to the new one
            if os.fstat(fd).st_size and os.fstat(fd).st_size + len(data) > JOURNAL_BYTES:
                os.replace(path, path.with_name(path.name + ".1"))
                continue
            os.write(fd, data)
            return
        finally:
            os.close(fd)


def _is_current(path: Path, fd: int) -> bool:
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


class LiveSync:
    """One background sync of this profile at a time: writes that arrive while one runs are
    synced by one more run after it; nothing waits for it. Each is asked of the home's warm worker
    directly when its address is known (`worker_address`, asked of memory-pipeline once), else
    run as `command` (`sync --warm`: it starts the worker). Silent on success, one log line on
    failure (the sync's own last line, which names files and problems, never entry text)."""

    def __init__(self, command: list[str], logger: logging.Logger, *, profile: str = "", worker_address: list[str] | None = None):
        self.command, self.logger, self.profile = command, logger, profile
        self.address_command, self.address = worker_address, ""
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
                self._sync()
            except Exception as exc:  # noqa: BLE001 - the thread must go on to the next request
                self.logger.warning("memory-pipeline live sync could not run: %s", type(exc).__name__)

    def _sync(self) -> None:
        known = self._worker_known()
        answer = ask(Path(self.address), {"profiles": [self.profile], "retag": False}, timeout_s=900) if known else None
        if answer is not None and isinstance(answer.get("exit"), int):
            code, said = answer["exit"], str(answer.get("stderr", ""))
        else:
            done = subprocess.run(self.command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=900)
            code, said = done.returncode, done.stderr
        if code != 0:
            last = (said.strip().splitlines() or ["no message"])[-1]
            self.logger.warning("memory-pipeline live sync failed (exit %s): %s", code, last)

    def _worker_known(self) -> bool:
        """The warm worker's address, asked of memory-pipeline on the first sync (it depends on the
        environment Hermes started it in); without one every sync runs the command."""
        if self.address_command and not self.address and self.profile:
            command, self.address_command = self.address_command, None  # asked once
            try:
                done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
                self.address = done.stdout.strip() if done.returncode == 0 else ""
            except (OSError, subprocess.SubprocessError):
                self.address = ""
        return bool(self.address)
