"""Where a Hermes home keeps its profiles, memory files, stores and caps (DESIGN §2)."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from memory_pipeline.lib.memory_files import DEFAULT_CHAR_LIMITS, SOURCE_FILES

DEFAULT_PROFILE = "default"
# Hermes' own rule for profile ids (hermes_cli/profiles.py); other directory names are not profiles.
PROFILE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
REPO_ROOT = Path(__file__).resolve().parents[2]
DEMO_HERMES_HOME = REPO_ROOT / "data" / "hermes_home"
_CONFIG_LIMIT_KEYS = {"memory": "memory_char_limit", "user": "user_char_limit"}


class ProfileNotFound(Exception):
    """A profile name that the Hermes home does not have."""


@dataclass(frozen=True)
class Profile:
    """One Hermes profile: its own home directory with `memories/`, `config.yaml` and (unless the
    Holographic config moves it) `memory_store.db`."""

    name: str
    home: Path

    @property
    def memories_dir(self) -> Path:
        return self.home / "memories"

    def memory_file(self, source: str) -> Path:
        return self.memories_dir / SOURCE_FILES[source]

    def char_limits(self) -> dict[str, int]:
        return char_limits(self.home / "config.yaml")


def resolve_hermes_home(explicit: str | os.PathLike | None = None) -> Path:
    """`--hermes-home`, else `HERMES_HOME`, else the demo home shipped in `data/`."""
    chosen = explicit or os.environ.get("HERMES_HOME") or DEMO_HERMES_HOME
    return Path(chosen).expanduser().resolve()


def pipeline_data_dir(hermes_home: Path) -> Path:
    """Where the pipeline keeps what it writes besides the stores (reports, history, Dagster home)."""
    override = os.environ.get("MEMORY_PIPELINE_DATA_DIR")
    return Path(override).expanduser().resolve() if override else hermes_home / "memory-pipeline"


def discover_profiles(hermes_home: Path) -> list[Profile]:
    """`default` for the home itself, then every `profiles/<name>/` with a valid Hermes profile name."""
    if not hermes_home.is_dir():
        return []
    found = [Profile(DEFAULT_PROFILE, hermes_home)]
    profiles_dir = hermes_home / "profiles"
    if profiles_dir.is_dir():
        for child in sorted(profiles_dir.iterdir()):
            if child.is_dir() and PROFILE_NAME.match(child.name) and child.name != DEFAULT_PROFILE:
                found.append(Profile(child.name, child))
    return found


def memory_files_digest(profile: Profile) -> str:
    """SHA-256 over both memory files' bytes (content, not mtime: a touch is no change)."""
    digest = hashlib.sha256()
    for source in SOURCE_FILES:
        digest.update(f"{source}\0".encode())
        try:
            digest.update(profile.memory_file(source).read_bytes())
        except FileNotFoundError:
            digest.update(b"\0missing")
        except OSError as exc:
            digest.update(f"\0unreadable {exc.errno}".encode())
        digest.update(b"\0")
    return digest.hexdigest()


def get_profile(hermes_home: Path, name: str) -> Profile:
    for profile in discover_profiles(hermes_home):
        if profile.name == name:
            return profile
    raise ProfileNotFound(f"{hermes_home}: no profile named {name!r}")


def char_limits(config_path: Path) -> dict[str, int]:
    """Hermes' `memory.memory_char_limit` / `memory.user_char_limit`, else the defaults.

    Like Hermes, an unreadable or odd config falls back to the defaults rather than failing.
    """
    limits = dict(DEFAULT_CHAR_LIMITS)
    try:
        config = yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return limits
    memory_config = config.get("memory") if isinstance(config, dict) else None
    if not isinstance(memory_config, dict):
        return limits
    for source, key in _CONFIG_LIMIT_KEYS.items():
        try:
            value = int(memory_config.get(key, limits[source]))
        except (TypeError, ValueError):
            continue
        if value > 0:
            limits[source] = value
    return limits
