"""The Holographic provider's settings for one profile, read from its `config.yaml` as the
provider reads them (`plugins.hermes-memory-store`), with its defaults on any trouble."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memory_pipeline.lib.choices import VectorFormat
from memory_pipeline.lib.hermes.profiles import Profile, config_section

DEFAULT_DIM = 1024  # Holographic's `hrr_dim` when its config sets none


@dataclass(frozen=True)
class HolographicSettings:
    """The Holographic provider's settings for one profile (`plugins.hermes-memory-store`)."""

    db_path: Path
    hrr_dim: int = DEFAULT_DIM
    default_trust: float = 0.5
    min_trust: float = 0.3  # prefetch ignores facts below this trust
    vector_format: VectorFormat = VectorFormat.AUTO  # the dialect vectors are written in (auto: the store's)


def holographic_settings(profile_home: Path) -> HolographicSettings:
    """Read as the provider reads it: `$HERMES_HOME/config.yaml`, defaults on any trouble."""
    default_db = profile_home / "memory_store.db"
    plugin = config_section(profile_home / "config.yaml", "plugins", "hermes-memory-store")
    db_path = default_db
    if isinstance(plugin.get("db_path"), str) and plugin["db_path"].strip():
        raw = plugin["db_path"].replace("${HERMES_HOME}", str(profile_home)).replace("$HERMES_HOME", str(profile_home))
        db_path = Path(raw).expanduser()
    return HolographicSettings(
        db_path=db_path,
        hrr_dim=_positive(plugin.get("hrr_dim"), int, DEFAULT_DIM),
        default_trust=min(1.0, max(0.0, _positive(plugin.get("default_trust"), float, 0.5))),
        min_trust=_positive(plugin.get("min_trust_threshold"), float, 0.3),
    )


def _positive(value, kind, default):
    try:
        number = kind(value)
    except (TypeError, ValueError):
        return default
    return number if number > 0 else default


def store_sharers(profile: Profile, profiles: list[Profile]) -> tuple[str, ...]:
    """The other profiles whose settings name the same store file (`db_path`), links followed:
    how a user shares facts between profiles."""
    mine = holographic_settings(profile.home).db_path.resolve()
    return tuple(p.name for p in profiles if p.name != profile.name and holographic_settings(p.home).db_path.resolve() == mine)
