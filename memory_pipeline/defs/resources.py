from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Optional

import dagster as dg
from pydantic import PrivateAttr

from memory_pipeline import environment
from memory_pipeline.context.home import Home, ProfileContext, keyword_lists
from memory_pipeline.lib.audit.extraction_health import JSON_FAILURE_RATE_BOUND, LATENCY_P95_BOUND_S
from memory_pipeline.lib.choices import ExtractorMode, PrivacyPolicy, RemovalPolicy, VectorFormat
from memory_pipeline.lib.extraction.choice import ExtractorChoice, choose_extractor
from memory_pipeline.lib.extraction.ollama import OllamaSettings
from memory_pipeline.lib.extraction.prompt import FactLimits
from memory_pipeline.lib.files.digest_key import digest_key
from memory_pipeline.lib.files.writing import private_umask
from memory_pipeline.lib.hermes.memory_files import SourceReading
from memory_pipeline.lib.hermes.profiles import ProfileNotFound, read_profile, readings_digest
from memory_pipeline.lib.privacy.choice import PrivacyJudge, Told
from memory_pipeline.lib.privacy.matching import KeywordList, KeywordListError
from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
from memory_pipeline.lib.store.reads.watermark import WatermarkChain
from memory_pipeline.lib.store.schema.database import StoreError
from memory_pipeline.lib.store.settings import HolographicSettings, per_user_note
from memory_pipeline.lib.sync.lock import SyncLockTimeout, profile_sync_lock
from memory_pipeline.runs.options import SyncOptions


class HermesHomeResource(dg.ConfigurableResource):
    """The Hermes home whose profiles the pipeline keeps in step.

    Empty means `HERMES_HOME`, else `~/.hermes` (as Hermes itself resolves it).
    """

    hermes_home: str = ""
    # The share of each file's cap `cap_usage` warns above; 0 means each profile's own setting
    # (`plugins.memory-pipeline.cap_target` in its config.yaml, else 0.85).
    cap_target: float = 0.0
    # What this run read of each profile's files, as a digest (the in-process executor keeps one
    # resource per run): the audit reads the files again and knows whether they moved meanwhile,
    # without the run holding their text from its first step to its last.
    _read_digests: dict[str, str] = PrivateAttr(default_factory=dict)
    # The home resolved once per run, so its steps share each profile's context (its store's
    # location, its judge) instead of building them again.
    _home: Optional[Home] = PrivateAttr(default=None)  # noqa: UP045 - as Dagster's config reads it

    def home(self) -> Home:
        if self._home is None:
            self._home = Home.at(self.hermes_home or None)
        return self._home

    def path(self) -> Path:
        return self.home().path

    def context(self, name: str) -> ProfileContext:
        """The partition's profile as a context: its store located once (`ProfileNotFound` when gone)."""
        return self.home().named(name)

    def data_dir(self) -> Path:
        """The pipeline's own state beside the home (journal, skip states, key, runs)."""
        return self.home().data_dir

    def digest_key(self) -> bytes:
        """The home's key for the digests the UI shows (`lib/files/digest_key.py`)."""
        return digest_key(self.data_dir())

    def read(self, name: str) -> list[SourceReading]:
        """Both memory files of the profile, read now; their digest is kept as this run's reading."""
        readings = read_profile(self.context(name).profile)
        self._read_digests[name] = readings_digest(readings)
        return readings

    def moved_since_read(self, name: str, readings: list[SourceReading]) -> bool:
        """Whether these readings of the profile's files differ from what this run read of them
        (another writer, Hermes most often, changed a file during the run)."""
        read = self._read_digests.get(name)
        return read is not None and read != readings_digest(readings)

    @contextmanager
    def yield_for_execution(self, context: dg.InitResourceContext):
        """A run of one profile holds that profile's sync lock from its first step to its last
        (the in-process executor sets resources up once per run), so two syncs of a profile run
        one after the other. Sensors and schedules, which have no run, take no lock."""
        run = context.run
        name = run.tags.get("dagster/partition") if run is not None else None
        if name is None:
            yield self
            return
        # A run launched from the UI writes stage values (entry text) in its own process: private.
        with private_umask():
            yield from self._locked(name, context)

    def _locked(self, name: str, context: dg.InitResourceContext):
        try:
            store_path = self.context(name).store.path
        except ProfileNotFound:
            yield self  # the step reading the profile says so, in one line
            return
        log = context.log

        def waiting(path: Path) -> None:
            if log is not None:
                log.info(f"another sync of profile {name} is running; waiting for {path}")

        try:
            with profile_sync_lock(store_path, on_wait=waiting):
                yield self
        except SyncLockTimeout as exc:
            raise dg.Failure(description=str(exc)) from None


