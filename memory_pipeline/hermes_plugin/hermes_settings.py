"""What the plugin reads of the Hermes home, on every turn: the profile's store as Holographic
finds it, its scope, the detector switches of every profile sharing that store, and what
`memory-pipeline hermes-plugin install` recorded (`pipeline.json`). Each file is parsed again only
once it changed, so a running Hermes follows an edit, a new profile or a reinstall at its next turn.
Standard library and PyYAML (a Hermes dependency) only.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from .in_hermes.fact_search import settings_digest
from .in_hermes.store_location import kept_per_user, store_file


def hermes_home() -> Path:
    """This profile's home, as Hermes resolves it."""
    try:
        from hermes_constants import get_hermes_home  # Hermes' own resolution (profiles included)

        return Path(get_hermes_home())
    except ImportError:
        return Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes")


# The files every turn asks, as last parsed, by path, inode, size and times: read again once
# changed, a reinstall under a running Hermes included.
_PARSED: dict[str, tuple[tuple, object]] = {}


def _parsed(path: Path, parse):
    seen = path.stat()
    stamp = (seen.st_dev, seen.st_ino, seen.st_size, seen.st_mtime_ns, seen.st_ctime_ns)
    known = _PARSED.get(str(path))
    if known is None or known[0] != stamp:
        known = _PARSED[str(path)] = (stamp, parse(path.read_text(encoding="utf-8-sig")))
    return known[1]


def _config(path: Path | None = None) -> dict:
    """The profile's config.yaml (or another profile's); empty when missing, unreadable or odd
    (the defaults, as Holographic does)."""
    try:
        import yaml

        parsed = _parsed(path or hermes_home() / "config.yaml", yaml.safe_load)
        return parsed if isinstance(parsed, dict) else {}
    except Exception:  # noqa: BLE001 - an unreadable or odd config: the defaults
        return {}


def plugin_setting(plugin: str, key: str, config: Path | None = None):
    """`plugins.<plugin>.<key>` in the profile's config.yaml (or `config`); None when unset, unreadable or odd."""
    try:
        return ((_config(config).get("plugins") or {}).get(plugin) or {}).get(key)
    except AttributeError:  # a section that is not a mapping
        return None


class NotServed(Exception):
    """Holographic keeps one store per user (`scope: user`): the main store is neither read nor synced."""


def _holographic(config: Path | None = None) -> dict:
    """`plugins.hermes-memory-store` of the profile's config.yaml (or `config`); empty when odd."""
    plugins = _config(config).get("plugins")
    found = plugins.get("hermes-memory-store") if isinstance(plugins, dict) else None
    return found if isinstance(found, dict) else {}


def store_path() -> Path:
    """The profile's store as Holographic finds it; `NotServed` under `scope: user`."""
    if kept_per_user(_holographic()):
        raise NotServed()
    return _db_path(hermes_home())


def _db_path(home: Path) -> Path:
    return store_file(home, _holographic(home / "config.yaml"))


# A profile name Hermes accepts (a directory under profiles/ with another name is no profile).
_PROFILE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def _sharer_configs() -> list[Path]:
    """The config.yaml of every other profile of the Hermes home whose Holographic names this
    profile's store, found on each turn: a profile added or re-pointed since the install counts
    at once."""
    root = Path(pipeline("hermes_home"))
    profiles = root / "profiles"
    homes = [root]
    if profiles.is_dir() and not profiles.is_symlink():
        homes += [h for h in sorted(profiles.iterdir()) if _PROFILE_NAME.fullmatch(h.name) and h.is_dir() and not h.is_symlink()]
    mine, own = store_path().resolve(), hermes_home().resolve()
    return [h / "config.yaml" for h in homes if h.resolve() != own and _db_path(h).resolve() == mine]


_UNREADABLE_SWITCHES = "sharers-unreadable"  # no judge records it: the store is withheld


def switches() -> list[str]:
    """The detector switches now (`plugins.memory-pipeline.private_data`) of this profile and of
    each profile sharing its store: facts judged under others are withheld until the re-tag this
    starts. A home whose profiles cannot be listed withholds (a switch that cannot be read)."""
    try:
        sharers = _sharer_configs()
    except (KeyError, ValueError, TypeError):  # no install record (a plugin copied by hand): its own
        sharers = []
    except OSError:
        return [settings_digest(plugin_setting("memory-pipeline", "private_data")), _UNREADABLE_SWITCHES]
    return [settings_digest(plugin_setting("memory-pipeline", "private_data", config)) for config in (None, *sharers)]


def pipeline(key: str):
    """What `memory-pipeline hermes-plugin install` recorded for this profile (`pipeline.json`):
    the re-tag and sync commands, the journal's path, the Hermes home (where the sharers are found)."""
    return _parsed(Path(__file__).with_name("pipeline.json"), json.loads)[key]
