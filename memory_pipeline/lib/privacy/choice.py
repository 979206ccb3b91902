"""What a profile's facts are judged with, and where each part of that choice comes from: the
keyword list, the detectors switched on, and what a private fact gets.

Each part resolves the same way for the CLI, Hermes' cron (which runs the CLI) and the UI's runs:
what this run was told (a flag, a run's config), else what the profile's `config.yaml` says
(`plugins.memory-pipeline`), else what a flag told an earlier sync of the profile (remembered in
the pipeline's data directory), else the default: `hide`, the home's own keyword list, every
detector but `private_network`. The keyword list fails closed: a dangling link, an unreadable file,
or a list missing where the profile was judged with one before stops the sync before anything
is written, with one line naming the file and the way out.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_pipeline.lib.choices import PrivacyPolicy
from memory_pipeline.lib.files.digest_key import KEY_FILE, digest_key, keyed
from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file
from memory_pipeline.lib.files.writing import replace_file
from memory_pipeline.lib.hermes.profiles import Profile, config_section
from memory_pipeline.lib.in_hermes.fact_search import SHOWN, content_sha256, settings_digest
from memory_pipeline.lib.in_hermes.search_gate import recorded_many
from memory_pipeline.lib.privacy.detectors import DETECTORS, detectors_key
from memory_pipeline.lib.privacy.folding import Folded, folded
from memory_pipeline.lib.privacy.matching import KeywordList, KeywordListError, load_keywords, no_terms, private_reasons, united
from memory_pipeline.lib.privacy.unsafe import unsafe_kinds
from memory_pipeline.lib.store.reads.verdicts import PRIVATE, UNREADABLE, UNSAFE, Verdict

DEFAULT_POLICY = PrivacyPolicy.HIDE
NO_LIST = "none"  # remembered for `--no-keywords`: the built-in detectors alone
NO_SWITCHES = settings_digest({})  # a config.yaml that switches no detector


@dataclass(frozen=True)
class Told:
    """What this run was told: a flag or a run's config; None where it was told nothing."""

    policy: PrivacyPolicy | None = None
    keywords: str | None = None  # a path, or NO_LIST


@dataclass(frozen=True)
class PrivacyChoice:
    """The resolved choice for one profile, each part with where it came from."""

    policy: PrivacyPolicy
    policy_from: str  # "flag", "config.yaml", "remembered", "default"
    keywords_path: Path | None  # None: no list (the built-in detectors alone)
    keywords_named: bool  # named by a flag, the variable or a remembered flag: it must be there
    categories: frozenset[str]
    settings_sha256: str = NO_SWITCHES  # the detector switches read from config.yaml (`settings_digest`)


@dataclass(frozen=True)
class PrivacyJudge:
    """The keyword list and detectors a profile's facts are judged with, and the policy."""

    keywords: KeywordList
    categories: frozenset[str]
    policy: PrivacyPolicy
    settings_sha256: str = NO_SWITCHES  # the detector switches the categories came from

    def reasons(self, text: str | Folded) -> list[str]:
        return private_reasons(text, self.keywords, self.categories)

    @functools.cached_property
    def detectors(self) -> str:
        return detectors_key(self.categories)

    def judge(self, raw: bytes) -> Judgement:
        """A fact's stored bytes judged: private, unsafe, or unreadable (not UTF-8: withheld,
        since nothing can tell what it holds)."""
        digest = content_sha256(raw)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return Judgement(digest, (), (), unreadable=True)
        fold = folded(text)  # one fold for every rule
        return Judgement(digest, tuple(self.reasons(fold)), tuple(unsafe_kinds(fold)))

    def judged_by_list(self, texts: dict[int, tuple[bytes, str]]) -> dict[int, Judgement]:
        """Texts (id -> stored bytes, their SHA-256) the same detectors and unsafe scan found nothing
        in (a "shown" verdict for these very bytes), judged again by the keyword list alone: all
        at once, as a re-tag after a list edit asks of nearly every fact."""
        hits = self.keywords.matching({key: raw.decode("utf-8") for key, (raw, _) in texts.items()})
        return {key: Judgement(digest, ("keyword",) if key in hits else (), ()) for key, (_, digest) in texts.items()}

    def outcome_of(self, judgement: Judgement) -> Verdict:
        return Verdict(judgement.content_sha256, self.keywords.sha256, self.detectors, judgement.outcome)


@dataclass(frozen=True)
class Judgement:
    """What the judge found in one fact's text: kinds only, never the text."""

    content_sha256: str
    reasons: tuple[str, ...]  # private: `keyword` and the detectors that fired
    unsafe: tuple[str, ...]  # the kinds of steering, exfiltration or credential access
    unreadable: bool = False

    @property
    def private(self) -> bool:
        return bool(self.reasons)

    @property
    def outcome(self) -> str:
        """`shown`, or why the fact is withheld: `private`, `unsafe`, both, or `unreadable`."""
        if self.unreadable:
            return UNREADABLE
        withheld = [name for name, found in ((PRIVATE, self.private), (UNSAFE, bool(self.unsafe))) if found]
        return ",".join(withheld) or SHOWN


def united_judge(judges: list[PrivacyJudge]) -> PrivacyJudge:
    """The judge of profiles that share one store: the union of their lists and of the detectors
    each switched on, `hide` when any hides, every profile's switches recorded. The strictest
    verdict wins, so no profile's private fact is served because another profile synced last."""
    if len(judges) == 1:
        return judges[0]
    policy = PrivacyPolicy.HIDE if any(j.policy is PrivacyPolicy.HIDE for j in judges) else judges[0].policy
    switches = sorted({d for j in judges for d in recorded_many(j.settings_sha256) if d is not None})
    return PrivacyJudge(
        united([j.keywords for j in judges]),
        frozenset().union(*(j.categories for j in judges)),
        policy,
        switches[0] if len(switches) == 1 else json.dumps(switches),
    )


