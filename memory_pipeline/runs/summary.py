"""What one profile's sync did, in the stable `--json` shape: of a run, from its typed result
(`runs.result`), or of a skip, from the store as it is."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from memory_pipeline.lib.hermes.profiles import Profile, read_profile
from memory_pipeline.lib.store.profile_store import profile_store
from memory_pipeline.lib.sync.state import FailingCheck

if TYPE_CHECKING:  # Dagster is imported only where a profile runs
    from memory_pipeline.runs.result import ProfileRun


@dataclass
class Mirrors:
    """What became of Holographic's mirror rows in a run."""

    found: int = 0
    adopted: int = 0
    updated: int = 0
    retired: int = 0
    unexplained: int = 0
    unexplained_ids: tuple[int, ...] = ()
    named_before: int = 0  # of `unexplained`, the facts an earlier sync named already


@dataclass
class ProfileSummary:
    """The stable `--json` shape of one profile's sync (README, `sync --json`)."""

    profile: str
    skipped: bool
    extractor: str
    extractor_reason: str
    model: str
    added: int
    updated: int
    unchanged: int
    removed: int
    quarantined: int
    llm_calls: int
    facts_total: int
    store: str
    private_facts: int
    mirrors: Mirrors = field(default_factory=Mirrors)
    embedder: str = ""  # the model recall by meaning's vectors are made with ("off": none; "": not run)
    embedded: int = 0  # facts given a vector of it by this run
    vectors_added: int = 0  # HRR vectors given to facts Hermes stored without one (no NumPy in Hermes' environment)
    failing_checks: list[str] = field(default_factory=list)
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        found = asdict(self)
        found["mirrors"].pop("unexplained_ids")  # what `named_before` is counted from; `mirrors` lists them
        return found


def summary_of_run(run: ProfileRun) -> ProfileSummary:
    report, read = run.outputs.report, run.outputs
    return ProfileSummary(
        profile=run.profile,
        skipped=False,
        extractor=read.extract.extractor,
        extractor_reason=read.extract.extractor_reason,
        model=read.extract.model,
        added=report.added,
        updated=report.updated,
        unchanged=report.unchanged,
        removed=report.removed,
        quarantined=report.quarantined,
        llm_calls=read.extract.llm_calls,
        facts_total=report.facts_total,
        store=read.write.store,
        private_facts=read.privacy.private_facts,
        mirrors=Mirrors(
            found=read.diff.mirror_rows,
            adopted=report.mirrors_adopted,
            updated=read.diff.mirror_previous_versions,
            retired=report.mirrors_retired,
            unexplained=read.diff.mirror_unexplained,
            unexplained_ids=read.diff.mirror_unexplained_ids,
        ),
        embedder=read.embeddings.model,
        embedded=read.embeddings.embedded,
        vectors_added=report.vectors_added,
        failing_checks=sorted(run.failing_errors + run.failing_warnings),
        error=run.error,
    )


def summary_of_skip(profile: Profile, failing: list[FailingCheck]) -> ProfileSummary:
    """A profile nothing could have changed in since its last sync: every entry unchanged, the
    store's counts as they are, the checks that sync's audit left failing."""
    where = profile_store(profile)
    with where.read_only() as reads:
        facts, private = reads.fact_counts()
    return ProfileSummary(
        profile=profile.name,
        skipped=True,
        extractor="",
        extractor_reason="nothing changed since the last sync",
        model="",
        added=0,
        updated=0,
        unchanged=sum(len(r.entries) for r in read_profile(profile)),
        removed=0,
        quarantined=0,
        llm_calls=0,
        facts_total=facts,
        store=str(where.path),
        private_facts=private,
        failing_checks=sorted(name for name, _, _ in failing),
    )
