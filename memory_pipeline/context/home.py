"""A Hermes home and each of its profiles, resolved once: the home's directories and profiles
(`Home`), and per profile its store, its privacy choice and its judge, made on first use
(`ProfileContext`). A setting resolves as the environment says (flag, else variable), else the
profile's config.yaml, else what an earlier flag left remembered, else the default. Commands build
one `Home`, services take its contexts, and inside a run the resources make one per partition."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from memory_pipeline import environment
from memory_pipeline.lib.hermes.profiles import Profile, discover_profiles, get_profile
from memory_pipeline.lib.store.owner import LedgerOwner
from memory_pipeline.lib.store.profile_store import ProfileStore, profile_store

if TYPE_CHECKING:  # the keyword list (RE2) is loaded where a judge is asked for
    from memory_pipeline.lib.privacy.choice import PrivacyChoice, PrivacyJudge, Told
    from memory_pipeline.lib.privacy.matching import KeywordList
    from memory_pipeline.lib.store.fact_store import FactStore
    from memory_pipeline.lib.store.reads.reader import StoreReader


@dataclass(frozen=True)
class Home:
    """A Hermes home, as the flag or the environment names it (`environment.hermes_home`)."""

    path: Path

    @classmethod
    def at(cls, flag: str | Path | None = None) -> Home:
        return cls(environment.hermes_home(flag))

    @cached_property
    def data_dir(self) -> Path:
        return environment.data_dir(self.path)

    @cached_property
    def profiles(self) -> tuple[Profile, ...]:
        return tuple(discover_profiles(self.path))

    @cached_property
    def _contexts(self) -> dict[str, ProfileContext]:
        return {profile.name: ProfileContext(self, profile) for profile in self.profiles}

    @cached_property
    def _store_files(self) -> dict[str, Path]:
        """Each profile's store file, links followed: profiles naming one file share it."""
        return {name: context.store.path.resolve() for name, context in self._contexts.items()}

    def context(self, profile: Profile) -> ProfileContext:
        """The profile's context, made once per home (its store located once)."""
        known = self._contexts.get(profile.name)
        return known if known is not None and known.profile == profile else ProfileContext(self, profile)

    def named(self, name: str) -> ProfileContext:
        """The context of the profile named (`get_profile`'s `ProfileNotFound` when the home has none by that name)."""
        known = self._contexts.get(name)
        return known if known is not None else self.context(get_profile(self.path, name))

    def contexts(self) -> list[ProfileContext]:
        """Every profile's context, in the home's order."""
        return [self.context(profile) for profile in self.profiles]

    def served(self) -> dict[str, ProfileContext]:
        """The contexts of the profiles the pipeline keeps in step, by name: every profile but one
        whose Holographic keeps a store per user (the pipeline never writes a store the agent does
        not read)."""
        return {context.name: context for context in self.contexts() if not context.store.per_user}


@dataclass(frozen=True)
class ProfileContext:
    """One profile of a home: its store (located once), whose ledger rows in it are the profile's,
    its privacy choice and its judge. Services take one and open the store through it."""

    home: Home
    profile: Profile

    @property
    def name(self) -> str:
        return self.profile.name

    @cached_property
    def store(self) -> ProfileStore:
        return profile_store(self.profile)

    @cached_property
    def sharers(self) -> list[ProfileContext]:
        """The contexts of the home's other profiles whose Holographic names the same store file
        (each profile's store located once per home, so a home of many profiles is read once)."""
        mine = self.store.path.resolve()
        files = self.home._store_files
        return [self.home.context(p) for p in self.home.profiles if p.name != self.name and files[p.name] == mine]

    @cached_property
    def owner(self) -> LedgerOwner:
        """The profile as the owner of its ledger rows (apart from the profiles sharing its store)."""
        return LedgerOwner(self.name, tuple(sharer.name for sharer in self.sharers))

    def opened(self, *, create: bool = True) -> AbstractContextManager[FactStore]:
        """The store opened for writing as this profile's (`ProfileStore.opened`)."""
        return self.store.opened(owner=self.owner, create=create)

    @contextmanager
    def reading(self) -> Iterator[StoreReader | None]:
        """The store's reads of this profile's rows on a read-only connection, or None when the
        store does not exist yet (reading never creates one)."""
        if not self.store.exists:
            yield None
            return
        with self.store.read_only(self.owner) as reads:
            yield reads

    def privacy_choice(self, told: Told | None = None) -> PrivacyChoice:
        return privacy_choice(self.profile, self.home.path, told)

    @property
    def judge(self) -> PrivacyJudge:
        """`judge_with` as the profile's own settings choose."""
        return self.judge_with()

    @cached_property
    def _judges(self) -> dict[Told, PrivacyJudge]:
        return {}

    def judge_with(self, told: Told | None = None) -> PrivacyJudge:
        """The judge for the choice `told` gives, made once per context and choice (a 20,000-term
        list takes seconds to compile; a run's steps share its context); `KeywordListError` (one
        line) when a list cannot be used: asked again, it is tried again."""
        from memory_pipeline.lib.privacy.choice import Told

        told = told or Told()  # told nothing and told no choice are one choice
        made = self._judges.get(told)
        if made is None:
            made = self._judges[told] = self._made_judge(told)
        return made

    def _made_judge(self, told: Told) -> PrivacyJudge:
        """The judge for `told`, united with those of the profiles sharing its store. A shared
        store is judged with every sharer's list, whichever names it: each profile's own choice,
        and the one `$MEMORY_PIPELINE_PRIVACY_KEYWORDS` names, so a list named for one profile's
        sync never drops another's terms, and every sharer's sync reaches the same verdicts."""
        from memory_pipeline.lib.privacy.choice import Told, load_judge, resolve, united_judge

        data_dir = self.home.data_dir
        own = load_judge(self.privacy_choice(told), self.name, data_dir)
        if not self.sharers:
            return own
        named = environment.variable(environment.KEYWORDS_ENV)
        choices = {
            (c.name, named_now): resolve(c.profile, self.home.path, data_dir, Told(), named_now)
            for c in [self, *self.sharers]
            for named_now in dict.fromkeys([None, named])
        }
        others = [load_judge(choice, name, data_dir) for (name, _), choice in choices.items()]
        return united_judge([own, *others])


def privacy_choice(profile: Profile, home: Path, told: Told | None = None) -> PrivacyChoice:
    """What the profile's facts are judged with: what this run was told (a flag, a run's config),
    else `$MEMORY_PIPELINE_PRIVACY_KEYWORDS` for the list, else the profile's config.yaml, else
    what an earlier flag left remembered, else the defaults (`lib/privacy/choice.py`)."""
    from memory_pipeline.lib.privacy.choice import Told, resolve

    return resolve(profile, home, environment.data_dir(home), told or Told(), environment.variable(environment.KEYWORDS_ENV))


def privacy_judge(profile: Profile, home: Path, told: Told | None = None) -> PrivacyJudge:
    """The profile's judge in `home` (`ProfileContext.judge_with`)."""
    return Home(home).context(profile).judge_with(told)


def keyword_lists(home: Path, told: Told | None = None) -> dict[str, KeywordList]:
    """Every profile's keyword list by profile; one that cannot be read stands as `unreadable`
    (its hash changes, and that profile's sync fails closed with the list's one line)."""
    from memory_pipeline.lib.privacy.matching import KeywordList, KeywordListError

    found = {}
    for context in Home(home).contexts():  # one home: each store located once for every profile's sharers
        try:
            found[context.name] = context.judge_with(told).keywords
        except KeywordListError:
            found[context.name] = KeywordList(None, "unreadable", 0, (), ())
    return found
