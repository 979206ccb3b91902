"""Where a Hermes home keeps its profiles, memory files, stores and caps."""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memory_pipeline.lib.choices import DEFAULT_CAP_TARGET
from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file, read_text_file
from memory_pipeline.lib.hermes.memory_files import DEFAULT_CHAR_LIMITS, SOURCE_FILES, SourceReading, content_digest, read_source

DEFAULT_PROFILE = "default"
# Hermes' own rule for profile ids (hermes_cli/profiles.py); other directory names are not profiles.
PROFILE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
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

    def cap_target(self, override: float | None = None) -> float:
        """`override` (a flag, a run's config) when given, else the profile's own setting."""
        return override or cap_target(self.home / "config.yaml")


def read_profile(profile: Profile) -> list[SourceReading]:
    """Both memory files of a profile, each read against its cap. A file the profile's config
    switched off holds no entry the agent has (Hermes neither injects nor writes it): read as
    empty, marked with the key that switched it off, its bytes' digest kept."""
    limits = profile.char_limits()
    off = switched_off(profile.home / "config.yaml")
    readings = [read_source(profile.memory_file(source), source, limits[source]) for source in SOURCE_FILES]
    return [
        replace(r, entries=[], hermes_entries=[], current_hermes_entries=[], findings=[], switched_off=off[r.source])
        if r.source in off and r.readable
        else r
        for r in readings
    ]


_SWITCH_KEYS = {"memory": "memory_enabled", "user": "user_profile_enabled"}


# Current Hermes' truthy strings: any other string switches a file off (`'no'`, `'False'`, `'off'`).
_TRUTHY = frozenset({"1", "true", "yes", "on"})


def switched_off(config_path: Path) -> dict[str, str]:
    """The files the config switches off, each with its key (`memory.memory_enabled`), by current
    Hermes' rule: absent, the file is on; a string is on only when it reads 1, true, yes or on
    (any case); any other value by its truth (0.19.0 took every non-empty string as on)."""
    section = config_section(config_path, "memory")
    return {source: f"memory.{key}" for source, key in _SWITCH_KEYS.items() if key in section and not _on(section[key])}


def _on(value: object) -> bool:
    return value.strip().lower() in _TRUTHY if isinstance(value, str) else bool(value)


def default_hermes_home() -> Path:
    """Hermes' own default on Linux and macOS, where it runs without `HERMES_HOME`."""
    return Path.home() / ".hermes"