class FactStoreResource(dg.ConfigurableResource):
    """How the pipeline writes each profile's Holographic `memory_store.db`.

    `removal_policy` says what happens to the facts of an entry removed from the files: `retire`
    (default: the pipeline's own facts move to its archive, out of every Hermes tool; a fact Hermes
    wrote itself is tagged `retired`, its trust below Holographic's prefetch threshold; either
    comes back, same id, if the entry does), `keep` (kept as they are) or `delete`.
    `similarity_threshold` is how alike a new entry and a vanished one must be for the new one to
    count as an edit of the old (its facts updated in place).
    `vector_format` is the dialect HRR vectors and banks are written in: `auto` (the store's own:
    HRR1 once current Hermes wrote HRR1 vectors there, else legacy float64), `legacy` or `hrr1`.
    """

    removal_policy: RemovalPolicy = RemovalPolicy.RETIRE
    similarity_threshold: float = 0.5
    vector_format: VectorFormat = VectorFormat.AUTO
    _watermarks: WatermarkChain = PrivateAttr(default_factory=WatermarkChain)

    @property
    def watermarks(self) -> WatermarkChain:
        """The store as each step of this run found and left it (one chain per run)."""
        return self._watermarks

    def removal(self) -> RemovalPolicy:
        """The removal policy, typed, as the writer takes it."""
        return RemovalPolicy(self.removal_policy)

    def settings(self, profile: ProfileContext) -> HolographicSettings:
        """The profile's Holographic settings; a profile whose agent reads one store per user fails
        the step with the note that says so (the pipeline never writes a store the agent does not read)."""
        settings = profile.store.settings
        if settings.per_user:
            raise dg.Failure(description=per_user_note(profile.profile))
        return replace(settings, vector_format=VectorFormat(self.vector_format))

    @contextmanager
    def opened(self, settings: HolographicSettings, owner: LedgerOwner = SOLE_OWNER) -> Iterator[FactStore]:
        """The profile's `FactStore`, made if it does not exist yet, closed afterwards. A store
        problem fails the step with one line naming the file."""
        with self._failing_the_step(), FactStore.opened(settings, owner=owner) as fact_store:
            yield fact_store

    @contextmanager
    def opened_if_exists(self, settings: HolographicSettings, owner: LedgerOwner = SOLE_OWNER) -> Iterator[FactStore | None]:
        """`opened`, or None for a store that does not exist yet (reading never creates it)."""
        with self._failing_the_step(), FactStore.opened_if_exists(settings, owner=owner) as fact_store:
            yield fact_store

    @staticmethod
    @contextmanager
    def _failing_the_step() -> Iterator[None]:
        try:
            yield
        except StoreError as exc:
            raise dg.Failure(description=str(exc)) from None


