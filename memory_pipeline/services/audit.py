"""The audit service: every check of a profile run on its files and store as they are now, and
the mechanical repairs of what fails (the ledger's malformed rows, saved first; ghost facts and
dangling links; the indexes; the tags), followed by a sync where entries are left to sync afresh."""

from __future__ import annotations

import time

from memory_pipeline.context.home import ProfileContext
from memory_pipeline.lib.audit.checks import SYNC_CLEARS, AuditResult, as_pending
from memory_pipeline.lib.audit.engine import run_audits
from memory_pipeline.lib.audit.layers import AuditInputs
from memory_pipeline.lib.audit.repairs import repair_indexes, repair_ledger, repair_links, repair_tags
from memory_pipeline.lib.hermes.profiles import read_profile
from memory_pipeline.lib.privacy.choice import PrivacyJudge

_LEDGER_CHECKS = {"ledger_integrity"}
_LINK_CHECKS = {"fact_links"}
_INDEX_CHECKS = {"index_consistency"}
_TAG_CHECKS = {"privacy_coverage"}
# A repaired ledger, or rows deleted with the facts they named, leave entries to sync afresh.
_SYNC_CHECKS = {"hashes_fresh", "layer_counts", *_LEDGER_CHECKS, *_LINK_CHECKS}


def audit_profile(context: ProfileContext, judge: PrivacyJudge, cap_target: float | None = None) -> list[AuditResult]:
    """Every check of the profile, on its files and store as they are now. Where the files, the
    store or the settings changed since the last clean sync, what the next sync clears (an entry
    written or removed since) is pending, a warning whose fix is that sync."""
    from memory_pipeline.runs.skip_rule import unchanged_since_last_sync

    results = _audited(context, judge, cap_target)
    if any(not r.passed and r.name in SYNC_CLEARS for r in results) and not unchanged_since_last_sync(context.home.path, context.profile):
        results = [as_pending(r) for r in results]
    return results


def _audited(context: ProfileContext, judge: PrivacyJudge, cap_target: float | None) -> list[AuditResult]:
    profile, where = context.profile, context.store
    with where.opened_if_exists() as store:
        return run_audits(
            AuditInputs(
                read_profile(profile),
                store.reads if store else None,
                where.settings,
                judge,
                data_dir=context.home.data_dir,
                profile=profile.name,
                profile_home=profile.home,
                cap_target=profile.cap_target(cap_target),
                owner=context.owner,
            )
        )


def repair_profile(context: ProfileContext, judge: PrivacyJudge, failing: set[str]) -> tuple[list[str], list[str]]:
    """The failing checks' mechanical repairs, then a sync of the profile where entries are left
    to sync afresh: what was repaired, and what could not be."""
    profile, home, where = context.profile, context.home.path, context.store
    done: list[str] = []
    failed: list[str] = []
    if failing & (_LEDGER_CHECKS | _LINK_CHECKS | _INDEX_CHECKS | _TAG_CHECKS) and where.exists:
        with where.opened() as store:
            if failing & _LEDGER_CHECKS:
                stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
                done += repair_ledger(store, context.home.data_dir / "repairs" / f"{profile.name}-ledger-{stamp}.db")
            if failing & (_LEDGER_CHECKS | _LINK_CHECKS):  # rows a ledger repair deleted leave their facts unbacked
                done += repair_links(store)
            if failing & _INDEX_CHECKS:
                done += repair_indexes(store)
            if failing & _TAG_CHECKS:
                done += repair_tags(store, judge)
    if failing & _SYNC_CHECKS:
        # Through the sync service, as every sync goes (its skip state, its privacy choice).
        from memory_pipeline.runs.options import SyncOptions
        from memory_pipeline.services.sync import SyncRequest, sync_profiles

        listed = judge.keywords.path
        options = SyncOptions(keywords_path=str(listed) if listed and listed.exists() else None)  # the list the audit judged with
        outcome = sync_profiles(SyncRequest(home=home, profiles={profile.name: profile}, options=options, force=True))
        run = outcome.profiles[profile.name].run
        if run is not None and run.success:
            done.append("re-synced pending entries")
        else:
            failed.append(f"re-sync of pending entries failed: {run.error if run else 'it did not run'}")
    return done, failed
