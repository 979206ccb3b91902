"""The Holographic provider's settings for one profile, read from its `config.yaml` as the
provider reads them (`plugins.hermes-memory-store`), with its defaults on any trouble."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from memory_pipeline.lib.choices import VectorFormat
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES
from memory_pipeline.lib.hermes.profiles import Profile, config_section, switched_off
from memory_pipeline.lib.in_hermes.store_location import kept_per_user, store_file

DEFAULT_DIM = 1024  # Holographic's `hrr_dim` when its config sets none
PER_USER_DIR = "holographic-users"


@dataclass(frozen=True)
class HolographicSettings:
    """The Holographic provider's settings for one profile (`plugins.hermes-memory-store`)."""

    db_path: Path
    hrr_dim: int = DEFAULT_DIM
    default_trust: float = 0.5
    min_trust: float = 0.3  # prefetch ignores facts below this trust
    vector_format: VectorFormat = VectorFormat.AUTO  # the dialect vectors are written in (auto: the store's)
    per_user: bool = False  # the catalog Holographic's `scope: user`: the agent reads one store per user, not `db_path`

    @property
    def withheld_trust(self) -> float:
        """Trust just below the prefetch threshold: what a retired, hidden or unsafe fact gets, so
        it stops surfacing on its own."""
        return max(0.0, round(self.min_trust - 0.1, 6))

    @property
    def per_user_dir(self) -> Path:
        """Where the catalog Holographic keeps the per-user stores: beside the main one."""
        return self.db_path.parent / PER_USER_DIR

    def per_user_stores(self) -> list[Path]:
        return sorted(p for p in self.per_user_dir.glob("*.db") if p.is_file()) if self.per_user_dir.is_dir() else []


def holographic_settings(profile_home: Path) -> HolographicSettings:
    """Read as the provider reads it: `$HERMES_HOME/config.yaml`, defaults on any trouble."""
    plugin = config_section(profile_home / "config.yaml", "plugins", "hermes-memory-store")
    return HolographicSettings(
        db_path=store_file(profile_home, plugin),
        hrr_dim=_positive(plugin.get("hrr_dim"), int, DEFAULT_DIM),
        default_trust=min(1.0, max(0.0, _positive(plugin.get("default_trust"), float, 0.5))),
        min_trust=_as_hermes_reads(plugin.get("min_trust_threshold"), 0.3),
        per_user=kept_per_user(plugin),
    )


_Number = TypeVar("_Number", int, float)


def _positive(value: object, kind: Callable[[Any], _Number], default: _Number) -> _Number:
    try:
        number = kind(value)
    except (TypeError, ValueError):
        return default
    return number if number > 0 else default


def per_user_note(profile: Profile) -> str | None:
    """What a command says of a profile whose Holographic keeps one store per user: which exist,
    and that they are not synced (the pipeline does not know which user an entry belongs to)."""
    settings = holographic_settings(profile.home)
    if not settings.per_user:
        return None
    stores = settings.per_user_stores()
    named = ", ".join(p.stem for p in stores[:10]) + (f" and {len(stores) - 10} more" if len(stores) > 10 else "")
    found = (
        f"{len(stores)} per-user stores in {settings.per_user_dir} ({named})"
        if stores
        else f"no per-user store yet in {settings.per_user_dir}"
    )
    return (
        f"profile {profile.name}: Holographic keeps one store per user (plugins.hermes-memory-store.scope: user): {found}; "
        "they are not synced, and neither is the main store the agent does not read in this mode (remove `scope: user` to sync)"
    )


def switched_off_notes(profile: Profile) -> list[str]:
    """What a command says of each memory file the profile's config switches off."""
    return [
        f"profile {profile.name}: {SOURCE_FILES[source]} is switched off ({key}: false in {profile.home / 'config.yaml'}): Hermes "
        "neither injects nor writes it, so its entries are not synced and their facts are retired (set it to true to bring them back)"
        for source, key in switched_off(profile.home / "config.yaml").items()
    ]


def _as_hermes_reads(value: object, default: float) -> float:
    """A number as Holographic reads it (`float(config.get(key, default))`): 0 and below are kept,
    so a threshold at 0 is seen as Hermes' prefetch applies it; what is not a number is the default."""
    if value is None:
        return default
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default
