from pathlib import Path

import dagster as dg

from memory_pipeline.lib.extraction import Extractor
from memory_pipeline.lib.extraction.rules import RulesExtractor
from memory_pipeline.lib.privacy import KeywordList, keyword_list_path, load_keywords
from memory_pipeline.lib.profiles import Profile, get_profile, resolve_hermes_home
from memory_pipeline.lib.store import HolographicSettings, holographic_settings


class HermesHomeResource(dg.ConfigurableResource):
    """The Hermes home whose profiles the pipeline keeps in step.

    Empty means `HERMES_HOME`, else the demo home shipped in `data/`.
    """

    hermes_home: str = ""

    def path(self) -> Path:
        return resolve_hermes_home(self.hermes_home or None)

    def profile(self, name: str) -> Profile:
        return get_profile(self.path(), name)


class FactStoreResource(dg.ConfigurableResource):
    """How the pipeline writes each profile's Holographic `memory_store.db`.

    `removal_policy` says what happens to the facts of an entry removed from the files: `keep`
    (default; the ledger rows are retired, L2 outlives L1), `retire` (also trust below the prefetch
    threshold) or `delete`. `similarity_threshold` is how alike a new entry and a vanished one must
    be for the new one to count as an edit of the old (its facts updated in place).
    """

    removal_policy: str = "keep"
    similarity_threshold: float = 0.5

    def settings(self, profile: Profile) -> HolographicSettings:
        return holographic_settings(profile.home)


class ExtractorResource(dg.ConfigurableResource):
    """Which extractor turns new and changed entries into facts: `rules` (offline, verbatim)."""

    extractor: str = "rules"

    def build(self) -> Extractor:
        if self.extractor == "rules":
            return RulesExtractor()
        raise ValueError(f"unknown extractor {self.extractor!r} (available: rules)")


class PrivacyResource(dg.ConfigurableResource):
    """The privacy keyword list and what a private fact gets (DESIGN §7).

    `keywords_path` empty means `$MEMORY_PIPELINE_PRIVACY_KEYWORDS`, else
    `<hermes-home>/memory-pipeline/privacy_keywords.txt`, else the demo list. `policy` is `tag`
    (the `private-person` tag and entity) or `hide` (also trust below the prefetch threshold).
    Only the list's SHA-256 and term count are ever shown.
    """

    keywords_path: str = ""
    policy: str = "tag"

    def keyword_file(self, hermes_home: Path) -> Path:
        return keyword_list_path(self.keywords_path or None, hermes_home)

    def keywords(self, hermes_home: Path) -> KeywordList:
        return load_keywords(self.keyword_file(hermes_home))
