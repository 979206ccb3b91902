"""A profile's store before it is opened: where it is and how Holographic keeps it (read from the
profile's config.yaml), whether it exists yet, and the way to open it: as a `FactStore` to
write, as a read-only `StoreReader` to read. Every
command and service asks this one question here, not each its own way."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memory_pipeline.lib.hermes.profiles import Profile
from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
from memory_pipeline.lib.store.reads.reader import StoreReader
from memory_pipeline.lib.store.settings import HolographicSettings, holographic_settings

if TYPE_CHECKING:  # the writer's maths (numpy) is imported when a store is opened, not at start
    from memory_pipeline.lib.store.fact_store import FactStore


@dataclass(frozen=True)
class ProfileStore:
    profile: Profile
    settings: HolographicSettings

    @property
    def path(self) -> Path:
        return self.settings.db_path

    @property
    def exists(self) -> bool:
        """The profile has a store (a sync, or Holographic, made it)."""
        return self.path.is_file()

    @property
    def per_user(self) -> bool:
        """The agent reads one store per user (the catalog Holographic's `scope: user`), not this one."""
        return self.settings.per_user

    def opened(self, *, owner: LedgerOwner = SOLE_OWNER, create: bool = True) -> AbstractContextManager[FactStore]:
        """The store opened for writing, its schema made or brought up to date (see `FactStore.opened`)."""
        from memory_pipeline.lib.store.fact_store import FactStore

        return FactStore.opened(self.settings, owner=owner, create=create)

    def opened_if_exists(self, *, owner: LedgerOwner = SOLE_OWNER) -> AbstractContextManager[FactStore | None]:
        """`opened` without `create`, or None for a store that does not exist yet."""
        from memory_pipeline.lib.store.fact_store import FactStore

        return FactStore.opened_if_exists(self.settings, owner=owner)

    def read_only(self, owner: LedgerOwner = SOLE_OWNER) -> AbstractContextManager[StoreReader]:
        """The store's reads (of `owner`'s ledger rows) on a read-only connection (no writer, no
        lock ever taken); a store that does not exist is a `StoreError`."""
        return StoreReader.read_only(self.path, owner)

    @contextmanager
    def reading(self) -> Iterator[StoreReader | None]:
        """`read_only`, or None when the store does not exist yet (reading never creates one)."""
        if not self.exists:
            yield None
            return
        with self.read_only() as reads:
            yield reads


def profile_store(profile: Profile) -> ProfileStore:
    return ProfileStore(profile, holographic_settings(profile.home))