def configured(profile: Profile) -> tuple[str | None, frozenset[str], str]:
    """The profile's own settings: `privacy_policy` (None when unset or odd), the detectors on
    (`private_data: {category: true|false}` over the defaults; unknown names are ignored), and the
    switches' digest, which the judge records and the agent's surfaces compare."""
    section = config_section(profile.home / "config.yaml", "plugins", "memory-pipeline")
    policy = section.get("privacy_policy")
    policy = policy if policy in {p.value for p in PrivacyPolicy} else None
    switches = section.get("private_data")
    switches = switches if isinstance(switches, dict) else {}
    on = {
        name for name, detector in DETECTORS.items() if (switches.get(name) if isinstance(switches.get(name), bool) else detector.default)
    }
    return policy, frozenset(on), settings_digest(switches)


def _remembered_path(data_dir: Path, profile: str) -> Path:
    return data_dir / "privacy" / f"{profile}.json"


def remembered(data_dir: Path, profile: str) -> dict[str, Any]:
    """What earlier syncs of the profile left: `policy` and `keywords` a flag named, and the list
    it was last judged with (`judged_with`: path, `judged_terms`; never a hash of it)."""
    try:
        found = json.loads((read_regular_file(_remembered_path(data_dir, profile)) or b"{}").decode())
    except (UnreadableFile, ValueError):
        found = {}
    return found if isinstance(found, dict) else {}


def remember(data_dir: Path, profile: str, **values: str | int) -> None:
    """Keep these values for the profile's next syncs (None forgets one)."""
    kept = {**remembered(data_dir, profile), **values}
    # A list's hash was once kept here too: a plain hash of a short list gives it away, so it goes.
    kept = {key: value for key, value in kept.items() if value is not None and key != "judged_sha256"}
    path = _remembered_path(data_dir, profile)
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, json.dumps(kept, ensure_ascii=False))


def resolve(profile: Profile, home: Path, data_dir: Path, told: Told, variable: str | None = None) -> PrivacyChoice:
    """The choice for a profile (see the module's docstring); `variable` is
    `$MEMORY_PIPELINE_PRIVACY_KEYWORDS`, which comes after a flag and before what is remembered."""
    policy_config, categories, settings = configured(profile)
    kept = remembered(data_dir, profile.name)
    for source, value in (("flag", told.policy), ("config.yaml", policy_config), ("remembered", kept.get("policy"))):
        if value in {p.value for p in PrivacyPolicy}:
            policy, policy_from = PrivacyPolicy(value), source
            break
    else:
        policy, policy_from = DEFAULT_POLICY, "default"
    named = told.keywords or variable or kept.get("keywords")
    if named == NO_LIST:
        path, is_named = None, True
    elif named:
        path, is_named = Path(named).expanduser().absolute(), True
    else:
        path, is_named = home / "memory-pipeline" / "privacy_keywords.txt", False
    return PrivacyChoice(policy, policy_from, path, is_named, categories, settings)


def load_judge(choice: PrivacyChoice, profile: str, data_dir: Path) -> PrivacyJudge:
    """The judge for a resolved choice; `KeywordListError` (one line: the file, the problem, the
    way out, never a term) when the list cannot be used, including one that went missing."""
    return PrivacyJudge(load_list(choice, profile, data_dir), choice.categories, choice.policy, choice.settings_sha256)


def load_list(choice: PrivacyChoice, profile: str, data_dir: Path) -> KeywordList:
    """The profile's list, known by its digest under the home's key (never a plain hash)."""
    path, key, key_file = choice.keywords_path, digest_key(data_dir), data_dir / KEY_FILE
    if path is None:
        return no_terms(None, key, key_file)
    if not choice.keywords_named and not os.path.lexists(path):
        before = remembered(data_dir, profile)
        if before.get("judged_with") == _relative(path, data_dir) and int(before.get("judged_terms") or 0) > 0:
            raise KeywordListError(
                f"{path}: privacy keyword list is missing, but profile {profile} was judged with it ({before['judged_terms']} terms); "
                f"nothing was changed. Put it back, or run `memory-pipeline sync --profile {profile} --no-keywords` "
                "to judge with the built-in detectors alone"
            )
        return no_terms(path, key, key_file)
    try:
        return load_keywords(path, key, key_file)
    except KeywordListError as exc:
        raise KeywordListError(
            f"{exc}; nothing was changed. Fix the file, or name another with `memory-pipeline sync --profile {profile} --keywords PATH`"
        ) from None


def judged(data_dir: Path, profile: str, keywords: KeywordList) -> None:
    """Remember the list a profile was just judged with, so a list that later goes missing is
    refused rather than read as "no terms"."""
    if keywords.path is not None and keywords.terms:
        judged_with = _relative(keywords.path, data_dir)
        remember(data_dir, profile, judged_with=judged_with, judged_terms=keywords.terms)


def _relative(path: Path, data_dir: Path) -> str:
    """A list's path as remembered: relative to the data directory, so a home moved or copied
    whole still knows the list it was judged with."""
    return os.path.relpath(path, data_dir)


def lists_digest(lists: dict[str, KeywordList], key: bytes) -> str:
    """One digest of every profile's keyword list, keyed with the home's digest key (a plain hash
    of a one-name list would give the name away): what the keyword sensor, the lists' data
    version and a re-tag backfill know a set of lists by."""
    return keyed(key, "".join(f"{name}\0{lst.sha256}\n" for name, lst in sorted(lists.items())))