def resolve_hermes_home(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The home named, else `~/.hermes` (`environment.hermes_home` names it: flag, then variable)."""
    return Path(explicit or default_hermes_home()).expanduser().resolve()


def pipeline_data_dir(hermes_home: Path, override: str | os.PathLike[str] | None) -> Path:
    """Where the pipeline keeps what it writes besides the stores (reports, history, Dagster home):
    the directory named (`environment.data_dir` names it), else the home's `memory-pipeline/`."""
    return Path(override).expanduser().resolve() if override else hermes_home / "memory-pipeline"


def looks_like_hermes_home(path: Path) -> bool:
    """A `memories/` or `profiles/` directory or a `config.yaml`: what a Hermes home has once Hermes ran."""
    return (path / "memories").is_dir() or (path / "profiles").is_dir() or (path / "config.yaml").is_file()


def discover_profiles(hermes_home: Path) -> list[Profile]:
    """`default` for the home itself, then every `profiles/<name>/` with a valid Hermes profile name
    that is a real directory (a symbolic link may lead out of the home: not followed)."""
    if not hermes_home.is_dir():
        return []
    found = [Profile(DEFAULT_PROFILE, hermes_home)]
    for child in _profile_dirs(hermes_home):
        if not child.is_symlink() and child.is_dir() and PROFILE_NAME.match(child.name) and child.name != DEFAULT_PROFILE:
            found.append(Profile(child.name, child))
    return found


def skipped_profiles(hermes_home: Path) -> list[str]:
    """One line per entry of `profiles/` that is not taken as a profile, and why."""
    notes = []
    for child in _profile_dirs(hermes_home):
        if child.is_symlink():
            notes.append(f"{child}: a symbolic link, not followed (it may lead out of the Hermes home); skipped")
        elif child.is_dir() and not PROFILE_NAME.match(child.name):
            notes.append(f"{child}: not a profile name Hermes accepts (a-z, 0-9, _ and -, at most 64); skipped")
        elif child.is_dir() and child.name == DEFAULT_PROFILE:
            notes.append(f"{child}: `default` is the Hermes home itself, not a directory under profiles/; skipped")
    return notes


def _profile_dirs(hermes_home: Path) -> list[Path]:
    profiles_dir = hermes_home / "profiles"
    return sorted(profiles_dir.iterdir()) if profiles_dir.is_dir() and not profiles_dir.is_symlink() else []


def files_digest(digests: dict[str, str]) -> str:
    """One digest over both memory files' `content_digest`s."""
    digest = hashlib.sha256()
    for source in SOURCE_FILES:
        digest.update(f"{source}\0{digests.get(source, 'missing')}\0".encode())
    return digest.hexdigest()


def readings_digest(readings: list[SourceReading]) -> str:
    """The files as a run read them (what its skip state records)."""
    return files_digest({r.source: r.digest for r in readings})


def memory_files_digest(profile: Profile) -> str:
    """The files as they are now, read the way `read_source` reads them (a FIFO, a device, a
    huge file: never read, never waited on)."""
    digests = {}
    for source in SOURCE_FILES:
        try:
            digests[source] = content_digest(read_regular_file(profile.memory_file(source)))
        except UnreadableFile as exc:
            digests[source] = content_digest(None, str(exc))
    return files_digest(digests)


def get_profile(hermes_home: Path, name: str) -> Profile:
    profiles = discover_profiles(hermes_home)
    for profile in profiles:
        if profile.name == name:
            return profile
    raise ProfileNotFound(f"{hermes_home}: no profile named {name!r} (profiles: {', '.join(p.name for p in profiles) or 'none'})")


# A config.yaml parsed once while it stays the same file, same size and times: an agent's server
# answering many queries reads each profile's settings without parsing YAML again. A file changed
# within the last two seconds is always read (a rewrite inside the clock's tick keeps its times).
_PARSED: dict[Path, tuple[tuple[int, ...], object]] = {}
_SETTLED_NS = 2_000_000_000


def _parsed_config(config_path: Path) -> object:
    try:
        stat = config_path.stat()
    except OSError:
        return {}
    identity = (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    cached = _PARSED.get(config_path)
    if cached is not None and cached[0] == identity:
        return cached[1]
    import yaml  # on the first config read: a command that reads none never pays for it

    try:
        parsed = yaml.safe_load(read_text_file(config_path) or "") or {}
    except (UnreadableFile, yaml.YAMLError):
        parsed = {}
    if time.time_ns() - max(stat.st_mtime_ns, stat.st_ctime_ns) > _SETTLED_NS:
        _PARSED[config_path] = (identity, parsed)
    return parsed


def config_section(config_path: Path, *keys: str) -> dict[str, Any]:
    """The mapping at `keys` in a profile's config.yaml (`plugins`, `hermes-memory-store`), empty
    when the file, a key or the YAML is missing or odd: like Hermes, the defaults then apply.
    Read-only: the mapping may be shared with the next caller."""
    section = _parsed_config(config_path)
    for key in keys:
        section = section.get(key) if isinstance(section, dict) else None
    return section if isinstance(section, dict) else {}


def cap_target(config_path: Path) -> float:
    """The share of each file's cap the profile aims to stay within (`plugins.memory-pipeline.cap_target`
    in its config.yaml, a number in (0, 1]); `cap_usage` warns above it."""
    value = config_section(config_path, "plugins", "memory-pipeline").get("cap_target")
    return float(value) if isinstance(value, (int, float)) and 0 < value <= 1 else DEFAULT_CAP_TARGET


def char_limits(config_path: Path) -> dict[str, int]:
    """Hermes' `memory.memory_char_limit` / `memory.user_char_limit`, else the defaults.

    Like Hermes, an unreadable or odd config falls back to the defaults rather than failing.
    """
    limits = dict(DEFAULT_CHAR_LIMITS)
    memory_config = config_section(config_path, "memory")
    for source, key in _CONFIG_LIMIT_KEYS.items():
        try:
            value = int(memory_config.get(key, limits[source]))
        except (TypeError, ValueError):
            continue
        if value > 0:
            limits[source] = value
    return limits