class ExtractorResource(dg.ConfigurableResource):
    """Which extractor turns new and changed entries into facts.

    `extractor`: `auto` (Ollama when the server answers and has the model, else rules), `rules`
    (offline, verbatim) or `ollama`. `model` empty means `$MEMORY_PIPELINE_OLLAMA_MODEL`, else
    qwen3.6-nothink; `ollama_host` empty means `$OLLAMA_HOST`, else http://127.0.0.1:11434. A host
    off this machine is refused unless the process was started with
    `MEMORY_PIPELINE_ALLOW_REMOTE_OLLAMA=1` (memory holds personal data; a run's config cannot allow it).
    The two bounds are what the `extraction_latency` and `extraction_json_valid` checks hold a
    run to.
    """

    extractor: ExtractorMode = ExtractorMode.AUTO
    model: str = ""
    ollama_host: str = ""
    batch_size: int = 10
    parallel_calls: int = 1
    timeout_s: float = 120.0
    retries: int = 1
    max_facts_per_entry: int = 5
    max_fact_chars: int = 800
    latency_p95_bound_s: float = LATENCY_P95_BOUND_S
    json_failure_rate_bound: float = JSON_FAILURE_RATE_BOUND

    def ollama_settings(self) -> OllamaSettings:
        return OllamaSettings(
            url=environment.ollama_host(self.ollama_host or None),
            model=environment.model(self.model or None),
            batch_size=self.batch_size,
            parallel=self.parallel_calls,
            timeout_s=self.timeout_s,
            retries=self.retries,
            allow_remote=self.remote_allowed(),
            limits=FactLimits(max_facts_per_entry=self.max_facts_per_entry, max_fact_chars=self.max_fact_chars),
        )

    def remote_allowed(self) -> bool:
        """Whether a host off this machine may be asked: the environment the process was started
        with decides, never a field a run's config could set."""
        return environment.remote_ollama_allowed()

    def choose(self) -> ExtractorChoice:
        """The extractor for this run and why; `ExtractorUnavailable` when `ollama` cannot be used."""
        return choose_extractor(self.mode(), self.ollama_settings())

    def mode(self) -> ExtractorMode:
        """The configured mode, typed (its value is how the CLI spells it)."""
        return ExtractorMode(self.extractor)


class RemoteAllowedExtractorResource(ExtractorResource):
    """The extractor of a sync whose command was given `--allow-remote-ollama`: bound only in the
    job that command runs in its own process (`launch.execute`), never in the code location the UI
    and the daemon serve, so no run config can reach it."""

    def remote_allowed(self) -> bool:
        return True


class PrivacyResource(dg.ConfigurableResource):
    """What each profile's facts are judged with: the privacy keyword list, the detectors and what
    a private fact gets.

    Left empty, each profile's own choice applies (the same the CLI and Hermes' cron use): its
    `plugins.memory-pipeline` settings in config.yaml, else what `sync --privacy-policy` or
    `sync --keywords` left remembered, else policy `hide` (trust below Holographic's prefetch
    threshold) and `<hermes-home>/memory-pipeline/privacy_keywords.txt`. `keywords_path`,
    `no_keywords` (the built-in detectors alone) or `policy` set here decide for this run only.
    Only the list's SHA-256 and term count are shown.
    """

    keywords_path: str = ""
    no_keywords: bool = False
    policy: Optional[PrivacyPolicy] = None  # noqa: UP045 - Dagster's config reads Optional

    def told(self) -> Told:
        """The choice this run was told, read as the sync that set it reads it (`SyncOptions.told`)."""
        policy = PrivacyPolicy(self.policy) if self.policy else None
        return SyncOptions(keywords_path=self.keywords_path or None, no_keywords=self.no_keywords, privacy_policy=policy).told()

    def judge_for_step(self, context: ProfileContext) -> PrivacyJudge:
        """The profile's judge for this run's choice (made once for the run's steps, on the
        partition's context), or the step fails with the list's one-line problem (file and line, no term)."""
        try:
            return context.judge_with(self.told())
        except KeywordListError as exc:
            raise dg.Failure(description=str(exc)) from None

    def lists(self, hermes_home: Path) -> dict[str, KeywordList]:
        """Every profile's keyword list, by profile (what the keyword sensor watches)."""
        return keyword_lists(hermes_home, self.told())
